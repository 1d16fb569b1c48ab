// SPDX-License-Identifier: MIT
// EngineSegmenter: the Morpheus model on the engine, torch-free. Cuts lower-cased letter runs into
// pieces (the boundary logits of the final detector layer against a threshold) and embeds words in
// their original case, as infer::NeuralSegmenter does on LibTorch: the same character mapping
// (tokenizer::CharVocab), BOS/EOS, runs longer than max_word_len − 2 code points cut into chunks
// whose ends are always piece boundaries, the same embeddings (chunk means).
//
// Determinism: a word's pieces depend on the word alone, not on the batch, its neighbours, the
// thread count or the machine (the decision rule of engine/forward.h). Within one call, words are
// de-duplicated, sorted by (length, text) and cut into blocks that do not depend on the thread
// count, so any thread count gives the same bits.
//   segment({"evlerde", "kitap"}) -> {{"ev", "ler", "de"}, {"kitap"}}
//   embed(words) -> [N·embedding_dim()] row-major float32 (engine/embedding_layout.h)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/embedding_layout.h"
#include "engine/forward.h"
#include "engine/model.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/segmenter.h"

namespace morpheus::engine {

struct EngineSegmenterOptions {
  // Hard boundary when p > threshold, for segmentation only (embeddings keep the model's
  // threshold); 0: the model's own.
  double threshold = 0;
  // Threads per call (the calling thread and threads − 1 others); 0 counts as 1.
  size_t threads = 1;
  // Positions per block of words run together (the row count of its matrix products); 0: 8·D,
  // at most 2,048 (512 for the tiny model, 2,048 for the paper one: the fastest on
  // bench/engine_bench), at least max_word_len. Each thread's buffers take about
  // block_positions·(window + 10)·D floats (window: the span of the convolutions; 42 MB for the
  // paper model's default).
  size_t block_positions = 0;
};

// Words and chunks processed, and chunks decided again in double precision, since construction.
struct EngineCounters {
  uint64_t words = 0;
  uint64_t chunks = 0;
  uint64_t rechecked = 0;
};

class EngineSegmenter : public tokenizer::Segmenter {
 public:
  // `chars` maps lower-case characters to the model's char ids; it must have at most
  // vocab_size symbols (throws InternalError otherwise; load() checks it as a Status).
  EngineSegmenter(std::shared_ptr<const Model> model, tokenizer::CharVocab chars,
                  EngineSegmenterOptions options = {});
  ~EngineSegmenter() override;
  EngineSegmenter(const EngineSegmenter&) = delete;
  EngineSegmenter& operator=(const EngineSegmenter&) = delete;

  // The weight file and char_vocab.json (of a tokenizer directory); the vocabulary must have the
  // model's vocab_size symbols (DATA_LOSS otherwise).
  static StatusOr<std::unique_ptr<EngineSegmenter>> load(const std::string& weights_path,
                                                         const std::string& char_vocab_path,
                                                         EngineSegmenterOptions options = {});

  // Pieces of each lower-cased word (valid UTF-8; INVALID_ARGUMENT naming the word otherwise),
  // aligned with `words`; an empty word has no pieces. Thread-safe.
  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& words) const override;
  std::string name() const override { return "morpheus-engine"; }

  // Word vectors [N, embedding_dim()] row-major in the layout of embedding_layout(): the full
  // model with hard boundaries (the model's threshold) on each word in its original case; a word
  // longer than the model's length is the mean of its chunks' raw vectors; an empty or invalid
  // word gets a zero row. Thread-safe.
  std::vector<float> embed(const std::vector<std::string>& words) const;

  // The layout of embed's rows: "mean" (one part) unless set. Set it once, before the segmenter
  // is shared (load_directory_model sets the directory's); INVALID_ARGUMENT when its width is not
  // the model's.
  Status set_embedding_layout(const EmbeddingLayout& layout);
  const EmbeddingLayout& embedding_layout() const { return layout_; }
  size_t embedding_dim() const { return layout_.dim(); }
  size_t max_chunk_chars() const { return model_->max_positions - 2; }
  double threshold() const { return threshold_; }
  const Model& model() const { return *model_; }
  EngineCounters counters() const;

 private:
  // Runs fn(block, forward) for every block index on options_.threads threads.
  template <typename Fn>
  void for_each_block(size_t blocks, Fn fn) const;
  // Blocks of consecutive items (positions each) of at most block_positions_ positions.
  std::vector<size_t> block_bounds(const std::vector<size_t>& positions) const;
  std::unique_ptr<Forward> acquire() const;
  void release(std::unique_ptr<Forward> forward) const;
  WordIds word_ids(const std::u32string& lower, const std::vector<uint8_t>& upper) const;

  std::shared_ptr<const Model> model_;
  EmbeddingLayout layout_;
  tokenizer::CharVocab chars_;
  EngineSegmenterOptions options_;
  double threshold_;
  double logit_threshold_;
  double model_logit_threshold_;
  size_t block_positions_;
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<Forward>> pool_;
  mutable std::atomic<uint64_t> words_{0}, chunks_{0}, rechecked_{0};
};

}  // namespace morpheus::engine
