// SPDX-License-Identifier: MIT
// `morpheus prepare`: corpus → words → Morfessor teacher → root correction → vocabularies →
// seeded train/dev split → compact caches, with a prepare.json summary. Torch-free.
//
// Output directory:
//   teacher.tsv        word<TAB>pieces for every word type (lower-cased), the raw teacher
//   char_vocab.json    character vocabulary (tokenizer/char_vocab.h)
//   words.tsv          word vocabulary, roots.tsv root vocabulary (line i = id i)
//   train.cache        training windows, dev.cache dev windows (prepare/cache.h)
//   prepare.json       summary: counts, timings, label changes, sizes, teacher scores
//   stamps.json        hashes of the inputs of finished stages (re-runs reuse them)
//   morfessor_*        Morfessor's input, model, segmentation and log (when it ran)
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "config/prepare_config.h"
#include "core/status.h"
#include "morph/cuts.h"
#include "morph/root_lexicon.h"
#include "prepare/teacher.h"

namespace morpheus::train {

struct PrepareOptions {
  std::vector<std::string> corpus_files;  // plain text or treebank (auto-detected)
  std::string out_dir;
  std::string teacher_file;  // optional ready segmentation instead of running Morfessor
  std::string gold_file;     // optional MC2010-style gold (word<TAB>alternatives) for scores
  // Optional MC2010-style annotated words for semi-supervised Morfessor (only the MC2010 tune
  // part may be given: `morpheus gold-split --gold mc2010 --part tune`).
  std::string annotations_file;
  PrepareConfig config;
};

// Runs every stage, reusing those whose inputs are unchanged (stamps.json), and returns the
// summary that it also writes to prepare.json.
StatusOr<nlohmann::json> run_prepare(const PrepareOptions& options);

// The segmentation Morpheus learns from, for any lower-case words: the teacher table of the
// prepare directory `prep_dir` (teacher.tsv: Morfessor's, or the --teacher file's), words it
// lacks segmented by its trained Morfessor model (morfessor_model.bin, when there is one; else
// they stay whole), then, unless `raw`, the root correction when prepare.json's config enables
// it. One Cuts per word, in order.
// With `root_snap`, snap_to_root (the prepare directory's lexicons) follows, unless `raw`.
StatusOr<std::vector<morph::Cuts>> teacher_labels(const std::string& prep_dir,
                                                  const std::vector<std::u32string>& words,
                                                  bool raw, bool root_snap = false);

// Reads a gold file: "word<TAB>alt , alt<TAB>…" with pieces space-separated; a first line
// starting with "word\t" is a header. Words and pieces are lower-cased.
struct GoldWord {
  std::u32string word;
  std::vector<std::vector<std::u32string>> alternatives;
};
StatusOr<std::vector<GoldWord>> read_gold_file(const std::string& path);

}  // namespace morpheus::train
