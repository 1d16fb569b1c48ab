// SPDX-License-Identifier: MIT
// The evaluation pipeline: gold sets, system runs (subprocesses), the table registry.
#include "eval/eval_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/logging.h"
#include "core/plot.h"
#include "core/subprocess.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "eval/embedding_metrics.h"
#include "eval/gold_data.h"
#include "eval/gold_policy.h"
#include "eval/morph_metrics.h"
#include "eval/published_figures.h"
#include "eval/report.h"
#include "tokenizer/pretokenizer.h"

namespace morpheus::eval {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Subprocesses

struct CommandRun {
  bool ok = false;
  int exit_code = -1;
  double seconds = 0;
};

// Runs `cmd` with /bin/sh; stderr (and stdout unless captured) is appended to `log`.
CommandRun run_command(const std::string& cmd, const std::string& stdout_path,
                       const std::string& log) {
  if (std::FILE* f = std::fopen(log.c_str(), "a")) {
    std::fprintf(f, "$ %s\n", cmd.c_str());
    std::fclose(f);
  }
  SpawnOptions options;
  options.stdout_path = stdout_path.empty() ? log : stdout_path;
  options.append_stdout = stdout_path.empty();
  options.stderr_path = log;
  const auto t0 = Clock::now();
  const StatusOr<ExitStatus> done = run_shell(cmd, options);
  CommandRun r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (done.ok() && done->exited) r.exit_code = done->code;
  r.ok = r.exit_code == 0;
  return r;
}

// Expands a template and runs it; `output` is captured from stdout when the template lacks it.
StatusOr<CommandRun> run_template(const std::string& tmpl, std::map<std::string, std::string> vars,
                                  const std::string& log) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string cmd, expand_command(tmpl, vars));
  const bool captures = tmpl.find("{output}") == std::string::npos &&
                        tmpl.find("{output_npy}") == std::string::npos && vars.count("output");
  return run_command(cmd, captures ? vars["output"] : "", log);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// ---------------------------------------------------------------------------------------------
// Gold sets

struct GoldSets {
  // Scoring sets: case-folded (gold_policy.h), the configured part only.
  std::vector<GoldSegmentation> mc2010, ud_unique, penn;
  std::vector<MorphScoreItem> ud_stem, morphscore_v1;
  std::vector<SigmorphonItem> sigmorphon;
  std::vector<CuratedWord> curated;
  std::vector<std::string> roundtrip_words;  // UD stem-boundary forms as written
  // Seen = a type of the training text (or an MC2010 tune word); empty without training text.
  std::optional<SeenWords> seen;
  std::string training_checksum;
  std::optional<TurkishLexicon> lexicon;
  std::vector<std::string> sentences;
  std::unordered_map<std::string, size_t> letter_words;  // letter spans of the sentences
  size_t text_chars = 0, text_words = 0;
  // Embedding sets.
  std::vector<std::string> family_words;
  std::vector<int> family_labels;
  std::vector<std::string> family_names;
  std::vector<ProbeItem> number_items, case_items;
  size_t families_total = 0, family_words_total = 0;
};

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

StatusOr<GoldSets> load_gold(const EvalConfig& c) {
  GoldSets g;
  const GoldPaths& p = c.gold;
  if (!c.training_text.empty()) {
    g.seen.emplace();
    MORPHEUS_RETURN_IF_ERROR(g.seen->add_text_file(c.training_text));
    MORPHEUS_ASSIGN_OR_RETURN(g.training_checksum, file_checksum(c.training_text));
  }
  MORPHEUS_RETURN_IF_ERROR(load_segmentation_gold(c, &g));
  std::vector<PennToken> penn;
  if (!p.penn.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(penn, load_penn(p.penn));
    g.penn = fold_case(penn_types(penn));
    MORPHEUS_RETURN_IF_ERROR(keep_part("penn", c.part(), &g.penn, kWordOf));
  }
  if (!p.hybrid_lexicon.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(TurkishLexicon lex, load_hybrid_lexicon(p.hybrid_lexicon));
    g.lexicon = std::move(lex);
  }
  if (!p.sentences.empty()) {
    LineReader reader;
    MORPHEUS_RETURN_IF_ERROR(reader.open(p.sentences));
    std::string line;
    while (reader.next(&line)) {
      const size_t len = utf8::length(line);
      if (c.speed.max_chars > 0 && g.text_chars + len > c.speed.max_chars && !g.sentences.empty())
        break;
      g.text_chars += len + 1;
      g.sentences.push_back(line);
    }
    MORPHEUS_RETURN_IF_ERROR(reader.status());
    std::vector<tokenizer::Span> spans;
    for (const std::string& s : g.sentences) {
      spans.clear();
      tokenizer::pretokenize_into(s, spans);
      for (const tokenizer::Span& sp : spans) {
        if (sp.kind == tokenizer::SpanKind::kLetter) ++g.letter_words[std::string(sp.text(s))];
        if (sp.kind != tokenizer::SpanKind::kSpace) ++g.text_words;
      }
    }
  }
  if (!p.ud_dir.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<UdToken> ud, load_conllu_dir(p.ud_dir));
    const RootFamilies families = build_root_families(ud, penn, c.embeddings.min_family_forms);
    g.families_total = families.size();
    std::vector<std::string> names;
    for (const auto& [lemma, forms] : families) {
      names.push_back(lemma);
      g.family_words_total += forms.size();
    }
    std::mt19937_64 rng(c.embeddings.seed);
    std::shuffle(names.begin(), names.end(), rng);
    MORPHEUS_ASSIGN_OR_RETURN(const double family_fraction, tune_fraction("families"));
    for (const std::string& lemma : names) {
      if (!in_part(lemma, family_fraction, c.part())) continue;
      const auto& forms = families.at(lemma);
      if (c.embeddings.max_words > 0 &&
          g.family_words.size() + forms.size() > c.embeddings.max_words)
        continue;
      const int label = static_cast<int>(g.family_names.size());
      g.family_names.push_back(lemma);
      for (const std::string& f : forms) {
        g.family_words.push_back(f);
        g.family_labels.push_back(label);
      }
    }
    g.number_items = build_probe_items(ud, "Number", c.embeddings.probe_min_class);
    g.case_items = build_probe_items(ud, "Case", c.embeddings.probe_min_class);
    MORPHEUS_RETURN_IF_ERROR(keep_part("probes", c.part(), &g.number_items, kWordOf));
    MORPHEUS_RETURN_IF_ERROR(keep_part("probes", c.part(), &g.case_items, kWordOf));
    g.number_items = seeded_sample(g.number_items, c.embeddings.probe_max_items, c.embeddings.seed);
    g.case_items = seeded_sample(g.case_items, c.embeddings.probe_max_items, c.embeddings.seed + 1);
  }
  return g;
}

// Every word some segmentation metric looks up.
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
  return {words.begin(), words.end()};
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// ---------------------------------------------------------------------------------------------
// System outputs

struct SystemResult {
  SystemSpec spec;
  std::unordered_map<std::string, Pieces> seg;
  bool has_seg = false;
  std::string seg_note;
  size_t seg_lines = 0, non_spelling = 0;
  std::optional<double> segment_seconds;
  // Speed (seconds) and round trips.
  std::optional<double> enc_cold, enc_warm, dec_cold, dec_warm;
  std::optional<double> rt_sentences, rt_words;
  size_t rt_sentence_n = 0, rt_word_n = 0;
  std::string codec_note;
  std::optional<Embeddings> emb;
  std::string emb_note;
};

// Lenient reader of "word<TAB>p1 p2" lines: pieces that do not spell the word are kept (and
// counted); a line without a tab is an error naming the file and line.
Status read_segmentations(const std::string& path, SystemResult* r) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0) {
      return data_loss(path + ": line " + std::to_string(reader.line_number()) +
                           ": expected word<TAB>piece piece…",
                       "segment commands must print one \"word<TAB>pieces\" line per word");
    }
    const std::string word = line.substr(0, tab);
    Pieces pieces;
    std::string joined;
    for (std::string& p : split_fields(line.substr(tab + 1), ' ')) {
      if (p.empty()) continue;
      joined += p;
      pieces.push_back(std::move(p));
    }
    ++r->seg_lines;
    if (joined != word) ++r->non_spelling;
    r->seg.emplace(word, std::move(pieces));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  r->has_seg = true;
  return ok_status();
}

StatusOr<std::vector<std::string>> read_lines(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, false));
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(&line)) lines.push_back(line);
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return lines;
}

// Share of lines of `decoded` equal to `original` (missing lines count as failures).
double match_rate(const std::vector<std::string>& original,
                  const std::vector<std::string>& decoded) {
  size_t ok = 0;
  for (size_t i = 0; i < original.size(); ++i)
    ok += i < decoded.size() && decoded[i] == original[i];
  return original.empty() ? 0.0 : static_cast<double>(ok) / static_cast<double>(original.size());
}

std::string note_for(const CommandRun& run, const std::string& what, const std::string& log) {
  return what + " failed (exit " + std::to_string(run.exit_code) + "), see " + log;
}

// Encode then decode `input` (cold once, then warm_runs times); sets round-trip rate.
void run_codec(const EvalConfig& c, const std::string& work, const std::string& tag,
               const std::string& input, const std::vector<std::string>& lines, bool timed,
               SystemResult* r) {
  const std::string log = path_join(work, r->spec.name + ".log");
  const std::string ids = path_join(work, tag + ".ids");
  const std::string back = path_join(work, tag + ".decoded");
  std::vector<double> enc, dec;
  const size_t runs = timed ? 1 + c.speed.warm_runs : 1;
  for (size_t i = 0; i < runs; ++i) {
    auto e = run_template(r->spec.encode, {{"input", input}, {"output", ids}, {"work", work}}, log);
    if (!e.ok() || !e->ok) {
      r->codec_note = e.ok() ? note_for(*e, "encode", log) : e.status().message();
      return;
    }
    enc.push_back(e->seconds);
    auto d = run_template(r->spec.decode, {{"input", ids}, {"output", back}, {"work", work}}, log);
    if (!d.ok() || !d->ok) {
      r->codec_note = d.ok() ? note_for(*d, "decode", log) : d.status().message();
      return;
    }
    dec.push_back(d->seconds);
  }
  auto decoded = read_lines(back);
  if (!decoded.ok()) {
    r->codec_note = decoded.status().message();
    return;
  }
  const double rate = match_rate(lines, *decoded);
  if (tag == "sentences") {
    r->rt_sentences = rate;
    r->rt_sentence_n = lines.size();
  } else {
    r->rt_words = rate;
    r->rt_word_n = lines.size();
  }
  if (timed) {
    r->enc_cold = enc.front();
    r->dec_cold = dec.front();
    if (enc.size() > 1) {
      r->enc_warm = median({enc.begin() + 1, enc.end()});
      r->dec_warm = median({dec.begin() + 1, dec.end()});
    }
  }
}

SystemResult run_system(const EvalConfig& c, const SystemSpec& spec, const std::string& work_root,
                        const std::vector<std::string>& words, const std::string& words_file,
                        const std::string& emb_words_file, const std::string& sentences_file,
                        const GoldSets& g) {
  SystemResult r;
  r.spec = spec;
  const std::string work = path_join(work_root, spec.name);
  Status made = make_dirs(work);
  if (!made.ok()) {
    r.seg_note = r.codec_note = r.emb_note = made.message();
    return r;
  }
  const std::string log = path_join(work, spec.name + ".log");
  MORPHEUS_LOG(kInfo, "eval: system ", spec.name);
  if (!spec.setup.empty() && (spec.setup_creates.empty() || !file_exists(spec.setup_creates))) {
    auto s = run_template(spec.setup, {{"work", work}}, log);
    if (!s.ok() || !s->ok) {
      const std::string note = s.ok() ? note_for(*s, "setup", log) : s.status().message();
      r.seg_note = r.codec_note = r.emb_note = note;
      MORPHEUS_LOG(kWarning, "eval: ", spec.name, ": ", note);
      return r;
    }
  }
  // Segmentations.
  if (!spec.builtin.empty()) {
    for (const std::string& w : words) {
      Pieces pieces;
      if (spec.builtin == "whole-word") {
        pieces.push_back(w);
      } else {
        for (size_t pos = 0; pos < w.size();) {
          const utf8::Decoded d = utf8::decode_one(w, pos);
          pieces.push_back(w.substr(pos, d.length));
          pos += d.length;
        }
      }
      r.seg.emplace(w, std::move(pieces));
      ++r.seg_lines;
    }
    r.has_seg = true;
  }
  std::string seg_file = spec.segmentations;
  if (!spec.segment.empty()) {
    seg_file = path_join(work, "segmentations.tsv");
    auto s = run_template(spec.segment,
                          {{"input", words_file}, {"output", seg_file}, {"work", work}}, log);
    if (!s.ok() || !s->ok) {
      r.seg_note = s.ok() ? note_for(*s, "segment", log) : s.status().message();
      seg_file.clear();
    } else {
      r.segment_seconds = s->seconds;
    }
  }
  if (!seg_file.empty()) {
    Status st = read_segmentations(seg_file, &r);
    if (!st.ok()) r.seg_note = st.message();
  } else if (r.seg_note.empty() && !r.has_seg) {
    r.seg_note = "no segment command or segmentations file";
  }
  // Codec: round trip on words, then timed round trip on sentences.
  if (!spec.encode.empty() && !spec.decode.empty()) {
    const std::vector<std::string>& rt_words = g.roundtrip_words;
    if (!rt_words.empty()) {
      const std::string wf = path_join(work, "roundtrip_words.txt");
      Status st = write_file_atomic(wf, join_lines(rt_words));
      if (st.ok()) run_codec(c, work, "words", wf, rt_words, false, &r);
    }
    if (!g.sentences.empty() && r.codec_note.empty()) {
      run_codec(c, work, "sentences", sentences_file, g.sentences, true, &r);
    }
  } else {
    r.codec_note = "no encode/decode commands";
  }
  // Embeddings.
  std::string emb_file = spec.embeddings;
  if (!spec.embed.empty()) {
    const std::string vec = path_join(work, "embeddings.vec");
    const std::string npy = path_join(work, "embeddings.npy");
    auto s = run_template(
        spec.embed,
        {{"input", emb_words_file}, {"output", vec}, {"output_npy", npy}, {"work", work}}, log);
    if (!s.ok() || !s->ok) {
      r.emb_note = s.ok() ? note_for(*s, "embed", log) : s.status().message();
    } else {
      emb_file = file_exists(npy) ? npy : vec;
    }
  }
  if (!emb_file.empty() && r.emb_note.empty()) {
    auto e = load_embeddings(emb_file);
    if (e.ok()) {
      r.emb = std::move(*e);
    } else {
      r.emb_note = e.status().message();
    }
  } else if (r.emb_note.empty()) {
    r.emb_note = "no embeddings";
  }
  for (const std::string* note : {&r.seg_note, &r.codec_note, &r.emb_note}) {
    if (note->find("failed") != std::string::npos || note->find(": line ") != std::string::npos) {
      MORPHEUS_LOG(kWarning, "eval: ", spec.name, ": ", *note);
    }
  }
  return r;
}
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

std::string count_note(size_t missing) {
  return missing == 0 ? "" : std::to_string(missing) + " words without output";
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

// Share of the distinct letter runs of the evaluation text that are not training types.
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

// ---------------------------------------------------------------------------------------------
// Report tables: a registry of entries (id, title, columns, row function); each table is one
// short function below, and build_table runs an entry over every system.

// Everything a table is computed from.
struct EvalInputs {
  const EvalConfig& c;
  const GoldSets& g;
  const std::vector<std::string>& words;  // the segmentation word list
};

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
        return {r.spec.name,
                {m.macro_f1, seen_f1, unseen_f1, count_value(parts.known, parts.seen.size()),
                 count_value(parts.known, parts.unseen.size()), m.mean_recall, m.mean_precision,
                 m.micro_f1, m.single_token_rate, m.length_mismatch_rate},
                m.words,
                std::nullopt,
                count_note(m.missing)};
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
        return {r.spec.name,
                {s.precision, s.recall, s.f1, seen_f1, unseen_f1,
                 count_value(parts.known, parts.seen.size()),
                 count_value(parts.known, parts.unseen.size()), s.macro_f1},
                s.words,
                std::nullopt,
                count_note(missing)};
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
        return {r.spec.name,
                {s.lemma_prefix, s.verb_lemma_prefix, s.noun_lemma_prefix, s.root_in_segments,
                 s.first_segment, s.exact_suffix_count, s.mean_diff, s.mean_abs_diff},
                s.words,
                std::nullopt,
                count_note(s.missing)};
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
  TableEntry e = make_entry("surface_fidelity", "Surface fidelity on the 50 curated words",
                            {"root_pct", "count_pct", "len_pct", "exact_pct"}, Needs::kSegmentation,
                            [](const EvalInputs& in, const SystemResult& r) -> ReportRow {
                              const SurfaceFidelityResult s =
                                  surface_fidelity(in.g.curated, lookup_of(r));
                              return {r.spec.name,
                                      {s.root_pct, s.count_pct, s.len_pct, s.exact_pct},
                                      s.words,
                                      std::nullopt,
                                      count_note(s.missing)};
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
        return {r.spec.name,
                {l.fertility, l.chars_per_token, l.tr_pct, l.pure_pct, l.tr_pct_fw, l.pure_pct_fw,
                 static_cast<double>(l.distinct_tokens)},
                l.word_occurrences,
                std::nullopt,
                count_note(l.missing)};
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

// The bullet points under the report title.
std::vector<std::string> report_notes(const EvalConfig& c, const GoldSets& g,
                                      const std::vector<SystemResult>& systems) {
  std::vector<std::string> notes = {
      "Every system is run through its command line on the same word lists and text; a row "
      "marked n/a has no output for that metric (the note says why).",
      "Case policy: every boundary and MorphScore metric scores the Turkish lower-cased word "
      "(İ→i, I→ı; offsets unchanged), for every system alike; round trip, fertility and speed "
      "keep the text as written.",
      std::string("Gold split: every gold set is split by one rule (eval/gold_policy.h: FNV-1a "
                  "64 of the lower-cased word, or of the lemma for root families, mod 10,000; "
                  "tune share 0.5 for MC2010, 0.1 for every other set). These tables show the ") +
          gold_part_name(c.part()) +
          " part; whatever chose anything (weights, thresholds, configs, checkpoints) read the "
          "tune part only.",
      "`n` is the number of items a row was computed on (words, sentences, queries, pairs).",
      "Published figures (morpheus_pipeline.md §5) come from the reference's own data and "
      "definitions (other files, MAP counting the query, warm-cache speed): a reference point, "
      "not a like-for-like comparison.",
  };
  if (g.seen) {
    notes.push_back("Training text: `" + c.training_text + "` (" + g.training_checksum + ", " +
                    std::to_string(g.seen->size()) +
                    " seen word types incl. the MC2010 tune words); every trained system "
                    "learned from this text. seen = a type of it, unseen = the rest.");
  } else {
    notes.push_back("No training text configured: seen/unseen columns are n/a.");
  }
  for (const std::string& line : c.tuning) notes.push_back("Tuned: " + line);
  std::string systems_note = "Systems:";
  for (const SystemResult& r : systems) {
    systems_note += " " + r.spec.name +
                    (r.spec.published.empty() ? "" : " (§5: " + r.spec.published + ")") + ";";
  }
  notes.push_back(systems_note);
  return notes;
}

// Published figures, n/a rows for empty item sets, † on supervised systems (and their notes).
void finish_rows(const std::vector<SystemResult>& systems, const PublishedFigures& figures,
                 Report* report) {
  std::map<std::string, std::string> published_of, supervision_of;
  for (const SystemResult& r : systems) {
    published_of[r.spec.name] = r.spec.published;
    if (!r.spec.supervision.empty()) {
      supervision_of[r.spec.name] = r.spec.supervision;
      report->notes.push_back("† " + r.spec.name + " was trained with annotated words: " +
                              r.spec.supervision + " (never UD or Penn gold).");
    }
  }
  for (ReportTable& t : report->tables) {
    for (ReportRow& row : t.rows) {
      if (!t.published_label.empty()) row.published = figures.value(t.id, published_of[row.system]);
      if (row.n && *row.n == 0) {  // nothing to average over: n/a, not 0
        row.values.assign(t.columns.size(), std::nullopt);
        if (row.note.empty()) row.note = "no items";
      }
      if (supervision_of.count(row.system)) row.system += " †";
    }
  }
}

// Loads the gold sets, writes the word lists into `work` and runs every system.
struct SystemRuns {
  GoldSets g;
  std::vector<std::string> words;
  std::vector<SystemResult> systems;
};

StatusOr<SystemRuns> run_systems(const EvalConfig& c, const std::string& work) {
  SystemRuns runs;
  MORPHEUS_LOG(kInfo, "eval: loading gold data");
  MORPHEUS_ASSIGN_OR_RETURN(runs.g, load_gold(c));
  const GoldSets& g = runs.g;
  runs.words = segmentation_words(g);
  const std::vector<std::string> emb_words = embedding_words(g);
  const std::string words_file = path_join(work, "words.txt");
  const std::string emb_words_file = path_join(work, "embedding_words.txt");
  const std::string sentences_file = path_join(work, "sentences.txt");
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(words_file, join_lines(runs.words)));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(emb_words_file, join_lines(emb_words)));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(sentences_file, join_lines(g.sentences)));
  MORPHEUS_LOG(kInfo, "eval: ", runs.words.size(), " words to segment, ", emb_words.size(),
               " words to embed, ", g.sentences.size(), " sentences");
  for (const SystemSpec& spec : c.systems) {
    runs.systems.push_back(
        run_system(c, spec, work, runs.words, words_file, emb_words_file, sentences_file, g));
  }
  return runs;
}

}  // namespace

StatusOr<std::string> expand_command(const std::string& tmpl,
                                     const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const size_t open = tmpl.find('{', pos);
    if (open == std::string::npos) {
      out += tmpl.substr(pos);
      break;
    }
    const size_t close = tmpl.find('}', open);
    out += tmpl.substr(pos, open - pos);
    if (close == std::string::npos) return invalid_argument("unclosed '{' in command: " + tmpl);
    const std::string key = tmpl.substr(open + 1, close - open - 1);
    auto it = vars.find(key);
    if (it == vars.end()) {
      std::string known;
      for (const auto& [k, v] : vars) known += (known.empty() ? "{" : ", {") + k + "}";
      return invalid_argument("unknown placeholder {" + key + "} in command: " + tmpl,
                              "placeholders here: " + known);
    }
    out += shell_quote(it->second);
    pos = close + 1;
  }
  return out;
}

Status run_eval(const json& config, const std::string& out_dir) {
  MORPHEUS_ASSIGN_OR_RETURN(const EvalConfig c, eval_config_from_json(config));
  PublishedFigures figures;
  if (!c.published_figures.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(figures, PublishedFigures::load(c.published_figures));
  }
  MORPHEUS_RETURN_IF_ERROR(make_dirs(out_dir));
  const std::string work = path_join(out_dir, "work");
  MORPHEUS_RETURN_IF_ERROR(make_dirs(work));
  MORPHEUS_ASSIGN_OR_RETURN(const SystemRuns runs, run_systems(c, work));
  const EvalInputs in{c, runs.g, runs.words};

  Report report;
  report.title = "Morpheus evaluation";
  report.notes = report_notes(c, runs.g, runs.systems);
  for (const TableEntry& entry : table_registry()) {
    if (!entry.present || entry.present(in)) {
      report.tables.push_back(build_table(entry, in, runs.systems));
    }
  }
  if (has_families(in)) {
    for (const SystemResult& r : runs.systems) {
      if (!r.emb) continue;
      MORPHEUS_ASSIGN_OR_RETURN(std::optional<ReportFigure> figure, pca_figure(in, r, out_dir));
      if (figure) report.figures.push_back(std::move(*figure));
    }
  }
  finish_rows(runs.systems, figures, &report);
  MORPHEUS_RETURN_IF_ERROR(write_report(report, out_dir));
  MORPHEUS_LOG(kInfo, "eval: wrote ", path_join(out_dir, "report.md"));
  return ok_status();
}

}  // namespace morpheus::eval
