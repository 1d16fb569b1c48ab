// SPDX-License-Identifier: MIT
// The system runs of one evaluation: every configured system is run through its command-line
// segment / encode / decode / embed commands (subprocesses, eval/eval_config.h SystemSpec) on the
// word lists and text of the gold sets, or its ready files are read. Eval runs commands on
// prepared artifacts only: it trains and exports nothing (scripts/main.sh does). A system whose
// command fails or whose output is missing gets notes (its rows are "n/a"), never an error.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "eval/embedding_metrics.h"
#include "eval/eval_config.h"
#include "eval/gold_sets.h"
#include "eval/morph_metrics.h"

namespace morpheus::eval {

// What one system produced.
struct SystemResult {
  SystemSpec spec;
  // Segmentations: word → pieces (has_seg when a segment command or file gave any).
  std::unordered_map<std::string, Pieces> seg;
  bool has_seg = false;
  std::string seg_note;                   // why there are none, or a read error
  size_t seg_lines = 0;                   // lines read
  size_t non_spelling = 0;                // lines whose pieces do not concatenate to the word
  std::optional<double> segment_seconds;  // wall time of the segment command
  // Speed (seconds: cold = first run, warm = median of the further runs) and round trips.
  std::optional<double> enc_cold, enc_warm, dec_cold, dec_warm;
  std::optional<double> rt_sentences, rt_words;  // share of lines decoded back exactly
  size_t rt_sentence_n = 0, rt_word_n = 0;
  std::string codec_note;
  std::optional<Embeddings> emb;
  std::string emb_note;
};

struct SystemRuns {
  std::vector<std::string> words;     // the segmentation word list (segmentation_words)
  std::vector<SystemResult> systems;  // in config order
};

// Replaces every {key} of `vars` in `tmpl` with its shell-quoted value; an unknown {placeholder}
// is an error.
StatusOr<std::string> expand_command(const std::string& tmpl,
                                     const std::map<std::string, std::string>& vars);

// OK when every system's `artifact` exists; else FAILED_PRECONDITION listing each missing one
// with the hint to run scripts/main.sh first.
Status check_artifacts(const EvalConfig& c);

// Runs one system in work_root/<name>/ (its log: <name>.log there). `words_file`,
// `emb_words_file` and `sentences_file` hold `words`, the embedding words and g.sentences.
SystemResult run_system(const EvalConfig& c, const SystemSpec& spec, const std::string& work_root,
                        const std::vector<std::string>& words, const std::string& words_file,
                        const std::string& emb_words_file, const std::string& sentences_file,
                        const GoldSets& g);

// Writes the word lists and the text into `work` and runs every system of `c`.
StatusOr<SystemRuns> run_systems(const EvalConfig& c, const GoldSets& g, const std::string& work);

}  // namespace morpheus::eval
