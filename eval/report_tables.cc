// SPDX-License-Identifier: MIT
// The report's tables and figures (eval/report_tables.h): one short function per table entry,
// build_table runs an entry over every system.
#include "eval/report_tables.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/file_util.h"
#include "core/logging.h"
#include "core/plot.h"
#include "eval/embedding_metrics.h"
#include "eval/gold_policy.h"
#include "eval/morph_metrics.h"

namespace morpheus::eval {
namespace {

ReportRow na_row(const SystemResult& r, size_t columns, const std::string& note) {
  ReportRow row;
  row.system = r.spec.name;
  row.values.assign(columns, std::nullopt);
  row.note = note.empty() ? "no output" : note;
  return row;
}

// The system's pieces for a word as it was sent (gold words are already in scoring form).
SegmentationLookup lookup_of(const SystemResult& r) {
  return [&r](const std::string& w) -> const Pieces* {
    auto it = r.seg.find(w);
    return it == r.seg.end() ? nullptr : &it->second;
  };
}

// The items of a gold set split into seen and unseen words (seen = GoldSets::seen).
template <typename T>
struct SeenSplit {
  std::vector<T> seen, unseen;
  bool known = false;  // false without a training text: seen/unseen columns are n/a
};

template <typename T>
SeenSplit<T> split_seen(const std::vector<T>& items, const std::optional<SeenWords>& seen) {
  SeenSplit<T> out;
  if (!seen) return out;
  out.known = true;
  for (const T& item : items) (seen->seen(item.word) ? out.seen : out.unseen).push_back(item);
  return out;
}

std::optional<double> count_value(bool known, size_t n) {
  return known ? std::optional<double>(static_cast<double>(n)) : std::nullopt;
}

// The row of system `r` scored on `n` items; `missing` looked-up words had no output.
ReportRow scored_row(const SystemResult& r, std::vector<std::optional<double>> values, size_t n,
                     size_t missing) {
  return {r.spec.name, std::move(values), n, std::nullopt,
          missing == 0 ? "" : std::to_string(missing) + " words without output"};
}

// Embedding rows restricted to the words the system has vectors for.
struct EmbeddingSubset {
  Matrix x;
  std::vector<int> labels;
  std::vector<size_t> source;  // index into the gold word list
};

EmbeddingSubset subset(const Embeddings& e, const std::vector<std::string>& words,
                       const std::vector<int>& labels) {
  EmbeddingSubset s;
  s.x.cols = e.vectors.cols;
  for (size_t i = 0; i < words.size(); ++i) {
    const long row = e.find(words[i]);
    if (row < 0) continue;
    const float* v = e.vectors.row(static_cast<size_t>(row));
    s.x.data.insert(s.x.data.end(), v, v + e.vectors.cols);
    s.labels.push_back(labels[i]);
    s.source.push_back(i);
  }
  s.x.rows = s.labels.size();
  return s;
}

EmbeddingSubset probe_subset(const Embeddings& e, const std::vector<ProbeItem>& items) {
  std::vector<std::string> words;
  std::vector<int> labels;
  std::map<std::string, int> ids;
  for (const ProbeItem& it : items) {
    words.push_back(it.word);
    labels.push_back(ids.emplace(it.label, static_cast<int>(ids.size())).first->second);
  }
  return subset(e, words, labels);
}

void append_row(const Embeddings& e, long row, Matrix* m) {
  const float* v = e.vectors.row(static_cast<size_t>(row));
  m->data.insert(m->data.end(), v, v + e.vectors.cols);
  ++m->rows;
}

// The lemma-retrieval queries and candidate lemmas a system has vectors for; a query whose
// lemma has none is left out too.
struct LemmaSubset {
  Matrix queries, candidates;
  std::vector<int> gold;   // candidate row of each query's lemma
  std::vector<bool> seen;  // one per query; empty without a training text
};

LemmaSubset lemma_subset(const Embeddings& e, const GoldSets& g) {
  LemmaSubset s;
  s.queries.cols = s.candidates.cols = e.vectors.cols;
  std::unordered_map<std::string, int> candidate_row;
  for (const std::string& lemma : g.lemma_candidates) {
    const long row = e.find(lemma);
    if (row < 0) continue;
    candidate_row.emplace(lemma, static_cast<int>(s.candidates.rows));
    append_row(e, row, &s.candidates);
  }
  for (const LemmaItem& item : g.lemma_items) {
    const long row = e.find(item.word);
    const auto gold = candidate_row.find(item.lemma);
    if (row < 0 || gold == candidate_row.end()) continue;
    append_row(e, row, &s.queries);
    s.gold.push_back(gold->second);
    if (g.seen) s.seen.push_back(g.seen->seen(item.word));
  }
  return s;
}

// Share of the distinct letter runs of the evaluation text (scoring form) that the word list
// `path` ("word[<TAB>…]" lines) holds.
StatusOr<double> table_share(const std::string& path,
                             const std::unordered_map<std::string, size_t>& text_words) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::unordered_set<std::string> table;
  std::string line;
  while (reader.next(&line)) table.insert(scoring_form(line.substr(0, line.find('\t'))));
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  std::unordered_set<std::string> distinct, held;
  for (const auto& [w, n] : text_words) {
    const std::string f = scoring_form(w);
    distinct.insert(f);
    if (table.count(f)) held.insert(f);
  }
  return distinct.empty() ? 0.0
                          : static_cast<double>(held.size()) / static_cast<double>(distinct.size());
}

// What a system must have produced for a table to score it; without it the row is n/a.
enum class Needs { kSegmentation, kRoundTrip, kTimedCodec, kEmbeddings };

using RowFn = std::function<ReportRow(const EvalInputs&, const SystemResult&)>;

struct TableEntry {
  ReportTable layout;  // id, title, columns and display options; no rows
  Needs needs = Needs::kSegmentation;
  RowFn row;                                               // one scored system's row
  std::function<bool(const EvalInputs&)> present;          // null: always in the report
  std::function<std::string(const EvalInputs&)> describe;  // null: layout.description
};

TableEntry make_entry(std::string id, std::string title, std::vector<std::string> columns,
                      Needs needs, RowFn row) {
  TableEntry e;
  e.layout.id = std::move(id);
  e.layout.title = std::move(title);
  e.layout.columns = std::move(columns);
  e.needs = needs;
  e.row = std::move(row);
  return e;
}

// The note of an n/a row when `r` lacks what `needs` names; nullopt when it has it.
std::optional<std::string> missing_output(const SystemResult& r, Needs needs) {
  switch (needs) {
    case Needs::kSegmentation:
      if (!r.has_seg) return r.seg_note;
      break;
    case Needs::kRoundTrip:
      if (!r.rt_words && !r.rt_sentences) return r.codec_note;
      break;
    case Needs::kTimedCodec:
      if (!r.enc_cold) return r.codec_note;
      break;
    case Needs::kEmbeddings:
      if (!r.emb) return r.emb_note;
      break;
  }
  return std::nullopt;
}

ReportTable build_table(const TableEntry& e, const EvalInputs& in,
                        const std::vector<SystemResult>& systems) {
  ReportTable t = e.layout;
  if (e.describe) t.description = e.describe(in);
  for (const SystemResult& r : systems) {
    const std::optional<std::string> missing = missing_output(r, e.needs);
    t.rows.push_back(missing ? na_row(r, t.columns.size(), *missing) : e.row(in, r));
  }
  return t;
}

TableEntry coverage_entry() {
  TableEntry e = make_entry("segmentation_coverage", "Segmentation output coverage",
                            {"coverage", "non_spelling", "segment_s"}, Needs::kSegmentation,
                            [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
                              size_t covered = 0;
                              const SegmentationLookup lookup = lookup_of(r);
                              for (const std::string& w : in.words) covered += lookup(w) != nullptr;
                              const auto n = static_cast<double>(in.words.size());
                              return {r.spec.name,
                                      {in.words.empty() ? 0.0 : static_cast<double>(covered) / n,
                                       r.seg_lines ? static_cast<double>(r.non_spelling) /
                                                         static_cast<double>(r.seg_lines)
                                                   : 0.0,
                                       r.segment_seconds},
                                      covered,
                                      std::nullopt,
                                      ""};
                            });
  e.layout.plot_columns = {0, 1};
  e.describe = [](const EvalInputs& in) {
    return "Share of the " + std::to_string(in.words.size()) +
           " evaluation words each system segmented, and share of its lines whose "
           "pieces do not concatenate to the word (lossy segmenters). segment s = wall "
           "time of the single segment command on the whole list (process start and "
           "model load included).";
  };
  return e;
}

// MorphScore (§4.1) of one system on gold set `set` (a GoldSets member), split seen/unseen.
TableEntry morphscore_entry(std::string id, std::string title, std::string description,
                            std::vector<MorphScoreItem> GoldSets::*set, bool published) {
  TableEntry e = make_entry(
      std::move(id), std::move(title),
      {"macro_f1", "f1_seen", "f1_unseen", "n_seen", "n_unseen", "mean_R", "mean_P", "micro_F1",
       "single_tok", "len_mismatch"},
      Needs::kSegmentation, [set](const EvalInputs& in, const SystemResult& r) -> ReportRow {
        const std::vector<MorphScoreItem>& gold = in.g.*set;
        const SeenSplit<MorphScoreItem> parts = split_seen(gold, in.g.seen);
        const MorphScoreResult m = morphscore(gold, lookup_of(r));
        std::optional<double> seen_f1, unseen_f1;
        if (parts.known && !parts.seen.empty()) {
          seen_f1 = morphscore(parts.seen, lookup_of(r)).macro_f1;
        }
        if (parts.known && !parts.unseen.empty()) {
          unseen_f1 = morphscore(parts.unseen, lookup_of(r)).macro_f1;
        }
        return scored_row(
            r,
            {m.macro_f1, seen_f1, unseen_f1, count_value(parts.known, parts.seen.size()),
             count_value(parts.known, parts.unseen.size()), m.mean_recall, m.mean_precision,
             m.micro_f1, m.single_token_rate, m.length_mismatch_rate},
            m.words, m.missing);
      });
  e.layout.description = std::move(description);
  e.layout.plot_columns = {0, 1, 2};
  e.layout.integer_columns = {3, 4};
  if (published) e.layout.published_label = "paper §5.1 macro_f1";
  e.present = [set](const EvalInputs& in) { return !(in.g.*set).empty(); };
  return e;
}

// Boundary P/R/F1 of one system on gold set `set` (a GoldSets member), split seen/unseen.
TableEntry boundary_entry(std::string id, std::string title, std::string description,
                          std::vector<GoldSegmentation> GoldSets::*set) {
  TableEntry e = make_entry(
      std::move(id), std::move(title),
      {"micro_P", "micro_R", "micro_F1", "F1_seen", "F1_unseen", "n_seen", "n_unseen", "macro_F1"},
      Needs::kSegmentation, [set](const EvalInputs& in, const SystemResult& r) -> ReportRow {
        const std::vector<GoldSegmentation>& gold = in.g.*set;
        const SeenSplit<GoldSegmentation> parts = split_seen(gold, in.g.seen);
        size_t missing = 0;
        const BoundaryScores s = boundary_scores(gold, lookup_of(r), &missing);
        std::optional<double> seen_f1, unseen_f1;
        if (parts.known && !parts.seen.empty()) {
          seen_f1 = boundary_scores(parts.seen, lookup_of(r), nullptr).f1;
        }
        if (parts.known && !parts.unseen.empty()) {
          unseen_f1 = boundary_scores(parts.unseen, lookup_of(r), nullptr).f1;
        }
        return scored_row(r,
                          {s.precision, s.recall, s.f1, seen_f1, unseen_f1,
                           count_value(parts.known, parts.seen.size()),
                           count_value(parts.known, parts.unseen.size()), s.macro_f1},
                          s.words, missing);
      });
  e.layout.description = std::move(description);
  e.layout.headline = 2;
  e.layout.plot_columns = {2, 3, 4};
  e.layout.integer_columns = {5, 6};
  e.present = [set](const EvalInputs& in) { return !(in.g.*set).empty(); };
  return e;
}

TableEntry sigmorphon_entry() {
  TableEntry e = make_entry(
      "sigmorphon", "SIGMORPHON 2022 lemma prefix / root in segments",
      {"lemma_prefix", "verb_lp", "noun_lp", "root_in_segs", "first_seg", "exact_suffix_count",
       "mean_diff", "mean_abs_diff"},
      Needs::kSegmentation, [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
        const SigmorphonResult s = sigmorphon(in.g.sigmorphon, lookup_of(r));
        return scored_row(
            r,
            {s.lemma_prefix, s.verb_lemma_prefix, s.noun_lemma_prefix, s.root_in_segments,
             s.first_segment, s.exact_suffix_count, s.mean_diff, s.mean_abs_diff},
            s.words, s.missing);
      });
  e.layout.description =
      "§4.3: single-word entries with 3 ≤ len ≤ 30; gold root = lemma (verbs: minus -mak/-mek); "
      "canon = Turkish lower-case + final b/c/d/g/ğ → p/ç/t/k/k.";
  e.layout.plot_columns = {0, 1, 2, 3, 4, 5};
  e.layout.published_label = "paper §5.3 lemma_prefix";
  e.present = [](const EvalInputs& in) { return !in.g.sigmorphon.empty(); };
  return e;
}

TableEntry surface_fidelity_entry() {
  TableEntry e = make_entry(
      "surface_fidelity", "Surface fidelity on the 50 curated words",
      {"root_pct", "count_pct", "len_pct", "exact_pct"}, Needs::kSegmentation,
      [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
        const SurfaceFidelityResult s = surface_fidelity(in.g.curated, lookup_of(r));
        return scored_row(r, {s.root_pct, s.count_pct, s.len_pct, s.exact_pct}, s.words, s.missing);
      });
  e.layout.description =
      "§4.4: root = lower(first piece) == gold root; count, piece-length sequence, exact pieces. "
      "Percentages of the curated words in the scored part (n).";
  e.layout.decimals = 1;
  e.layout.published_label = "paper §5.7 root %";
  return e;
}

TableEntry lexicon_entry() {
  TableEntry e = make_entry(
      "lexicon", "Fertility, %TR and %Pure on letter tokens",
      {"fertility", "chars_per_tok", "tr_pct", "pure_pct", "tr_pct_fw", "pure_pct_fw",
       "distinct_tokens"},
      Needs::kSegmentation, [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
        const LexiconResult l = lexicon_metrics(in.g.letter_words, lookup_of(r), *in.g.lexicon);
        return scored_row(r,
                          {l.fertility, l.chars_per_token, l.tr_pct, l.pure_pct, l.tr_pct_fw,
                           l.pure_pct_fw, static_cast<double>(l.distinct_tokens)},
                          l.word_occurrences, l.missing);
      });
  e.layout.plot_columns = {2, 3, 4, 5};
  e.layout.decimals = 3;
  e.layout.integer_columns = {6};
  e.layout.published_label = "paper §5.4 Pure% fw";
  e.present = [](const EvalInputs& in) { return in.g.lexicon && !in.g.letter_words.empty(); };
  e.describe = [](const EvalInputs& in) {
    return "Letter words of the evaluation text (" + std::to_string(in.g.letter_words.size()) +
           " distinct) segmented by each system; punctuation, digits and spaces are excluded for "
           "every system alike (§7.5 item 25). Pure = the lower-cased piece is a root or suffix "
           "of the hybrid lexicons; TR = pure, or root + suffix chain, or a chain of ≥ 2 "
           "suffixes. Unique = share of distinct pieces; fw = share of piece occurrences. The "
           "paper's figures are on TR-MMLU text with its own validator.";
  };
  return e;
}

TableEntry roundtrip_entry() {
  TableEntry e =
      make_entry("roundtrip", "Round trip decode(encode(x)) == x", {"words", "sentences"},
                 Needs::kRoundTrip, [](const EvalInputs&, const SystemResult& r) -> ReportRow {
                   return {r.spec.name,
                           {r.rt_words, r.rt_sentences},
                           r.rt_word_n + r.rt_sentence_n,
                           std::nullopt,
                           r.codec_note};
                 });
  e.layout.description =
      "Exact equality, no strip. words = the UD stem-boundary forms, one per line; sentences = "
      "the evaluation text lines with case and punctuation kept; n = words + sentences. The "
      "paper's figure is on its lower-case letter-only word list.";
  e.layout.published_label = "paper §5.2 (words)";
  return e;
}

ReportRow speed_row(const EvalInputs& in, const SystemResult& r) {
  const auto rate = [](double amount, const std::optional<double>& secs) {
    return secs && *secs > 0 ? std::optional<double>(amount / *secs) : std::nullopt;
  };
  std::optional<double> in_table;
  std::string note;
  if (!r.spec.table_words.empty()) {
    StatusOr<double> share = table_share(r.spec.table_words, in.g.letter_words);
    if (share.ok()) {
      in_table = *share;
    } else {
      note = share.status().message();
    }
  }
  const auto chars = static_cast<double>(in.g.text_chars);
  const auto w = static_cast<double>(in.g.text_words);
  return {r.spec.name,
          {rate(chars, r.enc_cold), rate(chars, r.enc_warm), rate(w, r.dec_cold),
           rate(w, r.dec_warm), in_table},
          in.g.text_chars,
          std::nullopt,
          note};
}

TableEntry speed_entry() {
  TableEntry e = make_entry(
      "speed", "Encode / decode speed (same text for every system)",
      {"enc_chars_s_cold", "enc_chars_s_warm", "dec_words_s_cold", "dec_words_s_warm", "in_table"},
      Needs::kTimedCodec, speed_row);
  e.layout.published_label = "paper §5.9 enc chars/s";
  e.describe = [](const EvalInputs& in) {
    const std::optional<double> unseen = unseen_text_share(in.g);
    return "Wall time of the encode and decode commands on the whole evaluation text (" +
           std::to_string(in.g.text_chars) + " characters, " + std::to_string(in.g.text_words) +
           " non-space spans" +
           (unseen ? ", " + format_value(100.0 * *unseen, 1) +
                         " % of its distinct letter runs are not training types"
                   : std::string()) +
           "), process start and model load included. cold = the first run; warm = median of " +
           std::to_string(in.c.speed.warm_runs) +
           " further runs (OS file cache warm; a memoising tokenizer starts empty in each "
           "process). in_table = share of the text's distinct letter runs held by the system's "
           "segmentation table (systems with one): below 1 the misses go to the model (a cold "
           "table, as a user has it on new text); 1 = a table exported with the text's own "
           "words (warm table). The paper's figure is in-process, warm cache.";
  };
  return e;
}

bool has_families(const EvalInputs& in) { return !in.g.family_words.empty(); }

TableEntry retrieval_entry() {
  TableEntry e =
      make_entry("retrieval", "Root-family retrieval (query excluded)",
                 {"MAP", "MRR", "R@1", "R@5", "R@10", "P@R", "MAP_ref", "coverage"},
                 Needs::kEmbeddings, [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
                   MORPHEUS_LOG(kInfo, "eval: embedding metrics for ", r.spec.name);
                   const EmbeddingSubset s = subset(*r.emb, in.g.family_words, in.g.family_labels);
                   const RetrievalResult ours = family_retrieval(s.x, s.labels, false);
                   const RetrievalResult ref = family_retrieval(s.x, s.labels, true);
                   const double coverage = static_cast<double>(s.x.rows) /
                                           static_cast<double>(in.g.family_words.size());
                   return {r.spec.name,
                           {ours.map, ours.mrr, ours.recall_at_1, ours.recall_at_5,
                            ours.recall_at_10, ours.precision_at_r, ref.map, coverage},
                           ours.queries,
                           std::nullopt,
                           ""};
                 });
  e.layout.plot_columns = {0, 1, 2, 3, 5};
  e.layout.published_label = "paper §5.10 MAP (48 words, query counted)";
  e.present = has_families;
  e.describe = [](const EvalInputs& in) {
    return "Families = lower-cased forms sharing a gold lemma in the UD treebanks and the Penn "
           "Treebank, ≥ " +
           std::to_string(in.c.embeddings.min_family_forms) + " distinct forms (" +
           std::to_string(in.g.families_total) + " families, " +
           std::to_string(in.g.family_words_total) + " forms; a seeded sample of " +
           std::to_string(in.g.family_names.size()) + " families / " +
           std::to_string(in.g.family_words.size()) +
           " forms is used). Each form queries all other forms by cosine; the query itself is "
           "excluded. MAP_ref = the reference's definition (query re-enters last and counts), "
           "for comparison with its 0.8542 ceiling on 48 words. n = queries.";
  };
  return e;
}

TableEntry same_root_auc_entry() {
  TableEntry e =
      make_entry("same_root_auc", "Same-root pair ROC-AUC", {"roc_auc"}, Needs::kEmbeddings,
                 [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
                   const EmbeddingOptions& o = in.c.embeddings;
                   const EmbeddingSubset s = subset(*r.emb, in.g.family_words, in.g.family_labels);
                   const PairAucResult a = same_root_auc(s.x, s.labels, o.max_pairs, o.seed);
                   return {r.spec.name, {a.auc}, a.positives + a.negatives, std::nullopt, ""};
                 });
  e.layout.published_label = "paper §5.10 (120+120 pairs)";
  e.present = has_families;
  e.describe = [](const EvalInputs& in) {
    return "Cosine of within-family pairs (≤ " + std::to_string(in.c.embeddings.max_pairs) +
           " sampled) vs as many random cross-family pairs (seed " +
           std::to_string(in.c.embeddings.seed) + "). n = pairs.";
  };
  return e;
}

TableEntry probes_entry() {
  TableEntry e = make_entry(
      "probes", "Number and case probes (NOUN forms, UD features)",
      {"number_acc", "number_majority", "case_acc", "case_majority"}, Needs::kEmbeddings,
      [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
        const EmbeddingOptions& o = in.c.embeddings;
        const EmbeddingSubset pn = probe_subset(*r.emb, in.g.number_items);
        const EmbeddingSubset pc = probe_subset(*r.emb, in.g.case_items);
        const ProbeResult number =
            logistic_probe(pn.x, pn.labels, o.probe_folds, o.seed, 1.0, o.probe_iterations);
        const ProbeResult cases =
            logistic_probe(pc.x, pc.labels, o.probe_folds, o.seed, 1.0, o.probe_iterations);
        return {r.spec.name,
                {number.accuracy, number.majority, cases.accuracy, cases.majority},
                number.items + cases.items,
                std::nullopt,
                ""};
      });
  e.layout.published_label = "paper §5.10 number acc";
  e.present = has_families;
  e.describe = [](const EvalInputs& in) {
    return "Multinomial logistic regression (C = 1, standardised features), stratified " +
           std::to_string(in.c.embeddings.probe_folds) +
           "-fold cross-validation; items = distinct NOUN forms with one unambiguous value, "
           "classes with ≥ " +
           std::to_string(in.c.embeddings.probe_min_class) + " items (" +
           std::to_string(in.g.number_items.size()) + " number, " +
           std::to_string(in.g.case_items.size()) +
           " case items before coverage). n = number + case items. Majority = majority-class "
           "accuracy.";
  };
  return e;
}

ReportRow lemma_row(const EvalInputs& in, const SystemResult& r) {
  const LemmaSubset s = lemma_subset(*r.emb, in.g);
  const LemmaRetrievalResult m = lemma_retrieval(s.queries, s.candidates, s.gold, s.seen);
  const bool known = in.g.seen.has_value();
  const auto part = [known](const LemmaAccuracy& a, double v) {
    return known && a.queries > 0 ? std::optional<double>(v) : std::nullopt;
  };
  const double coverage =
      static_cast<double>(s.queries.rows) / static_cast<double>(in.g.lemma_items.size());
  return {r.spec.name,
          {m.all.at_1, m.all.at_10, part(m.seen, m.seen.at_1), part(m.unseen, m.unseen.at_1),
           part(m.seen, m.seen.at_10), part(m.unseen, m.unseen.at_10),
           count_value(known, m.seen.queries), count_value(known, m.unseen.queries), coverage,
           static_cast<double>(m.candidates)},
          m.all.queries,
          std::nullopt,
          ""};
}

TableEntry lemma_retrieval_entry() {
  TableEntry e = make_entry("lemma_retrieval", "Lemma retrieval (UD forms, cosine to every lemma)",
                            {"acc@1", "acc@10", "acc@1_seen", "acc@1_unseen", "acc@10_seen",
                             "acc@10_unseen", "n_seen", "n_unseen", "coverage", "candidates"},
                            Needs::kEmbeddings, lemma_row);
  e.layout.plot_columns = {0, 1, 2, 3, 4, 5};
  e.layout.integer_columns = {6, 7, 9};
  e.present = [](const EvalInputs& in) { return !in.g.lemma_items.empty(); };
  e.describe = [](const EvalInputs& in) {
    const size_t used = in.g.lemma_items.size();
    const std::string sample = used < in.g.lemma_items_total
                                   ? "a seeded sample of " + std::to_string(used) + " is used"
                                   : "all are used";
    return "Queries = distinct lower-cased letter-only UD forms (not PROPN, PUNCT, NUM) whose "
           "most frequent gold lemma is another word, and which are not themselves a lemma (" +
           std::to_string(in.g.lemma_items_total) + " in this part, split by lemma; " + sample +
           "). Candidates = the " + std::to_string(in.g.lemma_candidates.size()) +
           " distinct lemmas of the part's queries. Each query ranks every candidate by cosine; "
           "acc@k = share of queries whose lemma is among the first k. seen = the form is a type "
           "of the training text. Queries or lemmas without a vector are left out (coverage = "
           "share of the queries scored; candidates = lemmas with a vector). n = queries scored.";
  };
  return e;
}

ReportRow inflection_row(const EvalInputs& in, const SystemResult& r) {
  const EmbeddingSubset s = probe_subset(*r.emb, in.g.inflection_items);
  const NeighbourResult m = same_label_retrieval(s.x, s.labels, 10);
  const double coverage =
      static_cast<double>(s.x.rows) / static_cast<double>(in.g.inflection_items.size());
  return {r.spec.name,
          {m.precision_at_k, m.chance, m.map, coverage, static_cast<double>(m.classes)},
          m.items,
          std::nullopt,
          ""};
}

TableEntry same_inflection_entry() {
  TableEntry e = make_entry(
      "same_inflection", "Same-inflection retrieval (NOUN forms, UD Case|Number)",
      {"P@10", "chance_P@10", "MAP", "coverage", "classes"}, Needs::kEmbeddings, inflection_row);
  e.layout.plot_columns = {0, 1, 2};
  e.layout.integer_columns = {4};
  e.present = [](const EvalInputs& in) { return !in.g.inflection_items.empty(); };
  e.describe = [](const EvalInputs& in) {
    return "Items = distinct NOUN forms whose Case and Number are both unambiguous, labelled "
           "Case|Number, classes with ≥ " +
           std::to_string(in.c.embeddings.probe_min_class) + " items (" +
           std::to_string(in.g.inflection_items.size()) +
           " items before coverage). Each item ranks all other items by cosine; relevant = same "
           "label. P@10 = share of the 10 nearest with the same label; chance_P@10 = Σ p_c² "
           "(p_c = class share), the P@10 of a random ranking; MAP with the query excluded. "
           "n = items with a vector.";
  };
  return e;
}

// Every table of the report, in report order.
std::vector<TableEntry> table_registry() {
  std::vector<TableEntry> tables;
  tables.push_back(coverage_entry());
  tables.push_back(morphscore_entry(
      "morphscore_ud", "MorphScore: UD stem boundaries",
      "§4.1 exactly: gold = stem edges only; a prediction with ≤ 1 piece scores P = R = 0; "
      "macro_f1 = F1(mean P, mean R); fw = weighted by token frequency in the file. Data: "
      "gold/ud_stem_boundary_tokens.tsv (all UD treebanks, stem == lemma, deduplicated). The "
      "paper's figure is on its 30,193-row Kenet file.",
      &GoldSets::ud_stem, true));
  tables.push_back(morphscore_entry(
      "morphscore_v1", "MorphScore: MorphScore v1 Turkish file",
      "Same definition on gold/morphscore_turkish.csv (verbs; stem + suffix chain).",
      &GoldSets::morphscore_v1, false));
  tables.push_back(boundary_entry(
      "boundary_mc2010", "Boundary P/R/F1: Morpho Challenge 2010",
      "Interior boundaries vs the best-matching gold alternative per word; micro = pooled "
      "counts, macro = mean over words with ≥ 1 predicted (P) / gold (R) boundary, macro F1 = "
      "F1(macro P, macro R).",
      &GoldSets::mc2010));
  tables.push_back(boundary_entry(
      "boundary_ud", "Boundary P/R/F1: UD analyzer segmentations (UNIQUE rows)",
      "gold/ud_types_segmentation.tsv, rows whose Starlang parse rooted at the UD lemma is "
      "unique.",
      &GoldSets::ud_unique));
  tables.push_back(boundary_entry(
      "boundary_penn", "Boundary P/R/F1: Penn Treebank segmentations",
      "gold/penn_tokens_segmentation.tsv grouped into word types (distinct gold segmentations "
      "of a type are alternatives).",
      &GoldSets::penn));
  tables.push_back(sigmorphon_entry());
  tables.push_back(surface_fidelity_entry());
  tables.push_back(lexicon_entry());
  tables.push_back(roundtrip_entry());
  tables.push_back(speed_entry());
  tables.push_back(retrieval_entry());
  tables.push_back(same_root_auc_entry());
  tables.push_back(probes_entry());
  tables.push_back(lemma_retrieval_entry());
  tables.push_back(same_inflection_entry());
  return tables;
}

// A 2-D PCA map of the system's largest root families, written to out_dir/figures/; nullopt
// when fewer than two of its words are drawn.
StatusOr<std::optional<ReportFigure>> pca_figure(const EvalInputs& in, const SystemResult& r,
                                                 const std::string& out_dir) {
  const EmbeddingOptions& o = in.c.embeddings;
  const EmbeddingSubset s = subset(*r.emb, in.g.family_words, in.g.family_labels);
  std::map<int, size_t> size_of;
  for (int l : s.labels) ++size_of[l];
  std::vector<std::pair<size_t, int>> by_size;
  for (const auto& [l, n] : size_of) by_size.emplace_back(n, l);
  std::sort(by_size.begin(), by_size.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (by_size.size() > o.pca_families) by_size.resize(o.pca_families);
  std::map<int, size_t> group_of;
  std::vector<std::string> group_names;
  for (const auto& [n, l] : by_size) {
    group_of[l] = group_names.size();
    group_names.push_back(in.g.family_names[static_cast<size_t>(l)] + " (" + std::to_string(n) +
                          ")");
  }
  Matrix sel;
  sel.cols = s.x.cols;
  std::vector<size_t> groups;
  std::vector<size_t> taken(group_names.size(), 0);
  for (size_t i = 0; i < s.x.rows; ++i) {
    auto it = group_of.find(s.labels[i]);
    if (it == group_of.end() || taken[it->second] >= o.pca_max_forms) continue;
    ++taken[it->second];
    sel.data.insert(sel.data.end(), s.x.row(i), s.x.row(i) + s.x.cols);
    groups.push_back(it->second);
  }
  sel.rows = groups.size();
  if (sel.rows < 2) return std::optional<ReportFigure>();
  const Matrix p = pca_2d(l2_normalized(sel), o.seed);
  std::vector<ScatterPoint> points;
  for (size_t i = 0; i < p.rows; ++i) points.push_back({p.row(i)[0], p.row(i)[1], groups[i]});
  const std::string file = "figures/pca_" + r.spec.name + ".png";
  MORPHEUS_RETURN_IF_ERROR(make_dirs(path_join(out_dir, "figures")));
  MORPHEUS_RETURN_IF_ERROR(write_png(
      path_join(out_dir, file),
      scatter_chart("PCA of " + r.spec.name + " embeddings by root family", points, group_names)));
  return std::optional<ReportFigure>(
      ReportFigure{file, "2-D PCA of " + r.spec.name + " embeddings (L2-normalised) of the " +
                             std::to_string(group_names.size()) + " largest root families (≤ " +
                             std::to_string(o.pca_max_forms) + " forms each), " +
                             std::to_string(sel.rows) + " words."});
}
}  // namespace

std::vector<ReportTable> build_tables(const EvalInputs& in,
                                      const std::vector<SystemResult>& systems) {
  std::vector<ReportTable> tables;
  for (const TableEntry& entry : table_registry()) {
    if (!entry.present || entry.present(in)) tables.push_back(build_table(entry, in, systems));
  }
  return tables;
}

StatusOr<std::vector<ReportFigure>> pca_figures(const EvalInputs& in,
                                                const std::vector<SystemResult>& systems,
                                                const std::string& out_dir) {
  std::vector<ReportFigure> figures;
  if (!has_families(in)) return figures;
  for (const SystemResult& r : systems) {
    if (!r.emb) continue;
    MORPHEUS_ASSIGN_OR_RETURN(std::optional<ReportFigure> figure, pca_figure(in, r, out_dir));
    if (figure) figures.push_back(std::move(*figure));
  }
  return figures;
}

}  // namespace morpheus::eval
