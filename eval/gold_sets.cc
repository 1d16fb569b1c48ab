// SPDX-License-Identifier: MIT
// The gold sets of one evaluation (eval/gold_sets.h).
#include "eval/gold_sets.h"

#include <algorithm>
#include <random>
#include <set>
#include <unordered_set>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/utf8.h"
#include "tokenizer/pretokenizer.h"

namespace morpheus::eval {
namespace {

template <typename T>
std::vector<T> seeded_sample(std::vector<T> items, size_t max, uint64_t seed) {
  if (max == 0 || items.size() <= max) return items;
  std::mt19937_64 rng(seed);
  std::shuffle(items.begin(), items.end(), rng);
  items.resize(max);
  return items;
}

// Keeps the items of `items` in the configured part of gold set `set` (gold_policy.h).
template <typename T, typename KeyFn>
Status keep_part(const char* set, GoldPart part, std::vector<T>* items, KeyFn key) {
  MORPHEUS_ASSIGN_OR_RETURN(const double fraction, tune_fraction(set));
  *items = select_part(*items, fraction, part, key);
  return ok_status();
}

const auto kWordOf = [](const auto& item) -> const std::string& { return item.word; };

// The segmentation gold sets, case-folded and restricted to the configured part.
Status load_segmentation_gold(const EvalConfig& c, GoldSets* g) {
  const GoldPaths& p = c.gold;
  const GoldPart part = c.part();
  if (!p.mc2010.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<GoldSegmentation> mc, load_mc2010(p.mc2010));
    g->mc2010 = fold_case(mc);
    if (g->seen) {  // the tune words are the annotations training may use: seen
      MORPHEUS_ASSIGN_OR_RETURN(const double fraction, tune_fraction("mc2010"));
      for (const auto& x : g->mc2010) {
        if (is_tune(x.word, fraction)) g->seen->add_word(x.word);
      }
    }
    MORPHEUS_RETURN_IF_ERROR(keep_part("mc2010", part, &g->mc2010, kWordOf));
  }
  if (!p.ud_stem_boundary.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<MorphScoreItem> items,
                              load_ud_stem_boundary(p.ud_stem_boundary));
    for (const auto& x : items) g->roundtrip_words.push_back(x.word);
    g->ud_stem = fold_case(items);
    MORPHEUS_RETURN_IF_ERROR(keep_part("ud_stem_boundary", part, &g->ud_stem, kWordOf));
  }
  if (!p.morphscore_v1.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<MorphScoreItem> items,
                              load_morphscore_v1(p.morphscore_v1));
    g->morphscore_v1 = fold_case(items);
    MORPHEUS_RETURN_IF_ERROR(keep_part("morphscore_v1", part, &g->morphscore_v1, kWordOf));
  }
  if (!p.ud_types.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<UdTypeSegmentation> types, load_ud_types(p.ud_types));
    for (const UdTypeSegmentation& t : types) {
      if (t.unique) g->ud_unique.push_back({t.form, t.alternatives});
    }
    g->ud_unique = fold_case(g->ud_unique);
    MORPHEUS_RETURN_IF_ERROR(keep_part("ud_types", part, &g->ud_unique, kWordOf));
  }
  if (!p.sigmorphon.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<SigmorphonEntry> entries, load_sigmorphon(p.sigmorphon));
    g->sigmorphon = sigmorphon_items(entries);
    for (SigmorphonItem& x : g->sigmorphon) x.form = scoring_form(x.form);
    MORPHEUS_RETURN_IF_ERROR(keep_part("sigmorphon", part, &g->sigmorphon,
                                       [](const SigmorphonItem& x) { return x.form; }));
  }
  g->curated = curated_surface_words();
  return keep_part("curated", part, &g->curated, [](const CuratedWord& x) { return x.word(); });
}

// The evaluation text (at most c.speed.max_chars characters) and its letter runs.
Status load_text(const EvalConfig& c, GoldSets* g) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(c.gold.sentences));
  std::string line;
  while (reader.next(&line)) {
    const size_t len = utf8::length(line);
    if (c.speed.max_chars > 0 && g->text_chars + len > c.speed.max_chars && !g->sentences.empty())
      break;
    g->text_chars += len + 1;
    g->sentences.push_back(line);
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  std::vector<tokenizer::Span> spans;
  for (const std::string& s : g->sentences) {
    spans.clear();
    tokenizer::pretokenize_into(s, spans);
    for (const tokenizer::Span& sp : spans) {
      if (sp.kind == tokenizer::SpanKind::kLetter) ++g->letter_words[std::string(sp.text(s))];
      if (sp.kind != tokenizer::SpanKind::kSpace) ++g->text_words;
    }
  }
  return ok_status();
}

// The lemma queries of the configured part (split by lemma), a seeded sample of them, and the
// candidates: the distinct lemmas of all the part's queries.
Status load_lemma_items(const EvalConfig& c, const std::vector<UdToken>& ud, GoldSets* g) {
  g->lemma_items = build_lemma_items(ud);
  MORPHEUS_RETURN_IF_ERROR(
      keep_part("lemmas", c.part(), &g->lemma_items, [](const LemmaItem& x) { return x.lemma; }));
  g->lemma_items_total = g->lemma_items.size();
  std::set<std::string> lemmas;
  for (const LemmaItem& x : g->lemma_items) lemmas.insert(x.lemma);
  g->lemma_candidates.assign(lemmas.begin(), lemmas.end());
  const EmbeddingOptions& o = c.embeddings;
  g->lemma_items = seeded_sample(g->lemma_items, o.lemma_max_queries, o.seed + 3);
  return ok_status();
}

// The number, case and Case|Number probe items of the configured part, seeded samples of at most
// c.embeddings.probe_max_items each.
Status load_probe_items(const EvalConfig& c, const std::vector<UdToken>& ud, GoldSets* g) {
  const EmbeddingOptions& o = c.embeddings;
  g->number_items = build_probe_items(ud, "Number", o.probe_min_class);
  g->case_items = build_probe_items(ud, "Case", o.probe_min_class);
  g->inflection_items = build_inflection_items(ud, o.probe_min_class);
  for (std::vector<ProbeItem>* items : {&g->number_items, &g->case_items, &g->inflection_items}) {
    MORPHEUS_RETURN_IF_ERROR(keep_part("probes", c.part(), items, kWordOf));
  }
  g->number_items = seeded_sample(g->number_items, o.probe_max_items, o.seed);
  g->case_items = seeded_sample(g->case_items, o.probe_max_items, o.seed + 1);
  g->inflection_items = seeded_sample(g->inflection_items, o.probe_max_items, o.seed + 2);
  return ok_status();
}

// The root families of the configured part (a seeded sample of whole families, at most
// c.embeddings.max_words forms), the lemma items and the probe items.
Status load_embedding_sets(const EvalConfig& c, const std::vector<PennToken>& penn, GoldSets* g) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<UdToken> ud, load_conllu_dir(c.gold.ud_dir));
  const RootFamilies families = build_root_families(ud, penn, c.embeddings.min_family_forms);
  g->families_total = families.size();
  std::vector<std::string> names;
  for (const auto& [lemma, forms] : families) {
    names.push_back(lemma);
    g->family_words_total += forms.size();
  }
  std::mt19937_64 rng(c.embeddings.seed);
  std::shuffle(names.begin(), names.end(), rng);
  MORPHEUS_ASSIGN_OR_RETURN(const double family_fraction, tune_fraction("families"));
  for (const std::string& lemma : names) {
    if (!in_part(lemma, family_fraction, c.part())) continue;
    const auto& forms = families.at(lemma);
    if (c.embeddings.max_words > 0 &&
        g->family_words.size() + forms.size() > c.embeddings.max_words)
      continue;
    const int label = static_cast<int>(g->family_names.size());
    g->family_names.push_back(lemma);
    for (const std::string& f : forms) {
      g->family_words.push_back(f);
      g->family_labels.push_back(label);
    }
  }
  MORPHEUS_RETURN_IF_ERROR(load_lemma_items(c, ud, g));
  return load_probe_items(c, ud, g);
}

}  // namespace

StatusOr<GoldSets> load_gold_sets(const EvalConfig& c) {
  GoldSets g;
  const GoldPaths& p = c.gold;
  if (!c.training_text.empty()) {
    g.seen.emplace();
    MORPHEUS_RETURN_IF_ERROR(g.seen->add_text_file(c.training_text));
    MORPHEUS_ASSIGN_OR_RETURN(g.training_checksum, file_checksum(c.training_text));
  }
  MORPHEUS_RETURN_IF_ERROR(load_segmentation_gold(c, &g));
  std::vector<PennToken> penn;  // also a source of root families
  if (!p.penn.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(penn, load_penn(p.penn));
    g.penn = fold_case(penn_types(penn));
    MORPHEUS_RETURN_IF_ERROR(keep_part("penn", c.part(), &g.penn, kWordOf));
  }
  if (!p.hybrid_lexicon.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(TurkishLexicon lex, load_hybrid_lexicon(p.hybrid_lexicon));
    g.lexicon = std::move(lex);
  }
  if (!p.sentences.empty()) MORPHEUS_RETURN_IF_ERROR(load_text(c, &g));
  if (!p.ud_dir.empty()) MORPHEUS_RETURN_IF_ERROR(load_embedding_sets(c, penn, &g));
  return g;
}
std::vector<std::string> segmentation_words(const GoldSets& g) {
  std::set<std::string> words;
  for (const auto& x : g.mc2010) words.insert(x.word);
  for (const auto& x : g.ud_unique) words.insert(x.word);
  for (const auto& x : g.penn) words.insert(x.word);
  for (const auto& x : g.ud_stem) words.insert(x.word);
  for (const auto& x : g.morphscore_v1) words.insert(x.word);
  for (const auto& x : g.sigmorphon) words.insert(x.form);
  for (const auto& x : g.curated) words.insert(x.word());
  for (const auto& [w, n] : g.letter_words) words.insert(w);
  words.erase("");
  std::vector<std::string> out;
  for (const std::string& w : words) {
    if (w.find_first_of(" \t\r\n") == std::string::npos) out.push_back(w);
  }
  return out;
}

std::vector<std::string> embedding_words(const GoldSets& g) {
  std::set<std::string> words(g.family_words.begin(), g.family_words.end());
  for (const auto& x : g.number_items) words.insert(x.word);
  for (const auto& x : g.case_items) words.insert(x.word);
  for (const auto& x : g.inflection_items) words.insert(x.word);
  for (const auto& x : g.lemma_items) words.insert(x.word);
  words.insert(g.lemma_candidates.begin(), g.lemma_candidates.end());
  return {words.begin(), words.end()};
}

std::optional<double> unseen_text_share(const GoldSets& g) {
  if (!g.seen) return std::nullopt;
  std::unordered_set<std::string> distinct, unseen;
  for (const auto& [w, n] : g.letter_words) {
    distinct.insert(scoring_form(w));
    if (!g.seen->seen(w)) unseen.insert(scoring_form(w));
  }
  if (distinct.empty()) return std::nullopt;
  return static_cast<double>(unseen.size()) / static_cast<double>(distinct.size());
}

}  // namespace morpheus::eval
