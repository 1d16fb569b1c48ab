// SPDX-License-Identifier: MIT
// `morpheus eval` without LibTorch: loads the gold sets, runs every configured system through its
// command-line segment / encode / decode / embed commands (subprocesses) or reads its ready
// files, computes every metric, and writes report.md, report.json and figures/ (eval/report.h).
// A system whose output is missing or whose command fails gets "n/a" rows, never a crash.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::eval {

// The configuration schema with its defaults (paths relative to the working directory, i.e.
// the repo root): "shared_data" (the data folder beside the checkout, "../shared/data";
// $MORPHEUS_SHARED_DATA wins; "{shared_data}" in gold paths and system commands stands for it),
// "gold" {mc2010, ud_stem_boundary, morphscore_v1, ud_types, penn, sigmorphon,
// ud_dir, hybrid_lexicon, sentences} (an empty path skips the metrics needing it),
// "training_text" (the text every trained system learned from: seen/unseen columns; empty: n/a),
// "split" ("report" | "tune" | "all": the gold part the tables score, eval/gold_policy.h),
// "tuning" [what was tuned on what, one line each, listed in report.md], "speed"
// {warm_runs, max_chars}, "embeddings" {min_family_forms, max_words, max_pairs, probe_folds,
// probe_max_items, probe_min_class, probe_iterations, pca_families, seed}, "systems" [].
nlohmann::json eval_config_defaults();

// One system of the comparison. Command templates are run with /bin/sh; placeholders:
// {input} (a file the command reads), {output} (the file it must write; when the template has
// no {output}, its stdout is captured into it), {output_npy} (embed only: an .npy alternative
// with a .vocab next to it), {work} (the system's work directory).
struct SystemSpec {
  std::string name;
  std::string setup;          // run once before anything else, unless setup_creates exists
  std::string setup_creates;  // a path the setup command produces
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

// Validates one "systems" entry: unknown keys and a missing/duplicate name are errors.
StatusOr<SystemSpec> parse_system(const nlohmann::json& j, size_t index);

// Replaces every {key} of `vars` in `tmpl`; an unknown {placeholder} is an error.
StatusOr<std::string> expand_command(const std::string& tmpl,
                                     const std::map<std::string, std::string>& vars);

// Runs the whole evaluation and writes the report into out_dir (created if needed).
Status run_eval(const nlohmann::json& config, const std::string& out_dir);

}  // namespace morpheus::eval
