// SPDX-License-Identifier: MIT
#include "prepare/prepare.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <unordered_map>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/json_config.h"
#include "core/logging.h"
#include "core/progress.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "eval/boundary_metrics.h"
#include "morph/root_snap.h"
#include "prepare/cache.h"
#include "prepare/corpus.h"
#include "prepare/root_correction.h"
#include "prepare/teacher.h"
#include "prepare/vocab.h"
#include "tokenizer/char_vocab.h"

namespace morpheus::train {
namespace {

using morph::Cuts;
using morph::pieces_from_cuts;
using morph::RootLexicon;
using morph::snap_to_root;
using nlohmann::json;
using tokenizer::CharVocab;
using Clock = std::chrono::steady_clock;

constexpr int kStampVersion = 1;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

uint64_t hash_string(const std::string& s, uint64_t seed = kFnv1a64Offset) {
  return fnv1a64(s, seed);
}

StatusOr<uint64_t> hash_file(const std::string& path, uint64_t seed) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(path));
  return hash_string(text, hash_string(path, seed));
}

// Interior cuts of `cuts` as a boundary bitmask restricted to [begin, begin + len).
uint32_t boundary_bits_of(const Cuts& cuts, uint32_t begin, uint32_t len) {
  uint32_t bits = 0;
  for (uint32_t cut : cuts) {
    if (cut > begin && cut < begin + len) bits |= 1u << (cut - begin);
  }
  return bits;
}

std::vector<std::string> to_utf8_pieces(const std::u32string& word, const Cuts& cuts) {
  std::vector<std::string> out;
  for (const std::u32string& p : pieces_from_cuts(word, cuts)) out.push_back(utf8::encode(p));
  return out;
}

json scores_json(const eval::BoundaryScores& s) {
  return {{"precision", s.precision}, {"recall", s.recall},    {"f1", s.f1},
          {"words", s.words},         {"hits", s.totals.hits}, {"predicted", s.totals.predicted},
          {"gold", s.totals.gold}};
}

// The MC2010-style gold file `gold_path` rewritten as a Morfessor annotations file (lower-case
// words; "word m1 m2, m1 m2" per line).
Status write_morfessor_annotations(const std::string& gold_path, const std::string& out_path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<GoldWord> gold, read_gold_file(gold_path));
  if (gold.empty()) {
    return invalid_argument(gold_path + " holds no annotated words",
                            "give an MC2010-style file: word<TAB>m1 m2 , m1 m2");
  }
  std::string text;
  for (const GoldWord& g : gold) {
    text += utf8::encode(g.word);
    for (size_t a = 0; a < g.alternatives.size(); ++a) {
      text += a == 0 ? " " : ", ";
      for (size_t i = 0; i < g.alternatives[a].size(); ++i) {
        text += (i == 0 ? "" : " ") + utf8::encode(g.alternatives[a][i]);
      }
    }
    text += "\n";
  }
  return write_file_atomic(out_path, text);
}

MorfessorOptions morfessor_options(const PrepareConfig& cfg) {
  MorfessorOptions m;
  m.python = cfg.morfessor_python;
  m.train_script = cfg.morfessor_train;
  m.segment_script = cfg.morfessor_segment;
  m.dampening = cfg.morfessor_dampening;
  m.corpusweight = cfg.morfessor_corpusweight;
  return m;
}

// Adds to `table` the Viterbi segmentation, by the trained Morfessor model of `prep_dir`, of the
// `words` the table lacks (none when there is no model). Sets *unknown to how many it lacked.
Status add_model_segmentations(const PrepareConfig& cfg, const std::string& prep_dir,
                               const std::vector<std::u32string>& words, TeacherTable* table,
                               size_t* unknown = nullptr) {
  std::vector<std::u32string> missing;
  for (const std::u32string& w : words) {
    if (!w.empty() && table->count(w) == 0) missing.push_back(w);
  }
  if (unknown != nullptr) *unknown = missing.size();
  const std::string model_path = path_join(prep_dir, "morfessor_model.bin");
  if (missing.empty() || !file_exists(model_path)) return ok_status();
  const std::string work = temp_path_for(path_join(prep_dir, "teacher_labels"));
  MORPHEUS_RETURN_IF_ERROR(make_dirs(work));
  StatusOr<TeacherTable> extra =
      segment_with_morfessor(morfessor_options(cfg), model_path, missing, work);
  std::filesystem::remove_all(work);
  if (!extra.ok()) return extra.status();
  table->merge(*extra);
  return ok_status();
}

// The config's label rule on one word (root_snap: snap_to_root, else correct_root). Returns the
// number of cut positions it changed (removed or added); 0 when the labels are unchanged.
size_t apply_root_rule(const PrepareConfig& cfg, const RootLexicon& lexicon,
                       const std::u32string& word, Cuts* cuts) {
  if (!cfg.root_snap) return correct_root(lexicon, word, cfg.max_word_chars, cuts);
  const Cuts before = *cuts;
  if (!snap_to_root(lexicon, word, cuts)) return 0;
  size_t changed = 0;
  for (uint32_t c : before) changed += std::find(cuts->begin(), cuts->end(), c) == cuts->end();
  for (uint32_t c : *cuts) changed += std::find(before.begin(), before.end(), c) == before.end();
  return changed;
}

// Status with the stage name in front.
Status in_stage(Status s, const std::string& stage) {
  if (!s.ok()) s.prepend("prepare (" + stage + ")");
  return s;
}

}  // namespace

StatusOr<std::vector<GoldWord>> read_gold_file(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  std::vector<GoldWord> out;
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (reader.line_number() == 1 && line.rfind("word\t", 0) == 0)) continue;
    const std::string where = path + ": line " + std::to_string(reader.line_number());
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0) {
      return invalid_argument(where + ": expected word<TAB>alternatives");
    }
    GoldWord g;
    g.word = lower_code_points(std::string_view(line).substr(0, tab));
    const size_t tab2 = line.find('\t', tab + 1);
    const std::string alts =
        line.substr(tab + 1, tab2 == std::string::npos ? std::string::npos : tab2 - tab - 1);
    size_t begin = 0;
    while (begin <= alts.size()) {
      size_t end = alts.find(',', begin);
      if (end == std::string::npos) end = alts.size();
      std::vector<std::u32string> pieces;
      std::u32string joined;
      const std::string alt = alts.substr(begin, end - begin);
      size_t p = 0;
      while (p < alt.size()) {
        const size_t q = std::min(alt.find(' ', p), alt.size());
        if (q > p) {
          pieces.push_back(lower_code_points(std::string_view(alt).substr(p, q - p)));
          joined += pieces.back();
        }
        p = q + 1;
      }
      if (!pieces.empty()) {
        if (joined != g.word) {
          return invalid_argument(where + ": alternative '" + alt + "' does not spell the word");
        }
        g.alternatives.push_back(std::move(pieces));
      }
      begin = end + 1;
    }
    if (g.alternatives.empty()) return invalid_argument(where + ": no gold segmentation");
    out.push_back(std::move(g));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out;
}

namespace {

// What the vocabulary stage hands on to the cache stage.
struct PrepareVocabs {
  CharVocab chars;
  uint32_t word_vocab_size = 0;
  uint32_t root_vocab_size = 0;
  std::vector<uint32_t> word_ids;  // per word type (0 = <unk>)
  std::vector<uint32_t> root_ids;  // per word type (0 = <unk>)
};

// The stamps of an earlier run at `stamps_path`, or a fresh object; "version" set either way.
json load_stamps(const std::string& stamps_path) {
  json stamps = json::object();
  if (file_exists(stamps_path)) {
    StatusOr<json> loaded = load_json_file(stamps_path);
    if (loaded.ok() && loaded->is_object() && loaded->value("version", 0) == kStampVersion) {
      stamps = *loaded;
    }
  }
  stamps["version"] = kStampVersion;
  return stamps;
}

// Hash of everything the outputs depend on: the config, the input paths and the input files.
StatusOr<uint64_t> hash_inputs(const PrepareOptions& options, const json& config_json) {
  const PrepareConfig& cfg = options.config;
  if (options.corpus_files.empty()) return invalid_argument("no corpus files given");
  uint64_t all_hash = hash_string(config_json.dump() + "\n" + options.teacher_file + "\n" +
                                  options.gold_file + "\n" + options.annotations_file + "\n" +
                                  cfg.root_lexicon + "\n" + cfg.suffix_lexicon);
  for (const std::string& path : options.corpus_files) {
    MORPHEUS_RETURN_IF_ERROR(in_stage(check_readable_file(path), "corpus"));
    MORPHEUS_ASSIGN_OR_RETURN(all_hash, hash_file(path, all_hash));
  }
  for (const std::string& path :
       {options.teacher_file, options.gold_file, options.annotations_file}) {
    if (path.empty()) continue;
    MORPHEUS_ASSIGN_OR_RETURN(all_hash, hash_file(path, all_hash));
  }
  if (cfg.root_correction) {
    MORPHEUS_ASSIGN_OR_RETURN(all_hash, hash_file(cfg.root_lexicon, all_hash));
    MORPHEUS_ASSIGN_OR_RETURN(all_hash, hash_file(cfg.suffix_lexicon, all_hash));
  }
  return all_hash;
}

// The previous prepare.json of `out_dir` when its stamps match `all_hash` and every output
// exists; null otherwise.
json reusable_summary(const std::string& out_dir, const json& stamps, uint64_t all_hash) {
  const std::string summary_path = path_join(out_dir, "prepare.json");
  if (stamps.value("all", "") != hex16(all_hash) || !file_exists(summary_path)) return nullptr;
  bool complete = true;
  for (const char* f : {"corpus.txt", "teacher.tsv", "char_vocab.json", "words.tsv", "roots.tsv",
                        "train.cache", "dev.cache"}) {
    complete = complete && file_exists(path_join(out_dir, f));
  }
  StatusOr<json> previous = load_json_file(summary_path);
  if (!complete || !previous.ok()) return nullptr;
  return *previous;
}

// Stage 1: corpus → words (always run: it is fast and every later stage needs it). Writes
// corpus.txt and returns the "corpus" summary.
StatusOr<json> read_corpus(const PrepareOptions& options, Corpus* corpus) {
  {
    ProgressBar bar("corpus", options.corpus_files.size(), "files");
    for (const std::string& path : options.corpus_files) {
      MORPHEUS_ASSIGN_OR_RETURN(CorpusFormat format, detect_corpus_format(path));
      MORPHEUS_RETURN_IF_ERROR(in_stage(corpus->add_file(path, format), "corpus"));
      MORPHEUS_LOG(kInfo, "read ", path, " (",
                   format == CorpusFormat::kTreebank ? "treebank" : "plain text", ")");
      bar.add(1);
    }
    bar.finish();
  }
  if (corpus->types().empty()) {
    std::string names;
    for (const std::string& path : options.corpus_files)
      names += (names.empty() ? "" : ", ") + path;
    return invalid_argument("the corpus holds no words: " + names, "check the --corpus files");
  }
  const std::vector<std::u32string>& types = corpus->types();
  uint64_t long_tokens = 0;
  for (size_t t = 0; t < types.size(); ++t) {
    if (types[t].size() > options.config.max_word_chars) long_tokens += corpus->counts()[t];
  }
  const std::string text_path = path_join(options.out_dir, "corpus.txt");
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(text_path, corpus->text()));
  return json{{"files", options.corpus_files},
              {"text", text_path},
              {"text_checksum", checksum_tag(corpus->text())},
              {"sentences", corpus->sentences().size()},
              {"lines_without_words", corpus->num_empty_sentences()},
              {"tokens", corpus->num_tokens()},
              {"types", types.size()},
              {"characters", corpus->num_characters()},
              {"tokens_longer_than_max_word_chars", long_tokens}};
}

// Hash of the teacher's inputs: the word types with their counts, then the --teacher file, or
// Morfessor's settings and the annotations file.
StatusOr<uint64_t> teacher_input_hash(const PrepareOptions& options, const Corpus& corpus) {
  const PrepareConfig& cfg = options.config;
  uint64_t teacher_hash = hash_string("teacher", 0);
  for (size_t t = 0; t < corpus.types().size(); ++t) {
    const std::string w =
        utf8::encode(corpus.types()[t]) + " " + std::to_string(corpus.counts()[t]) + "\n";
    teacher_hash = hash_string(w, teacher_hash);
  }
  if (!options.teacher_file.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(teacher_hash, hash_file(options.teacher_file, teacher_hash));
  } else {
    teacher_hash = hash_string(
        cfg.morfessor_dampening + " " + std::to_string(cfg.morfessor_corpusweight) + " " +
            cfg.morfessor_train + " " + std::to_string(cfg.morfessor_annotation_weight),
        teacher_hash);
    if (!options.annotations_file.empty()) {
      MORPHEUS_ASSIGN_OR_RETURN(teacher_hash, hash_file(options.annotations_file, teacher_hash));
    }
  }
  return teacher_hash;
}

// The teacher table when it is not reused: the --teacher file's, or Morfessor trained on the
// corpus (semi-supervised with --annotations).
StatusOr<TeacherTable> make_teacher_table(const PrepareOptions& options, const Corpus& corpus) {
  if (!options.teacher_file.empty()) return read_teacher_tsv(options.teacher_file);
  MorfessorOptions morfessor = morfessor_options(options.config);
  if (!options.annotations_file.empty()) {
    morfessor.annotations = path_join(options.out_dir, "morfessor_annotations.txt");
    morfessor.annotation_weight = options.config.morfessor_annotation_weight;
    MORPHEUS_RETURN_IF_ERROR(
        write_morfessor_annotations(options.annotations_file, morfessor.annotations));
  }
  return train_morfessor(morfessor, corpus.types(), corpus.counts(), options.out_dir);
}

// Stage 2: the teacher table (reused when its inputs are unchanged) and its cuts of every type
// (types it does not know stay whole). Writes teacher.tsv and the teacher stamp; returns the
// "teacher" summary.
StatusOr<json> run_teacher(const PrepareOptions& options, const Corpus& corpus, json* stamps,
                           TeacherTable* table, std::vector<Cuts>* cuts) {
  const auto start = Clock::now();
  MORPHEUS_ASSIGN_OR_RETURN(const uint64_t teacher_hash, teacher_input_hash(options, corpus));
  const std::vector<std::u32string>& types = corpus.types();
  const std::string teacher_path = path_join(options.out_dir, "teacher.tsv");
  const bool teacher_reused =
      stamps->value("teacher", "") == hex16(teacher_hash) && file_exists(teacher_path);
  json teacher_json;
  teacher_json["source"] = options.teacher_file.empty() ? "morfessor" : options.teacher_file;
  teacher_json["annotations"] = options.annotations_file;
  if (teacher_reused) {
    MORPHEUS_LOG(kInfo, "teacher: inputs unchanged, reusing ", teacher_path);
    MORPHEUS_ASSIGN_OR_RETURN(*table, read_teacher_tsv(teacher_path));
    teacher_json["seconds"] = stamps->value("teacher_seconds", 0.0);
  } else {
    MORPHEUS_ASSIGN_OR_RETURN(*table, make_teacher_table(options, corpus));
  }
  cuts->assign(types.size(), Cuts());
  uint64_t missing = 0, total_pieces = 0;
  for (size_t t = 0; t < types.size(); ++t) {
    auto it = table->find(types[t]);
    if (it == table->end()) {
      ++missing;
    } else {
      (*cuts)[t] = it->second;
    }
    total_pieces += (*cuts)[t].size() + 1;
  }
  if (!teacher_reused) {
    MORPHEUS_RETURN_IF_ERROR(write_teacher_tsv(teacher_path, types, *cuts));
    teacher_json["seconds"] = seconds_since(start);
    (*stamps)["teacher"] = hex16(teacher_hash);
    (*stamps)["teacher_seconds"] = teacher_json["seconds"];
    MORPHEUS_RETURN_IF_ERROR(
        write_file_atomic(path_join(options.out_dir, "stamps.json"), stamps->dump(1) + "\n"));
  }
  if (missing > 0) {
    MORPHEUS_LOG(kWarning, "teacher: ", missing, " of ", types.size(),
                 " word types have no segmentation in ", options.teacher_file,
                 "; they stay unsegmented");
  }
  teacher_json["reused"] = teacher_reused;
  teacher_json["types_without_segmentation"] = missing;
  teacher_json["pieces_per_type"] =
      static_cast<double>(total_pieces) / static_cast<double>(types.size());
  teacher_json["file"] = teacher_path;
  return teacher_json;
}

// Stage 3: the root correction of every type's cuts, when enabled; counted per type and per
// occurrence. *lexicon is loaded when the correction or the lexicon contrastive roots need it.
// Returns the "root_correction" summary.
StatusOr<json> correct_roots(const PrepareConfig& cfg, const Corpus& corpus, RootLexicon* lexicon,
                             std::vector<Cuts>* cuts) {
  json correction = {{"enabled", cfg.root_correction}};
  if (!cfg.root_correction && cfg.contrastive_roots != "lexicon") return correction;
  MORPHEUS_ASSIGN_OR_RETURN(*lexicon, RootLexicon::load(cfg.root_lexicon, cfg.suffix_lexicon));
  if (!cfg.root_correction) return correction;
  const std::vector<std::u32string>& types = corpus.types();
  uint64_t types_changed = 0, tokens_changed = 0, labels_types = 0, labels_tokens = 0;
  uint64_t teacher_labels_tokens = 0;
  ProgressBar bar("roots", types.size(), "types");
  for (size_t t = 0; t < types.size(); ++t) {
    const uint64_t n = corpus.counts()[t];
    teacher_labels_tokens += n * (*cuts)[t].size();
    const size_t removed = apply_root_rule(cfg, *lexicon, types[t], &(*cuts)[t]);
    if (removed > 0) {
      ++types_changed;
      tokens_changed += n;
      labels_types += removed;
      labels_tokens += removed * n;
    }
    bar.add(1);
  }
  bar.finish();
  correction["roots"] = lexicon->num_roots();
  correction["suffix_chains"] = lexicon->num_suffix_chains();
  correction["types_changed"] = types_changed;
  correction["tokens_changed"] = tokens_changed;
  correction["labels_removed_over_types"] = labels_types;
  correction["labels_removed_over_tokens"] = labels_tokens;
  correction["teacher_labels_over_tokens"] = teacher_labels_tokens;
  MORPHEUS_LOG(kInfo, "root correction: ", types_changed, " types (", tokens_changed,
               " tokens) changed, ", labels_tokens, " of ", teacher_labels_tokens,
               " boundary labels removed (over tokens)");
  return correction;
}

// Stage 4: seeded train/dev split of the sentences (*is_dev: 1 = dev). Returns the "split"
// summary.
json split_sentences(const PrepareConfig& cfg, size_t num_sentences, std::vector<uint8_t>* is_dev) {
  is_dev->assign(num_sentences, 0);
  std::vector<size_t> order(num_sentences);
  for (size_t i = 0; i < num_sentences; ++i) order[i] = i;
  std::mt19937_64 rng(cfg.seed);
  for (size_t i = num_sentences; i > 1; --i) {  // Fisher–Yates, portable across libraries
    const size_t j = static_cast<size_t>(rng() % i);
    std::swap(order[i - 1], order[j]);
  }
  const auto dev_count = static_cast<size_t>(cfg.dev_fraction * static_cast<double>(num_sentences));
  for (size_t i = 0; i < dev_count; ++i) (*is_dev)[order[i]] = 1;
  return {{"seed", cfg.seed},
          {"dev_fraction", cfg.dev_fraction},
          {"train_sentences", num_sentences - dev_count},
          {"dev_sentences", dev_count}};
}

// The contrastive root of one type under prepare.contrastive_roots.
std::u32string contrastive_root(const PrepareConfig& cfg, const RootLexicon& lexicon,
                                const std::u32string& word, const Cuts& cuts) {
  if (cfg.contrastive_roots == "lexicon") {
    std::u32string form = lexicon.snap_root_form(word);
    if (!form.empty()) return form;
  }
  return root_of(word, cuts);
}

// Stage 5: char, word and root vocabularies from the train split, saved as char_vocab.json,
// words.tsv and roots.tsv, and the ids of every type. Returns the "vocab" summary.
StatusOr<json> build_vocabularies(const PrepareOptions& options, const Corpus& corpus,
                                  const RootLexicon& lexicon, const std::vector<Cuts>& cuts,
                                  const std::vector<uint8_t>& is_dev, PrepareVocabs* vocabs) {
  const PrepareConfig& cfg = options.config;
  const std::vector<std::u32string>& types = corpus.types();
  std::vector<uint64_t> train_counts(types.size(), 0);
  for (size_t s = 0; s < corpus.sentences().size(); ++s) {
    if (is_dev[s]) continue;
    for (const Token& tok : corpus.sentences()[s]) ++train_counts[tok.type];
  }
  std::unordered_map<char32_t, uint64_t> char_counts;
  std::unordered_map<std::u32string, uint64_t> word_counts, root_counts;
  std::vector<std::u32string> roots(types.size());
  for (size_t t = 0; t < types.size(); ++t) {
    roots[t] = contrastive_root(cfg, lexicon, types[t], cuts[t]);
    const uint64_t n = train_counts[t];
    if (n == 0) continue;
    for (char32_t c : types[t]) char_counts[c] += n;
    word_counts[types[t]] += n;
    root_counts[roots[t]] += n;
  }
  std::u32string always;
  for (char32_t c : lower_code_points(cfg.char_always)) always.push_back(c);
  vocabs->chars = CharVocab::build(char_counts, cfg.char_coverage, cfg.char_min_count, always);
  const CountVocab word_vocab =
      CountVocab::build(word_counts, cfg.word_vocab_size, cfg.word_min_count);
  const CountVocab root_vocab =
      CountVocab::build(root_counts, cfg.root_vocab_size, cfg.root_min_count);
  MORPHEUS_RETURN_IF_ERROR(vocabs->chars.save(path_join(options.out_dir, "char_vocab.json")));
  MORPHEUS_RETURN_IF_ERROR(word_vocab.save(path_join(options.out_dir, "words.tsv")));
  MORPHEUS_RETURN_IF_ERROR(root_vocab.save(path_join(options.out_dir, "roots.tsv")));
  vocabs->word_vocab_size = word_vocab.size();
  vocabs->root_vocab_size = root_vocab.size();
  vocabs->word_ids.assign(types.size(), 0);
  vocabs->root_ids.assign(types.size(), 0);
  uint64_t train_tokens = 0, word_known = 0, root_known = 0;
  for (size_t t = 0; t < types.size(); ++t) {
    vocabs->word_ids[t] = word_vocab.id(types[t]);
    vocabs->root_ids[t] = root_vocab.id(roots[t]);
    train_tokens += train_counts[t];
    if (vocabs->word_ids[t] != 0) word_known += train_counts[t];
    if (vocabs->root_ids[t] != 0) root_known += train_counts[t];
  }
  const auto share = [&](uint64_t n) {
    return train_tokens == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(train_tokens);
  };
  return json{
      {"char_vocab_size", vocabs->chars.size()},  {"char_coverage", vocabs->chars.coverage()},
      {"distinct_chars", char_counts.size()},     {"word_vocab_size", word_vocab.size()},
      {"word_token_coverage", share(word_known)}, {"root_vocab_size", root_vocab.size()},
      {"distinct_roots", root_counts.size()},     {"root_token_coverage", share(root_known)}};
}

// The cache words of one token: the whole word, or chunks of max_word_chars characters when it
// is longer (each counted in *chunked).
void append_cache_words(const PrepareConfig& cfg, const std::u32string& text, const Token& tok,
                        const Cuts& cuts, const PrepareVocabs& vocabs, std::vector<CacheWord>* out,
                        uint64_t* chunked) {
  const auto len = static_cast<uint32_t>(text.size());
  for (uint32_t begin = 0; begin < len; begin += cfg.max_word_chars) {
    const uint32_t n = std::min(cfg.max_word_chars, len - begin);
    CacheWord w;
    for (uint32_t j = 0; j < n; ++j) {
      w.char_ids.push_back(static_cast<uint16_t>(vocabs.chars.id(text[begin + j])));
      if (!tok.upper.empty() && tok.upper[begin + j]) w.case_bits |= 1u << j;
    }
    w.boundary_bits = boundary_bits_of(cuts, begin, n);
    w.word_id = vocabs.word_ids[tok.type];
    w.root_id = vocabs.root_ids[tok.type];
    if (len > cfg.max_word_chars) {
      w.flags |= kWordIsChunk;
      if (begin + n < len) w.flags |= kWordContinues;
      ++*chunked;
    }
    out->push_back(std::move(w));
  }
}

// Stage 6: train.cache and dev.cache, every sentence cut into windows of max_window_words.
// Returns the "cache" summary (sizes against the reference int64 layout).
StatusOr<json> write_caches(const PrepareOptions& options, const Corpus& corpus,
                            const std::vector<Cuts>& cuts, const std::vector<uint8_t>& is_dev,
                            const PrepareVocabs& vocabs) {
  const PrepareConfig& cfg = options.config;
  CacheInfo info;
  info.max_word_chars = cfg.max_word_chars;
  info.max_window_words = cfg.max_window_words;
  info.char_vocab_size = vocabs.chars.size();
  info.word_vocab_size = vocabs.word_vocab_size;
  info.root_vocab_size = vocabs.root_vocab_size;
  CacheWriter writers[2] = {CacheWriter(info), CacheWriter(info)};
  uint64_t chunked[2] = {0, 0}, dropped_windows[2] = {0, 0};
  const size_t num_sentences = corpus.sentences().size();
  ProgressBar bar("cache", num_sentences, "sentences");
  std::vector<CacheWord> words;
  for (size_t s = 0; s < num_sentences; ++s) {
    const int split = is_dev[s];
    words.clear();
    for (const Token& tok : corpus.sentences()[s]) {
      append_cache_words(cfg, corpus.types()[tok.type], tok, cuts[tok.type], vocabs, &words,
                         &chunked[split]);
    }
    for (size_t begin = 0; begin < words.size(); begin += cfg.max_window_words) {
      const size_t end = std::min(words.size(), begin + cfg.max_window_words);
      if (end - begin < cfg.min_window_words) {
        ++dropped_windows[split];
        continue;
      }
      writers[split].begin_window();
      for (size_t i = begin; i < end; ++i) writers[split].add_word(words[i]);
    }
    bar.add(1);
  }
  bar.finish();
  json cache_json;
  const char* names[2] = {"train", "dev"};
  uint64_t total_bytes = 0, total_reference = 0;
  for (int split = 0; split < 2; ++split) {
    const std::string path = path_join(options.out_dir, std::string(names[split]) + ".cache");
    const std::string image = writers[split].serialize();
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path, image));
    const uint64_t reference = reference_int64_cache_bytes(writers[split].num_windows());
    total_bytes += image.size();
    total_reference += reference;
    cache_json[names[split]] = {
        {"file", path},
        {"windows", writers[split].num_windows()},
        {"words", writers[split].num_words()},
        {"chunk_words", chunked[split]},
        {"windows_dropped_short", dropped_windows[split]},
        {"bytes", image.size()},
        {"int64_layout_bytes", reference},
        {"ratio_to_int64_layout",
         reference == 0 ? 0.0
                        : static_cast<double>(image.size()) / static_cast<double>(reference)}};
  }
  cache_json["bytes"] = total_bytes;
  cache_json["int64_layout_bytes"] = total_reference;
  cache_json["ratio_to_int64_layout"] =
      total_reference == 0
          ? 0.0
          : static_cast<double>(total_bytes) / static_cast<double>(total_reference);
  return cache_json;
}

// Stage 7 (with --gold): the teacher's scores against the gold, with and without the root
// correction; gold words the table lacks are added to it by the trained Morfessor model when
// there is one. Returns the "gold" summary.
StatusOr<json> score_teacher_on_gold(const PrepareOptions& options, const RootLexicon& lexicon,
                                     TeacherTable* table) {
  const PrepareConfig& cfg = options.config;
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<GoldWord> gold, read_gold_file(options.gold_file));
  std::vector<std::u32string> gold_words;
  for (const GoldWord& g : gold) gold_words.push_back(g.word);
  size_t unknown = 0;
  std::string unknown_words_by = "left unsegmented";
  if (options.teacher_file.empty() &&
      file_exists(path_join(options.out_dir, "morfessor_model.bin"))) {
    MORPHEUS_RETURN_IF_ERROR(
        add_model_segmentations(cfg, options.out_dir, gold_words, table, &unknown));
    unknown_words_by = "segmented by the trained Morfessor model (Viterbi)";
  } else {
    for (const std::u32string& w : gold_words) unknown += table->count(w) == 0;
  }
  eval::BoundaryScorer raw_scorer, corrected_scorer;
  uint64_t changed = 0;
  for (const GoldWord& g : gold) {
    Cuts c;
    if (auto it = table->find(g.word); it != table->end()) c = it->second;
    std::vector<eval::Pieces> alts;
    for (const auto& alt : g.alternatives) {
      eval::Pieces p;
      for (const std::u32string& piece : alt) p.push_back(utf8::encode(piece));
      alts.push_back(std::move(p));
    }
    raw_scorer.add(to_utf8_pieces(g.word, c), alts);
    if (cfg.root_correction && apply_root_rule(cfg, lexicon, g.word, &c) > 0) ++changed;
    corrected_scorer.add(to_utf8_pieces(g.word, c), alts);
  }
  return json{{"file", options.gold_file},
              {"words", gold.size()},
              {"words_not_in_corpus", unknown},
              {"words_not_in_corpus_are", unknown_words_by},
              {"teacher", scores_json(raw_scorer.scores())},
              {"teacher_root_corrected", scores_json(corrected_scorer.scores())},
              {"words_changed_by_root_correction", changed}};
}

// Last stage: the config and versions into the summary, written as prepare.json, then the "all"
// stamp that lets an unchanged re-run reuse every output.
Status write_summary(const std::string& out_dir, const json& config_json, uint64_t all_hash,
                     json* stamps, json* summary) {
  (*summary)["config"] = config_json;
  (*summary)["cache_version"] = kCacheVersion;
  (*summary)["reused"] = false;
  MORPHEUS_RETURN_IF_ERROR(
      write_file_atomic(path_join(out_dir, "prepare.json"), summary->dump(2) + "\n"));
  (*stamps)["all"] = hex16(all_hash);
  return write_file_atomic(path_join(out_dir, "stamps.json"), stamps->dump(1) + "\n");
}

}  // namespace

StatusOr<json> run_prepare(const PrepareOptions& options) {
  const PrepareConfig& cfg = options.config;
  const auto total_start = Clock::now();
  json summary;
  json stage_seconds = json::object();
  MORPHEUS_RETURN_IF_ERROR(make_dirs(options.out_dir));
  remove_stale_temps_in(options.out_dir);  // of a killed earlier run
  json stamps = load_stamps(path_join(options.out_dir, "stamps.json"));
  const json config_json = {{PrepareConfig::kSection, cfg}};

  // Everything unchanged since the last complete run: reuse all outputs.
  auto start = Clock::now();
  MORPHEUS_ASSIGN_OR_RETURN(const uint64_t all_hash, hash_inputs(options, config_json));
  json previous = reusable_summary(options.out_dir, stamps, all_hash);
  if (!previous.is_null()) {
    MORPHEUS_LOG(kInfo, "prepare: inputs and config unchanged, reusing ", options.out_dir);
    previous["reused"] = true;
    return previous;
  }

  Corpus corpus;
  MORPHEUS_ASSIGN_OR_RETURN(summary["corpus"], read_corpus(options, &corpus));
  stage_seconds["corpus"] = seconds_since(start);

  start = Clock::now();
  TeacherTable table;
  std::vector<Cuts> cuts;  // per type: the teacher's, then root-corrected
  MORPHEUS_ASSIGN_OR_RETURN(summary["teacher"],
                            run_teacher(options, corpus, &stamps, &table, &cuts));
  stage_seconds["teacher"] = seconds_since(start);

  start = Clock::now();
  RootLexicon lexicon;
  MORPHEUS_ASSIGN_OR_RETURN(summary["root_correction"],
                            correct_roots(cfg, corpus, &lexicon, &cuts));
  stage_seconds["root_correction"] = seconds_since(start);

  start = Clock::now();
  std::vector<uint8_t> is_dev;
  summary["split"] = split_sentences(cfg, corpus.sentences().size(), &is_dev);
  stage_seconds["split"] = seconds_since(start);

  start = Clock::now();
  PrepareVocabs vocabs;
  MORPHEUS_ASSIGN_OR_RETURN(summary["vocab"],
                            build_vocabularies(options, corpus, lexicon, cuts, is_dev, &vocabs));
  stage_seconds["vocab"] = seconds_since(start);

  start = Clock::now();
  MORPHEUS_ASSIGN_OR_RETURN(summary["cache"], write_caches(options, corpus, cuts, is_dev, vocabs));
  stage_seconds["cache"] = seconds_since(start);

  if (!options.gold_file.empty()) {
    start = Clock::now();
    MORPHEUS_ASSIGN_OR_RETURN(summary["gold"], score_teacher_on_gold(options, lexicon, &table));
    stage_seconds["gold"] = seconds_since(start);
  }

  stage_seconds["total"] = seconds_since(total_start);
  summary["stage_seconds"] = stage_seconds;
  MORPHEUS_RETURN_IF_ERROR(
      write_summary(options.out_dir, config_json, all_hash, &stamps, &summary));
  return summary;
}

StatusOr<std::vector<Cuts>> teacher_labels(const std::string& prep_dir,
                                           const std::vector<std::u32string>& words, bool raw,
                                           bool root_snap) {
  const std::string summary_path = path_join(prep_dir, "prepare.json");
  MORPHEUS_ASSIGN_OR_RETURN(json summary, load_json_file(summary_path));
  if (!summary.is_object() || !summary.contains("config")) {
    return data_loss(summary_path + ": no \"config\" object", "re-run morpheus prepare");
  }
  // Keys added since that prepare keep their defaults.
  MORPHEUS_ASSIGN_OR_RETURN(const PrepareConfig cfg,
                            section_from_json<PrepareConfig>(summary["config"], summary_path));
  MORPHEUS_ASSIGN_OR_RETURN(TeacherTable table,
                            read_teacher_tsv(path_join(prep_dir, "teacher.tsv")));
  MORPHEUS_RETURN_IF_ERROR(add_model_segmentations(cfg, prep_dir, words, &table));
  RootLexicon lexicon;
  const bool correct = !raw && cfg.root_correction;
  const bool snap = !raw && root_snap;
  if (correct || snap) {
    MORPHEUS_ASSIGN_OR_RETURN(lexicon, RootLexicon::load(cfg.root_lexicon, cfg.suffix_lexicon));
  }
  std::vector<Cuts> out(words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    auto it = table.find(words[i]);
    if (it != table.end()) out[i] = it->second;
    if (correct) apply_root_rule(cfg, lexicon, words[i], &out[i]);
    if (snap) snap_to_root(lexicon, words[i], &out[i]);
  }
  return out;
}

}  // namespace morpheus::train
