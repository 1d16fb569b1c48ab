// SPDX-License-Identifier: MIT
// The torch-free half of a Morpheus tokenizer directory (format 2, written by `morpheus export`):
// the segmentation table (the model's pieces of every exported letter run), the piece vocabulary,
// checksums and the table self-test. Letter runs missing from the table go to a model segmenter
// that is created lazily, on the first miss (in process with LibTorch, or a co-process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/hash.h"
#include "core/status.h"
#include "tokenizer/piece_codec.h"
#include "tools/seg_cache.h"

namespace morpheus::tools {

constexpr int kTokenizerFormatVersion = 2;
constexpr const char* kTokenizerKind = "morpheus-tokenizer";
constexpr const char* kSegmentTableFile = "segments.bin";

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

// Segments letter runs the table does not hold (aligned output; pieces concatenate to the run).
class RunSegmenter {
 public:
  virtual ~RunSegmenter() = default;
  virtual StatusOr<std::vector<std::vector<std::string>>> segment(
      const std::vector<std::string>& runs) = 0;
  // One request in flight: send() starts segmenting `runs`, receive() returns their pieces. A
  // co-process works meanwhile; by default send() keeps the runs and receive() calls segment().
  virtual Status send(const std::vector<std::string>& runs) {
    pending_ = runs;
    return ok_status();
  }
  virtual StatusOr<std::vector<std::vector<std::string>>> receive() { return segment(pending_); }

 private:
  std::vector<std::string> pending_;
};
class TokenizerDir;
// Creates the model segmenter of a tokenizer directory (checks it, e.g. self-test).
using RunSegmenterFactory =
    std::function<StatusOr<std::unique_ptr<RunSegmenter>>(const TokenizerDir& dir)>;

class TokenizerDir {
 public:
  // Loads tokenizer.json, pieces.json and segments.bin of `dir`, checking the format version and
  // the checksums of these files; with self_test, the self-test texts must encode to their
  // stored ids (they only need the table). `model` is called at most once, on the first letter
  // run missing from the table (empty: such runs are whole-run units).
  static StatusOr<std::unique_ptr<TokenizerDir>> load(const std::string& dir, bool self_test,
                                                      RunSegmenterFactory model);
  ~TokenizerDir();
  TokenizerDir(const TokenizerDir&) = delete;
  TokenizerDir& operator=(const TokenizerDir&) = delete;

  const tokenizer::PieceCodec& codec() const { return *codec_; }
  const SegmentTable& table() const { return table_; }
  const nlohmann::json& config() const { return config_; }
  const std::string& dir() const { return dir_; }

  // Segments, in one model call, the letter runs of `texts` that the table lacks (creating the
  // model on the first miss), so that encode/segment_word on them need no model call.
  Status prefetch(const std::vector<std::string>& texts) const;
  // prefetch in two halves: prefetch_begin sends the misses to the model without waiting for
  // the answers, prefetch_end (or any later model use) stores them. In between, encode/segment
  // of runs already resolved proceed while a model co-process works.
  Status prefetch_begin(const std::vector<std::string>& texts) const;
  Status prefetch_end() const;
  // codec().encode / segment_word, failing when the model could not be created or failed.
  Status encode(std::string_view text, std::vector<int32_t>* ids, bool allow_invalid) const;
  StatusOr<std::vector<std::string>> segment_word(std::string_view word) const;

  // FNV-1a 64 of tokenizer.json (it names the checksums of every other file): the identity a
  // segmentation cache file is tied to.
  uint64_t id() const { return id_; }
  // Looks letter runs outside the table up in the cache file `path` (created when absent) before
  // the model, and appends what the model segments to it (tools/seg_cache.h).
  Status attach_cache(const std::string& path);

  // Checks `relative` (a file of the directory) against its checksum in tokenizer.json.
  Status verify_file(const std::string& relative) const;
  // The model segmenter (created on first use), or its creation error.
  StatusOr<RunSegmenter*> model() const;
  bool model_created() const;
  // Letter runs answered by the table / sent to the model since loading.
  uint64_t table_hits() const;
  uint64_t model_runs() const;
  // Letter runs seen by prefetch: all occurrences (words), the distinct ones (runs; each looked
  // up once per input, up to 2^21 remembered), and of those, how many the table and the cache
  // file answered; the rest went to the model.
  struct RunStats {
    uint64_t words = 0;
    uint64_t runs = 0;
    uint64_t table = 0;
    uint64_t cache = 0;
  };
  RunStats run_stats() const;

 private:
  TokenizerDir();
  std::vector<std::string> segment_run(std::string_view folded) const;

  std::string dir_;
  uint64_t id_ = 0;
  nlohmann::json config_;
  SegmentTable table_;
  std::unique_ptr<tokenizer::PieceCodec> codec_;
  RunSegmenterFactory factory_;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace morpheus::tools
