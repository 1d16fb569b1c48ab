// SPDX-License-Identifier: MIT
// Micro-batches of packed real words from the training cache (prepare/cache.h) for the model's
// MorpheusBatch (model/losses.h; layout in model/README.md). Nothing but real words runs through
// the model: N words, each [BOS, chars…, EOS, PAD…] over T = longest word in the batch + 2.
// Epoch plans are deterministic in (seed, epoch): windows are shuffled, grouped into buckets of
// `bucket_batches` batches, sorted by longest word inside a bucket (less padding), cut into
// batches, and the batch order is shuffled again.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "model/losses.h"
#include "prepare/cache.h"

namespace morpheus::train {

// Window ids per micro-batch, in training order.
using EpochPlan = std::vector<std::vector<uint64_t>>;

// Longest word (characters) of every window; computed once per cache.
std::vector<uint32_t> window_max_lengths(const CacheReader& cache);

EpochPlan plan_epoch(const std::vector<uint32_t>& window_max_len, int64_t batch_windows,
                     int64_t bucket_batches, uint64_t seed, int64_t epoch);

// Dev/eval order: windows in file order, batch_windows per batch (no shuffling).
EpochPlan plan_sequential(uint64_t num_windows, int64_t batch_windows, int64_t max_windows);

// Teacher confidence of a word (reference §1.6): 1 for one segment, else
// clamp(length / (4·segments), 0.3, 1).
double teacher_confidence(uint32_t length, uint32_t boundary_bits);

// Builds the CPU batch of `windows`. Words longer than max_word_len − 2 cannot occur (the cache
// stores ≤ max_word_chars per word; checked). With skip_chunks, chunks of long words are left out.
model::MorpheusBatch make_batch(const CacheReader& cache, const std::vector<uint64_t>& windows,
                                int64_t max_word_len, bool skip_chunks);

// Builds batches of a plan on a background thread, `depth` ahead of the consumer, so data
// loading overlaps compute. Batches come out in plan order starting at `first`; with
// `pin_memory` (training on CUDA) in page-locked memory, ready for non_blocking copies.
class BatchPrefetcher {
 public:
  BatchPrefetcher(const CacheReader& cache, const EpochPlan& plan, size_t first,
                  int64_t max_word_len, bool skip_chunks, bool pin_memory = false,
                  size_t depth = 2);
  ~BatchPrefetcher();
  BatchPrefetcher(const BatchPrefetcher&) = delete;
  BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

  // The next batch; false when the plan is exhausted. Rethrows an error of the builder thread.
  bool next(model::MorpheusBatch* batch);

 private:
  void run();

  const CacheReader& cache_;
  const EpochPlan& plan_;
  size_t next_build_;
  int64_t max_word_len_;
  bool skip_chunks_;
  bool pin_memory_;
  size_t depth_;
  std::deque<model::MorpheusBatch> ready_;
  bool stop_ = false;
  bool done_ = false;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread worker_;
};

}  // namespace morpheus::train
