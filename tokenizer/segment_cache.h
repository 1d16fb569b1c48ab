// SPDX-License-Identifier: MIT
// The cache file (`--cache-file FILE` of encode/segment): a segment table (segment_table.h) of
// what the model segmented for letter runs outside a tokenizer's segments.bin, after the root
// snap, kept across runs. The tokenizer directory stays immutable; each process (each shard)
// appends to its own file and `morpheus cache merge` joins them. File image (little-endian):
//   header  32 bytes: char[8] "MSEGCAC1", u64 tokenizer id (FNV-1a 64 of its morpheus.json),
//           u64 0, u64 FNV-1a 64 of the first 24 bytes
//   records u32 n, u64 FNV-1a 64 of (n, payload), payload[n] = run '\t' pieces joined by ' '
// Reading checks every record (checksum, UTF-8, pieces concatenating to the run): a damaged
// record is a DATA_LOSS error naming its offset, never a wrong segmentation. The one exception is
// a last record cut short (a process killed while appending): it is dropped with a warning and,
// when the file is opened for appending, cut off before the next record is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer {

constexpr size_t kMaxCachedRunBytes = 4096;  // longer runs are not cached

// Records of a cache file, run -> pieces joined by ' ' (in-memory form).
using CacheRecords = std::unordered_map<std::string, std::string>;

struct CacheFileInfo {
  uint64_t tokenizer_id = 0;
  size_t records = 0;      // records read (duplicates included)
  size_t valid_bytes = 0;  // header + complete records
  bool torn_tail = false;  // a last record cut short was dropped
};

// Reads and checks a whole cache file into *records (later records of a run are ignored).
// With expect_id != 0, a file of another tokenizer is FAILED_PRECONDITION.
Status read_cache_file(const std::string& path, uint64_t expect_id, CacheRecords* records,
                       CacheFileInfo* info);

// The file image of `records` (sorted by run) for tokenizer `id`.
std::string cache_image(uint64_t id, const CacheRecords& records);

// One cache file opened for lookups and appends by this process (an exclusive lock: a second
// process appending to the same file is an error naming it).
class SegmentCache {
 public:
  // Opens `path` for tokenizer `id`, creating it when absent.
  static StatusOr<std::unique_ptr<SegmentCache>> open(const std::string& path, uint64_t id);
  ~SegmentCache();
  SegmentCache(const SegmentCache&) = delete;
  SegmentCache& operator=(const SegmentCache&) = delete;

  bool lookup(const std::string& run, std::vector<std::string>* pieces) const;
  // Appends the runs that are not cached yet (runs longer than kMaxCachedRunBytes are skipped).
  Status append(const std::vector<std::string>& runs,
                const std::vector<std::vector<std::string>>& pieces);
  size_t size() const { return records_.size(); }
  const std::string& path() const { return path_; }

 private:
  SegmentCache() = default;
  std::string path_;
  int fd_ = -1;
  CacheRecords records_;
};

struct MergeSummary {
  size_t files = 0;
  size_t records = 0;    // distinct runs written
  size_t conflicts = 0;  // runs two inputs segment differently (the first input's kept)
};

// Merges cache files of tokenizer `id` into `out` (written atomically; may be one of `inputs`).
Status merge_cache_files(const std::vector<std::string>& inputs, uint64_t id,
                         const std::string& out, MergeSummary* summary);

}  // namespace morpheus::tokenizer
