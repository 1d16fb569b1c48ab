// SPDX-License-Identifier: MIT
// The segment file: a segment table (segment_table.h) as text, the one interchange format every
// system reads and writes (`morpheus segment`, the baselines, `morpheus eval`):
//   word<TAB>piece piece piece\n      e.g. "evlerde\tev ler de"
// Pieces are separated by single spaces and concatenate to the word exactly. Words hold no
// whitespace (they are letter runs or other pretokenizer spans).
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
StatusOr<SegmentedWord> parse_segment_line(std::string_view line);
// "word\tp1 p2" (no newline).
std::string format_segment_line(const std::string& word, const std::vector<std::string>& pieces);

// Reads a whole file; errors name the file and line number. Empty lines are skipped.
StatusOr<std::vector<SegmentedWord>> read_segment_file(const std::string& path);
// Writes atomically, one line per word.
Status write_segment_file(const std::string& path, const std::vector<SegmentedWord>& words);

}  // namespace morpheus::tokenizer
