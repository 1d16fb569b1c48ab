// SPDX-License-Identifier: MIT
// NeuralSegmenter: hard segmentation of lower-cased letter runs with the Morpheus model's
// final-layer boundary logits only (model::boundary_logits: CharEncoder + BoundaryDetector, the
// valid rows packed once on the CPU; no DP, no pooling), and word embeddings (the full model with
// hard boundaries). Words are de-duplicated, looked up in a bounded LRU cache, sorted by length
// and run in batches; runs longer than max_word_len − 2 characters are cut into chunks (a chunk
// end is always a piece boundary), never dropped.
#pragma once

#include <torch/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/embedding_layout.h"
#include "model/morpheus.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/segmenter.h"

namespace morpheus::infer {

struct NeuralSegmenterOptions {
  size_t cache_capacity = 1 << 20;  // distinct chunks kept (LRU); 0 disables the cache
  // N·T positions per model call; 0: on the CPU sized for its cache, 2^18 / char_dim (4,096 for
  // the tiny model, 819 for the paper one: 1.1–1.7× the words/s of 32K, bench/inference_bench);
  // on CUDA 2^24 / char_dim, so that a call is not bound by kernel launches.
  int64_t max_batch_chars = 0;
  // Hard boundary when p > threshold, for segmentation only (embeddings keep the model's
  // model.threshold); 0: the model's own.
  double threshold = 0;
  // Where the model runs (model::resolve_device of --device auto|cpu|cuda[:N]); inputs are built
  // on the CPU and moved there, every result comes back to the CPU.
  torch::Device device = torch::kCPU;
  // Segmentation with the model's Linear layers in dynamic int8 (model/linear.h; CPU only,
  // embeddings stay in float). A chunk whose int8 gap logits come within the guard of the
  // threshold's logit is run again in float, so int8 flips a decision only where its error
  // exceeds the guard. The guard is int8_guard, raised when int8_calibrate to twice the largest
  // |int8 − float| gap logit on the first chunks the segmenter runs (up to 2,048, run in both).
  bool int8 = false;
  double int8_guard = 0;
  bool int8_calibrate = true;
  // Segmentation only: a chunk whose gap logits come within close_call_margin of the threshold's
  // logit is cut by this segmenter instead (the torch-free engine, which defines the tokenizer's
  // segmentation: so a GPU gives the engine's pieces; engine/segmenter.h).
  std::shared_ptr<const tokenizer::Segmenter> close_calls;
  double close_call_margin = 0.01;
  // The layout of embed's rows (engine/embedding_layout.h; a directory's "embedding" entry).
  engine::EmbeddingPooling embedding = engine::EmbeddingPooling::kMean;
  double inflection_weight = engine::EmbeddingLayout::kDefaultInflectionWeight;
};

// Registry name "morpheus-model" (tokenizer/segmenter.h; registered by infer/tokenizer_model.h).
// Its pieces are the model's; the root snap is the tokenizer's next stage (tokenizer/tokenizer.h).
class NeuralSegmenter : public tokenizer::Segmenter {
 public:
  // `model` is switched to eval mode and moved to options.device; `chars` maps lower-case
  // characters to model char ids.
  NeuralSegmenter(model::Morpheus model, tokenizer::CharVocab chars,
                  NeuralSegmenterOptions options = {});
  ~NeuralSegmenter() override;
  NeuralSegmenter(const NeuralSegmenter&) = delete;
  NeuralSegmenter& operator=(const NeuralSegmenter&) = delete;

  // Pieces of one lower-cased word (valid UTF-8); their concatenation is `word`. Empty word ->
  // no pieces. Thread-safe.
  std::vector<std::string> segment(std::string_view word) const;
  // Pieces of every word (aligned with `words`): de-duplicated, cached, sorted by length and
  // batched. Memory is proportional to the request. Thread-safe.
  std::vector<std::vector<std::string>> segment_many(const std::vector<std::string>& words) const;
  // Segmenter: segment_many (never fails).
  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& words) const override {
    return segment_many(words);
  }
  std::string name() const override { return "morpheus-model"; }
  // The model's boundary probability at every gap of each lower-cased word (aligned with
  // `words`; entry r − 1 is the gap after r code points, r in [1, length)), in float, uncached,
  // before the threshold; a gap between two chunks is 1 (always a cut).
  std::vector<std::vector<float>> boundary_probabilities(
      const std::vector<std::string>& words) const;
  // Smallest |logit − logit(threshold)| over the gaps of `word` (its chunks), computed alone:
  // how far the segmentation is from flipping. +inf for words of one character.
  float decision_margin(std::string_view word) const;

  // Word vectors [N, embedding_dim()] float32 on the CPU (whatever options.device is) in the
  // layout of embedding_layout(), as the engine computes them: the full model with hard
  // boundaries on each word in its original case (case flags); a word longer than the model's
  // length is the mean of its chunks' raw vectors. Empty words get a zero row.
  torch::Tensor embed(const std::vector<std::string>& words) const;
  const engine::EmbeddingLayout& embedding_layout() const { return layout_; }

  int64_t max_chunk_chars() const { return max_chunk_; }
  const torch::Device& device() const { return options_.device; }
  int64_t embedding_dim() const;
  // Chunks run through the model (int8 rechecks and calibration included) / answered from the
  // cache since construction.
  uint64_t model_chunks() const;
  uint64_t cache_hits() const;
  const model::ModelConfig& config() const;
  // OK unless options.int8 was asked for and the model could not be packed (the segmenter then
  // runs in float); int8() says whether segmentation runs in int8.
  const Status& int8_status() const { return int8_status_; }
  bool int8() const { return int8_; }
  // Chunks the int8 path sent back to float (within the guard) since construction.
  uint64_t int8_rechecks() const;
  // Chunks options.close_calls decided since construction.
  uint64_t close_calls() const { return close_calls_.load(); }
  // The guard in use (after calibration; options.int8_guard before the first int8 batch).
  double int8_guard() const;

 private:
  struct Cache;
  // Model outputs at the gaps of one chunk: index r (1 <= r < length) is the gap after r
  // characters; index 0 is unused.
  struct GapScores {
    std::vector<float> logit, prob;
  };
  // Cut flags of each lower-cased chunk (code points, length <= max_chunk_): cuts[i][r] for
  // 1 <= r < len says whether there is a boundary after r characters. margins (optional)
  // receives each chunk's smallest logit distance to the threshold.
  void run_boundaries(const std::vector<const std::u32string*>& chunks,
                      std::vector<std::vector<uint8_t>>* cuts, std::vector<float>* margins) const;
  // The model's gap scores of every chunk in one precision (int8 when `int8`), in batches of
  // chunks sorted by length.
  std::vector<GapScores> gap_scores(const std::vector<const std::u32string*>& chunks,
                                    bool int8) const;
  // Smallest |logit − logit(threshold)| over the gaps of one chunk (+inf without gaps).
  float margin_of(const GapScores& scores) const;
  // The int8 pass's close calls (margin under the guard) scored again in float, in place; the
  // first call also calibrates the guard on its chunks.
  void recheck_close_calls(const std::vector<const std::u32string*>& chunks,
                           std::vector<GapScores>* scores) const;
  std::vector<std::u32string> chunks_of(const std::u32string& cps) const;
  // Cuts of the chunks `close` (indices into `chunks`) from options_.close_calls, in place.
  void decide_close_calls(const std::vector<const std::u32string*>& chunks,
                          const std::vector<size_t>& close,
                          std::vector<std::vector<uint8_t>>* cuts) const;

  // The raw word vectors (before EmbeddingLayout::finish) of a batch: ids, cases [n,T] on the
  // device -> [n, embedding_dim()] there.
  torch::Tensor raw_vectors(const torch::Tensor& ids, const torch::Tensor& cases) const;

  mutable model::Morpheus model_;
  tokenizer::CharVocab chars_;
  NeuralSegmenterOptions options_;
  engine::EmbeddingLayout layout_;
  int64_t max_chunk_;
  int64_t batch_chars_;
  double threshold_;
  double logit_threshold_;
  Status int8_status_;
  bool int8_ = false;
  std::unique_ptr<Cache> cache_;
  mutable std::atomic<uint64_t> close_calls_{0};
};

}  // namespace morpheus::infer
