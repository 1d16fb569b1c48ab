// SPDX-License-Identifier: MIT
#include "train/batcher.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace morpheus::train {

std::vector<uint32_t> window_max_lengths(const CacheReader& cache) {
  std::vector<uint32_t> out(cache.num_windows(), 0);
  for (uint64_t w = 0; w < cache.num_windows(); ++w) {
    for (uint64_t i = cache.window_begin(w); i < cache.window_end(w); ++i) {
      out[w] = std::max(out[w], cache.word_length(i));
    }
  }
  return out;
}

EpochPlan plan_epoch(const std::vector<uint32_t>& window_max_len, int64_t batch_windows,
                     int64_t bucket_batches, uint64_t seed, int64_t epoch) {
  std::mt19937_64 rng(seed * 1000003ULL + static_cast<uint64_t>(epoch));
  std::vector<uint64_t> order(window_max_len.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const size_t per_batch = static_cast<size_t>(batch_windows);
  const size_t per_bucket = per_batch * static_cast<size_t>(bucket_batches);
  EpochPlan plan;
  for (size_t b = 0; b < order.size(); b += per_bucket) {
    const auto begin = order.begin() + static_cast<std::ptrdiff_t>(b);
    const auto end =
        order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), b + per_bucket));
    std::stable_sort(begin, end,
                     [&](uint64_t x, uint64_t y) { return window_max_len[x] < window_max_len[y]; });
    for (auto it = begin; it < end; it += static_cast<std::ptrdiff_t>(per_batch)) {
      const auto stop = std::min(end, it + static_cast<std::ptrdiff_t>(per_batch));
      plan.emplace_back(it, stop);
    }
  }
  std::shuffle(plan.begin(), plan.end(), rng);
  return plan;
}

EpochPlan plan_sequential(uint64_t num_windows, int64_t batch_windows, int64_t max_windows) {
  const uint64_t n = max_windows > 0
                         ? std::min<uint64_t>(num_windows, static_cast<uint64_t>(max_windows))
                         : num_windows;
  EpochPlan plan;
  for (uint64_t w = 0; w < n; w += static_cast<uint64_t>(batch_windows)) {
    std::vector<uint64_t> batch;
    for (uint64_t k = w; k < std::min(n, w + static_cast<uint64_t>(batch_windows)); ++k) {
      batch.push_back(k);
    }
    plan.push_back(std::move(batch));
  }
  return plan;
}

double teacher_confidence(uint32_t length, uint32_t boundary_bits) {
  const int segments = 1 + __builtin_popcount(boundary_bits);
  if (segments == 1) return 1.0;
  return std::clamp(static_cast<double>(length) / (4.0 * segments), 0.3, 1.0);
}

namespace {

// The identity of word i's teacher suffix string (its characters after the first teacher cut):
// FNV-1a over their char ids, made positive and non-zero; 0 when the teacher does not cut it.
int64_t suffix_id(const CacheReader& cache, uint64_t i) {
  const uint32_t len = cache.word_length(i);
  uint32_t first = 1;
  while (first < len && !cache.boundary(i, first)) ++first;
  if (first >= len) return 0;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint32_t j = first; j < len; ++j) h = (h ^ cache.char_id(i, j)) * 0x100000001b3ULL;
  return static_cast<int64_t>((h >> 1) | 1);
}

}  // namespace

model::MorpheusBatch make_batch(const CacheReader& cache, const std::vector<uint64_t>& windows,
                                int64_t max_word_len, bool skip_chunks) {
  // Pass 1: which words, how long.
  std::vector<uint64_t> words;
  int64_t max_slots = 1;
  uint32_t longest = 1;
  for (uint64_t w : windows) {
    int64_t slots = 0;
    for (uint64_t i = cache.window_begin(w); i < cache.window_end(w); ++i) {
      if (skip_chunks && (cache.flags(i) & kWordIsChunk) != 0) continue;
      words.push_back(i);
      longest = std::max(longest, cache.word_length(i));
      ++slots;
    }
    max_slots = std::max(max_slots, slots);
  }
  const int64_t T = static_cast<int64_t>(longest) + 2;
  TORCH_CHECK(T <= max_word_len, "cache word of ", longest, " characters exceeds the model's ",
              "max_word_len ", max_word_len, " (BOS and EOS included)");
  const int64_t N = static_cast<int64_t>(words.size());
  const int64_t B = static_cast<int64_t>(windows.size());
  auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
  model::MorpheusBatch batch;
  batch.char_ids = torch::zeros({N, T}, i64);
  batch.case_flags = torch::zeros({N, T}, i64);
  batch.boundary_labels = torch::zeros({N, T - 1}, f32);
  batch.confidence = torch::zeros({N}, f32);
  batch.word_ids = torch::zeros({N}, i64);
  batch.root_ids = torch::zeros({N}, i64);
  batch.suffix_ids = torch::zeros({N}, i64);
  batch.word_index = torch::full({B, max_slots}, -1, i64);
  auto chars = batch.char_ids.accessor<int64_t, 2>();
  auto cases = batch.case_flags.accessor<int64_t, 2>();
  auto labels = batch.boundary_labels.accessor<float, 2>();
  auto conf = batch.confidence.accessor<float, 1>();
  auto wids = batch.word_ids.accessor<int64_t, 1>();
  auto rids = batch.root_ids.accessor<int64_t, 1>();
  auto sids = batch.suffix_ids.accessor<int64_t, 1>();
  auto index = batch.word_index.accessor<int64_t, 2>();
  int64_t n = 0;
  for (int64_t b = 0; b < B; ++b) {
    const uint64_t w = windows[static_cast<size_t>(b)];
    int64_t slot = 0;
    for (uint64_t i = cache.window_begin(w); i < cache.window_end(w); ++i) {
      if (skip_chunks && (cache.flags(i) & kWordIsChunk) != 0) continue;
      const uint32_t len = cache.word_length(i);
      chars[n][0] = model::kBosId;
      for (uint32_t j = 0; j < len; ++j) {
        chars[n][j + 1] = cache.char_id(i, j);
        cases[n][j + 1] = cache.is_upper(i, j) ? 1 : 0;
      }
      chars[n][len + 1] = model::kEosId;
      for (uint32_t g = 1; g < len; ++g) labels[n][g] = cache.boundary(i, g) ? 1.0f : 0.0f;
      conf[n] = static_cast<float>(teacher_confidence(len, cache.boundary_bits(i)));
      wids[n] = cache.word_id(i);
      rids[n] = cache.root_id(i);
      sids[n] = suffix_id(cache, i);
      index[b][slot++] = n;
      ++n;
    }
  }
  return batch;
}

BatchPrefetcher::BatchPrefetcher(const CacheReader& cache, const EpochPlan& plan, size_t first,
                                 int64_t max_word_len, bool skip_chunks, bool pin_memory,
                                 size_t depth)
    : cache_(cache),
      plan_(plan),
      next_build_(first),
      max_word_len_(max_word_len),
      skip_chunks_(skip_chunks),
      pin_memory_(pin_memory),
      depth_(std::max<size_t>(1, depth)) {
  worker_ = std::thread([this] { run(); });
}

BatchPrefetcher::~BatchPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void BatchPrefetcher::run() {
  while (true) {
    size_t k = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return stop_ || ready_.size() < depth_; });
      if (stop_ || next_build_ >= plan_.size()) {
        done_ = true;
        cv_.notify_all();
        return;
      }
      k = next_build_++;
    }
    model::MorpheusBatch batch;
    try {
      batch = make_batch(cache_, plan_[k], max_word_len_, skip_chunks_);
      if (pin_memory_) batch = batch.pin_memory();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      done_ = true;
      cv_.notify_all();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.push_back(std::move(batch));
    }
    cv_.notify_all();
  }
}

bool BatchPrefetcher::next(model::MorpheusBatch* batch) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !ready_.empty() || done_; });
  if (ready_.empty()) {
    if (error_) std::rethrow_exception(error_);
    return false;
  }
  *batch = std::move(ready_.front());
  ready_.pop_front();
  cv_.notify_all();
  return true;
}

}  // namespace morpheus::train
