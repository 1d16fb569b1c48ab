// SPDX-License-Identifier: MIT
// The torch-free half of a Morpheus tokenizer directory (format 2, written by `morpheus export`):
// the segmentation table (the model's pieces of every exported letter run), the piece vocabulary,
// checksums and the table self-test. The codec cuts letter runs with a Segmenter over the table
// (tokenizer/segmenter.h): runs missing from the table go to the cache file, then to a model
// Segmenter created by name through the factory, lazily, on the first miss ("morpheus-model" in
// process with LibTorch, or "morpheus-server", a co-process).
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
#include "tokenizer/seg_cache.h"
#include "tokenizer/segment_table.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

constexpr int kTokenizerFormatVersion = 2;
constexpr const char* kTokenizerKind = "morpheus-tokenizer";
constexpr const char* kSegmentTableFile = "segments.bin";

// Checks `relative` (a file of the tokenizer directory `dir`) against its checksum in `config`
// (tokenizer.json). DATA_LOSS naming the file when it differs or has no checksum.
Status verify_tokenizer_file(const std::string& dir, const nlohmann::json& config,
                             const std::string& relative);

class TokenizerDir {
 public:
  // Loads tokenizer.json, pieces.json and segments.bin of `dir`, checking the format version and
  // the checksums of these files; with self_test, the self-test texts must encode to their
  // stored ids (they only need the table). The model segmenter `model` (tokenizer/segmenter.h;
  // its path is set to `dir`) is created at most once, on the first letter run missing from the
  // table (an empty name: such runs fail with FAILED_PRECONDITION).
  static StatusOr<std::unique_ptr<TokenizerDir>> load(const std::string& dir, bool self_test,
                                                      SegmenterSpec model);
  ~TokenizerDir();
  TokenizerDir(const TokenizerDir&) = delete;
  TokenizerDir& operator=(const TokenizerDir&) = delete;

  const PieceCodec& codec() const { return *codec_; }
  const SegmentTable& table() const { return table_; }
  const nlohmann::json& config() const { return config_; }
  const std::string& dir() const { return dir_; }

  // Segments, in one model call, the letter runs of `texts` that the table lacks (creating the
  // model on the first miss), so that encode/segment_word on them need no model call.
  Status prefetch(const std::vector<std::string>& texts) const;
  // prefetch in two halves: prefetch_begin sends the misses to the model without waiting for
  // the answers, prefetch_end (or any later model use) stores them. In between, encode/segment
  // of runs already resolved proceed while a model co-process works; prefetch_begin itself
  // scans its texts without the lock, so it may run while other threads encode.
  // Adaptive: once a scanned block had no miss, the scan (about 30 % of a run answered wholly by
  // the table and the cache file) is skipped for the following blocks until a run had to go to
  // the model unprefetched (then the next block is scanned again) or 15 blocks were skipped. So
  // a run whose text turns from known to new words pays one block of one-by-one model calls.
  Status prefetch_begin(const std::vector<std::string>& texts) const;
  Status prefetch_end() const;
  // codec().encode / segment_word, failing when the model could not be created or failed.
  Status encode(std::string_view text, std::vector<int32_t>* ids, bool allow_invalid) const;
  StatusOr<std::vector<std::string>> segment_word(std::string_view word) const;

  // FNV-1a 64 of tokenizer.json (it names the checksums of every other file): the identity a
  // segmentation cache file is tied to.
  uint64_t id() const { return id_; }
  // Looks letter runs outside the table up in the cache file `path` (created when absent) before
  // the model, and appends what the model segments to it (tokenizer/seg_cache.h).
  Status attach_cache(const std::string& path);

  // Checks `relative` (a file of the directory) against its checksum in tokenizer.json.
  Status verify_file(const std::string& relative) const;
  // The model segmenter (created on first use; owned by this directory), or its creation error.
  StatusOr<Segmenter*> model() const;
  bool model_created() const;
  // Letter runs answered by the table / sent to the model since loading.
  uint64_t table_hits() const;
  uint64_t model_runs() const;
  // Letter runs encoded or segmented (words), the distinct ones (runs: each looked up once while
  // the codec's run cache holds it), and of those, how many the table and the cache file
  // answered; the rest went to the model.
  struct RunStats {
    uint64_t words = 0;
    uint64_t runs = 0;
    uint64_t table = 0;
    uint64_t cache = 0;
  };
  RunStats run_stats() const;

 private:
  class RunTable;
  TokenizerDir();
  std::vector<std::string> segment_run(std::string_view folded) const;
  // Whether prefetch_begin skips this block's scan (see prefetch_begin).
  bool skip_scan() const;

  std::string dir_;
  uint64_t id_ = 0;
  nlohmann::json config_;
  SegmentTable table_;
  std::unique_ptr<PieceCodec> codec_;
  SegmenterSpec model_;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace morpheus::tokenizer
