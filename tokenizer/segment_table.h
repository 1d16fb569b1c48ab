// SPDX-License-Identifier: MIT
// A segment table: words with their pieces ("evlerde" -> ev ler de), segmentations known in
// advance. One concept, three stores: segments.bin of a tokenizer directory (SegmentTable's file
// image: the pieces of every exported letter run, written by `morpheus export`), the segment file
// (segment_file.h: the text form every system reads and writes; TableSegmenter answers from one)
// and the cache file (segment_cache.h: what the model segmented, appended across runs).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "tokenizer/segment_file.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

// Sorted table word -> pieces, looked up by binary search in its file image:
//   0   char[8]  "MSEGTAB1"
//   8   u64      n (records)
//   16  u64      blob bytes
//   24  u64      offsets[n + 1] into the blob (record i = blob[offsets[i], offsets[i+1]))
//   ..  blob     records: the pieces of one run joined by ' ', records sorted by run (bytes)
class SegmentTable {
 public:
  SegmentTable() = default;
  // The file image of `entries` (run, pieces); pieces must concatenate to the run, runs must be
  // distinct letter runs (no ' ').
  static std::string serialize(
      std::vector<std::pair<std::string, std::vector<std::string>>> entries);
  // Parses a file image read from `path` (named in errors). DATA_LOSS on a malformed image.
  static StatusOr<SegmentTable> parse(std::string image, const std::string& path);

  // Whether `run` is in the table.
  bool contains(std::string_view run) const;
  // Pieces of `run` when it is in the table.
  bool lookup(std::string_view run, std::vector<std::string>* pieces) const;
  size_t size() const { return count_; }
  // Record i: pieces joined by ' '.
  std::string_view record(size_t i) const;
  // Every word with its pieces, sorted by word (bytes).
  std::vector<SegmentedWord> entries() const;

 private:
  std::string image_;
  size_t count_ = 0;
  const char* blob_ = nullptr;
};

// A Segmenter answering from a segment table: the pieces of a word in it, else the word whole.
// Words and pieces are case-folded (Turkish rules with turkish_case) when the table is made, and
// cut() expects a folded word; a word whose folded pieces no longer spell it is left out, and of
// a word listed twice the first entry counts. CBPE takes its boundaries from one.
class TableSegmenter : public WordSegmenter {
 public:
  explicit TableSegmenter(const std::vector<SegmentedWord>& words, bool turkish_case = true);
  // The table of a segment file; errors name the file and line.
  static StatusOr<std::unique_ptr<TableSegmenter>> load(const std::string& path,
                                                        bool turkish_case = true);
  std::vector<std::string> cut(std::string_view word) const override;
  std::string name() const override { return "segment-table"; }
  const SegmentTable& table() const { return table_; }

 private:
  SegmentTable table_;
};

}  // namespace morpheus::tokenizer
