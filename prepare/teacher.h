// SPDX-License-Identifier: MIT
// The Morfessor teacher of `morpheus prepare`: segmentations of word types as interior cut
// offsets, read from a `word<TAB>piece piece` file or produced by Debian's python3-morfessor
// (Morfessor Baseline 2.0.6) run as a subprocess: batch training on every word type with its
// count and log dampening, to convergence; its Morfessor 1.0 segmentation file read back here.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "morph/cuts.h"

namespace morpheus::train {

// Segmentation of every known word type (lower-cased), as cuts (morph/cuts.h).
using TeacherTable = std::unordered_map<std::u32string, morph::Cuts>;

// Reads `word<TAB>piece piece …` (tokenizer/segment_file.h). Words and pieces are lower-cased
// (Turkish rules). A malformed line is INVALID_ARGUMENT naming the file and line number; a word
// listed twice with different segmentations is INVALID_ARGUMENT naming both lines.
StatusOr<TeacherTable> read_teacher_tsv(const std::string& path);

// Writes `types[i]<TAB>pieces` for every type, in the given order, atomically.
Status write_teacher_tsv(const std::string& path, const std::vector<std::u32string>& types,
                         const std::vector<morph::Cuts>& cuts);

// Reads a Morfessor 1.0 segmentation file ("count morph + morph", '#' comments) as written by
// `morfessor-train -S`. Errors name the file and line.
StatusOr<TeacherTable> read_morfessor_segmentation(const std::string& path);

// Runs argv[0] with arguments argv (no shell), stdout and stderr appended to `log_path`, and waits.
// While waiting, a progress bar labelled `label` shows the elapsed seconds. A program that cannot
// be started is NOT_FOUND; a non-zero exit or a signal is INTERNAL with the last lines of the log.
Status run_subprocess(const std::vector<std::string>& argv, const std::string& log_path,
                      const std::string& label);

// How python3-morfessor is invoked.
struct MorfessorOptions {
  std::string python = "/usr/bin/python3";                    // the module imports only here
  std::string train_script = "/usr/bin/morfessor-train";      // python3-morfessor's trainer
  std::string segment_script = "/usr/bin/morfessor-segment";  // … and its Viterbi segmenter
  std::string dampening = "log";                              // none | log | ones
  double corpusweight = 1.0;                                  // Morfessor's alpha
  // Semi-supervised training: a Morfessor annotations file ("word m1 m2, m1 m2" per line; empty:
  // none) and the corpus weight of the annotated data (0: Morfessor balances the token counts).
  std::string annotations;
  double annotation_weight = 0.0;
};

// OK when the interpreter and both scripts exist; else FAILED_PRECONDITION with the install hint.
Status check_morfessor(const MorfessorOptions& options);

// Trains Morfessor Baseline on `count word` lines for every type (batch, to convergence) in
// `work_dir` (files morfessor_counts.txt, morfessor_model.bin, morfessor_segmentation.txt,
// morfessor.log) and returns the segmentation of every type.
StatusOr<TeacherTable> train_morfessor(const MorfessorOptions& options,
                                       const std::vector<std::u32string>& types,
                                       const std::vector<uint64_t>& counts,
                                       const std::string& work_dir);

// Viterbi segmentation of `words` with a trained model file (morfessor-segment).
StatusOr<TeacherTable> segment_with_morfessor(const MorfessorOptions& options,
                                              const std::string& model_path,
                                              const std::vector<std::u32string>& words,
                                              const std::string& work_dir);

}  // namespace morpheus::train
