// SPDX-License-Identifier: MIT
// EvalConfig: the configuration of `morpheus eval` (configs/eval.json), a config section that is
// the whole object, read by section_from_json<EvalConfig> (core/config_section.h). Defaults live
// in the structs below and nowhere else; their JSON fields are in eval_config.cc. Paths are
// relative to the working directory (the repo root). Two placeholders may appear in every path and
// system command: "{shared_data}", the data folder beside the checkout (`shared_data`;
// $MORPHEUS_SHARED_DATA wins), and "{run_dir}", the run directory whose prepared artifacts the
// systems read (`run_dir`, `morpheus eval --run-dir`; scripts/main.sh writes runs/main).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "eval/gold_policy.h"

namespace morpheus::eval {

// One system of the comparison. Its commands only read prepared artifacts (a tokenizer
// directory, a trained baseline): eval trains and exports nothing. Command templates are run
// with /bin/sh; placeholders: {input} (a file the command reads), {output} (the file it must
// write; when the template has no {output}, its stdout is captured into it), {output_npy} (embed
// only: an .npy alternative with a .vocab next to it), {work} (the system's work directory).
struct SystemSpec {
  std::string name;
  // A path its commands need (e.g. "{run_dir}/tokenizer/morpheus.json"): when it is missing,
  // eval stops before running anything and says to run scripts/main.sh first.
  std::string artifact;
  std::string segment;        // words (one per line) → "word<TAB>piece piece…"
  std::string encode;         // text lines → id lines
  std::string decode;         // id lines → text lines
  std::string embed;          // words (one per line) → .vec / .npy
  std::string segmentations;  // a ready "word<TAB>pieces" file
  std::string embeddings;     // a ready .vec / .npy file
  std::string published;      // name of the system in the reference's §5 tables
  // A built-in reference segmenter instead of commands: "whole-word" (one piece per word) or
  // "characters" (one piece per code point).
  std::string builtin;
  // The word list its segmentation table was built from ("word[<TAB>…]" lines), if it has one:
  // the speed table reports the share of the text's distinct letter runs that table holds.
  std::string table_words;
  // Annotated words the system was trained with, if any (e.g. "500 MC2010 tune words"): its rows
  // are marked † in every table and the report lists them.
  std::string supervision;
};

// The gold files; an empty path skips the metrics that need it.
struct GoldPaths {
  std::string mc2010 = "{shared_data}/gold/mc2010_tur_trainset.tsv";  // MC2010 boundaries
  std::string ud_stem_boundary = "{shared_data}/gold/ud_stem_boundary_tokens.tsv";  // MorphScore
  std::string morphscore_v1 = "{shared_data}/gold/morphscore_turkish.csv";          // MorphScore v1
  std::string ud_types = "{shared_data}/gold/ud_types_segmentation.tsv";            // UD boundaries
  std::string penn = "{shared_data}/gold/penn_tokens_segmentation.tsv";   // Penn boundaries
  std::string sigmorphon = "{shared_data}/gold/sigmorphon2022_tur.gold";  // lemma prefix
  std::string ud_dir = "{shared_data}/ud";              // CoNLL-U treebanks (embeddings)
  std::string hybrid_lexicon = "{shared_data}/hybrid";  // %TR / %Pure lexicons
  std::string sentences = "{shared_data}/corpus/dev_ud_sentences.txt";  // speed, round trip
};

struct SpeedOptions {
  size_t warm_runs = 3;  // timed encode/decode runs after the cold one; >= 0
  size_t max_chars = 0;  // characters of the evaluation text used; 0 = all of it
};

struct EmbeddingOptions {
  size_t min_family_forms = 3;      // distinct forms a root family needs; >= 2
  size_t max_words = 6000;          // family forms sampled (whole families); 0 = all
  size_t max_pairs = 20000;         // within-family pairs sampled for the ROC-AUC
  size_t probe_folds = 5;           // cross-validation folds of the probes; >= 2
  size_t probe_max_items = 3000;    // items per probe (seeded sample); 0 = all
  size_t probe_min_class = 20;      // items a probe class needs
  size_t probe_iterations = 200;    // logistic-regression iterations
  size_t pca_families = 10;         // largest families drawn in each PCA map
  size_t pca_max_forms = 30;        // forms per family in a PCA map
  size_t lemma_max_queries = 3000;  // lemma-retrieval queries (seeded sample); 0 = all
  uint64_t seed = 42;               // samples, pairs, folds and PCA
};

struct EvalConfig {
  static constexpr const char* kSection = "";  // the whole config object
  std::string shared_data = "../shared/data";  // value of "{shared_data}"
  // Value of "{run_dir}" (`morpheus eval --run-dir`); empty: a config that uses it is an error.
  std::string run_dir;
  GoldPaths gold;
  // The text every trained system learned from (seen/unseen columns); empty: those are n/a.
  std::string training_text;
  std::string split = "report";  // gold part the tables score: report | tune | all
  SpeedOptions speed;
  EmbeddingOptions embeddings;
  // The reference's §5 figures (eval/published_figures.h); empty: no published column values.
  std::string published_figures = "eval/published_figures.json";
  std::vector<SystemSpec> systems;

  // Checks each "systems" entry (parse_system), then replaces "{shared_data}" and "{run_dir}" in
  // the gold paths, the training text, system paths and (shell-quoted) system commands of the
  // merged config; "{run_dir}" without a run_dir is INVALID_ARGUMENT naming where it is used.
  static Status check_json(nlohmann::json& config);
  // OK, or INVALID_ARGUMENT naming the first bad field.
  Status validate() const;
  // The part `split` names (call after validate).
  GoldPart part() const;
};

void to_json(nlohmann::json& j, const SystemSpec& spec);
void from_json(const nlohmann::json& j, SystemSpec& spec);
void to_json(nlohmann::json& j, const GoldPaths& paths);
void from_json(const nlohmann::json& j, GoldPaths& paths);
void to_json(nlohmann::json& j, const SpeedOptions& options);
void from_json(const nlohmann::json& j, SpeedOptions& options);
void to_json(nlohmann::json& j, const EmbeddingOptions& options);
void from_json(const nlohmann::json& j, EmbeddingOptions& options);
// Missing keys keep their defaults (section_from_json<EvalConfig> rejects unknown keys and
// returns a Status).
void to_json(nlohmann::json& j, const EvalConfig& config);
void from_json(const nlohmann::json& j, EvalConfig& config);

// Validates one "systems" entry: unknown keys, non-string values and a missing name are errors.
StatusOr<SystemSpec> parse_system(const nlohmann::json& j, size_t index);

// `s` in single quotes for /bin/sh.
std::string shell_quote(const std::string& s);

}  // namespace morpheus::eval
