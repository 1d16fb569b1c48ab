// SPDX-License-Identifier: MIT
// SegmentTable: the segmentation table of a Morpheus tokenizer directory (segments.bin, written by
// `morpheus export`): the model's pieces of every exported letter run, looked up by binary search
// in the file image.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer {

// Sorted table folded letter run -> model pieces. File image:
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

 private:
  std::string image_;
  size_t count_ = 0;
  const char* blob_ = nullptr;
};

// Lower-cases a valid UTF-8 letter run with Turkish rules (the table key).
std::string fold_run(std::string_view run);
// The same into *out (its buffer reused).
void fold_run_into(std::string_view run, std::string* out);

}  // namespace morpheus::tokenizer
