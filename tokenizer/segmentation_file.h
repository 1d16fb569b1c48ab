// SPDX-License-Identifier: MIT
// The one segmentation interchange format every system reads and writes (DESIGN.md §5.11):
//   word<TAB>piece piece piece\n      e.g. "evlerde\tev ler de"
// Pieces are separated by single spaces and concatenate to the word exactly. Words hold no
// whitespace (they are letter runs or other pretokenizer spans).
// Segmenter, the interface every segmenting system implements, is in tokenizer/segmenter.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer {

struct SegmentedWord {
  std::string word;
  std::vector<std::string> pieces;  // non-empty; concatenation == word
};

// Parses one line ("word\tp1 p2"). Errors name the problem; callers add file and line.
StatusOr<SegmentedWord> parse_segmentation_line(std::string_view line);
// "word\tp1 p2" (no newline).
std::string format_segmentation(const std::string& word, const std::vector<std::string>& pieces);

// Reads a whole file; errors name the file and line number. Empty lines are skipped.
StatusOr<std::vector<SegmentedWord>> read_segmentation_file(const std::string& path);
// Writes atomically, one line per word.
Status write_segmentation_file(const std::string& path, const std::vector<SegmentedWord>& words);

}  // namespace morpheus::tokenizer
