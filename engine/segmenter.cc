// SPDX-License-Identifier: MIT
// EngineSegmenter: chunking, de-duplication, blocks over threads, pieces and embeddings.
#include "engine/segmenter.h"

#include <algorithm>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <utility>

#include "core/check.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::engine {
namespace {

std::vector<std::u32string> chunks_of(const std::u32string& cps, size_t step) {
  std::vector<std::u32string> chunks;
  for (size_t begin = 0; begin < cps.size(); begin += step)
    chunks.push_back(cps.substr(begin, step));
  return chunks;
}

// Pieces of a chunk: a cut after r characters where cuts[r] (1 <= r < size).
void append_pieces(const std::u32string& cps, const std::vector<uint8_t>& cuts,
                   std::vector<std::string>* pieces) {
  std::string current;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (i > 0 && cuts[i] != 0) {
      pieces->push_back(std::move(current));
      current.clear();
    }
    utf8::append(cps[i], current);
  }
  if (!current.empty()) pieces->push_back(std::move(current));
}

// Indices of `items` sorted by (size, text).
std::vector<size_t> sorted_order(const std::vector<std::u32string>& items) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const std::u32string &x = items[a], &y = items[b];
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  return order;
}

}  // namespace

EngineSegmenter::EngineSegmenter(std::shared_ptr<const Model> model, tokenizer::CharVocab chars,
                                 EngineSegmenterOptions options)
    : model_(std::move(model)),
      layout_(EmbeddingPooling::kMean, model_->dim),
      chars_(std::move(chars)),
      options_(options),
      threshold_(options.threshold > 0 ? options.threshold : model_->config().threshold),
      logit_threshold_(logit_of(threshold_)),
      model_logit_threshold_(logit_of(model_->config().threshold)),
      block_positions_(std::max(options.block_positions > 0
                                    ? options.block_positions
                                    : std::min<size_t>(8 * model_->dim, 2048),
                                model_->max_positions)) {
  MORPHEUS_CHECK(chars_.size() <= model_->vocab, "the char vocabulary has ", chars_.size(),
                 " symbols, the model ", model_->vocab);
  MORPHEUS_CHECK(threshold_ > 0 && threshold_ < 1, "threshold ", threshold_, " not in (0, 1)");
}

EngineSegmenter::~EngineSegmenter() = default;

StatusOr<std::unique_ptr<EngineSegmenter>> EngineSegmenter::load(const std::string& weights_path,
                                                                 const std::string& char_vocab_path,
                                                                 EngineSegmenterOptions options) {
  MORPHEUS_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::load(weights_path));
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::CharVocab chars,
                            tokenizer::CharVocab::load(char_vocab_path));
  if (static_cast<int64_t>(chars.size()) != model->config().char_vocab_size) {
    return data_loss(char_vocab_path + " has " + std::to_string(chars.size()) + " symbols, " +
                         weights_path + " was written for " +
                         std::to_string(model->config().char_vocab_size),
                     kWeightFileHint);
  }
  if (options.threshold < 0 || options.threshold >= 1) {
    return invalid_argument("threshold " + std::to_string(options.threshold) +
                            " is not in (0, 1) (0: the model's)");
  }
  return std::make_unique<EngineSegmenter>(std::move(model), std::move(chars), options);
}

EngineCounters EngineSegmenter::counters() const {
  return {words_.load(), chunks_.load(), rechecked_.load()};
}

std::unique_ptr<Forward> EngineSegmenter::acquire() const {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (pool_.empty()) return std::make_unique<Forward>(*model_);
  std::unique_ptr<Forward> forward = std::move(pool_.back());
  pool_.pop_back();
  return forward;
}

void EngineSegmenter::release(std::unique_ptr<Forward> forward) const {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  pool_.push_back(std::move(forward));
}

template <typename Fn>
void EngineSegmenter::for_each_block(size_t blocks, Fn fn) const {
  std::atomic<size_t> next{0};
  auto work = [&] {
    std::unique_ptr<Forward> forward = acquire();
    for (size_t b = next++; b < blocks; b = next++) fn(b, *forward);
    release(std::move(forward));
  };
  const size_t threads =
      std::min(std::max<size_t>(options_.threads, 1), std::max<size_t>(blocks, 1));
  std::vector<std::thread> others;
  for (size_t i = 1; i < threads; ++i) others.emplace_back(work);
  work();
  for (std::thread& t : others) t.join();
}

std::vector<size_t> EngineSegmenter::block_bounds(const std::vector<size_t>& positions) const {
  std::vector<size_t> bounds = {0};
  size_t used = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (used > 0 && used + positions[i] > block_positions_) {
      bounds.push_back(i);
      used = 0;
    }
    used += positions[i];
  }
  if (!positions.empty()) bounds.push_back(positions.size());
  return bounds;
}

WordIds EngineSegmenter::word_ids(const std::u32string& lower,
                                  const std::vector<uint8_t>& upper) const {
  WordIds w;
  w.ids.reserve(lower.size() + 2);
  w.ids.push_back(kBosId);
  for (char32_t c : lower) w.ids.push_back(static_cast<int32_t>(chars_.id(c)));
  w.ids.push_back(kEosId);
  w.cases.assign(w.ids.size(), 0);
  for (size_t i = 0; i < upper.size(); ++i) w.cases[i + 1] = upper[i];
  return w;
}

StatusOr<tokenizer::Segmentation> EngineSegmenter::segment(
    const std::vector<std::string>& words) const {
  // The distinct chunks of the request.
  std::vector<std::u32string> unique;
  std::unordered_map<std::u32string, size_t> index;
  std::vector<std::vector<size_t>> word_chunks(words.size());
  for (size_t w = 0; w < words.size(); ++w) {
    StatusOr<std::u32string> cps = utf8::decode(words[w]);
    if (!cps.ok()) {
      return invalid_argument("word " + std::to_string(w) +
                              " of the batch: " + cps.status().message());
    }
    for (std::u32string& chunk : chunks_of(*cps, max_chunk_chars())) {
      const auto [it, added] = index.emplace(chunk, unique.size());
      if (added) unique.push_back(std::move(chunk));
      word_chunks[w].push_back(it->second);
    }
  }
  const std::vector<size_t> order = sorted_order(unique);
  std::vector<WordIds> ids(order.size());
  std::vector<size_t> positions(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    ids[k] = word_ids(unique[order[k]], {});
    positions[k] = ids[k].positions();
  }
  const std::vector<size_t> bounds = block_bounds(positions);
  std::vector<std::vector<uint8_t>> cuts(unique.size());
  std::atomic<uint64_t> rechecked{0};
  for_each_block(bounds.size() - 1, [&](size_t b, Forward& forward) {
    std::vector<const WordIds*> block;
    for (size_t k = bounds[b]; k < bounds[b + 1]; ++k) block.push_back(&ids[k]);
    std::vector<float> logits;
    forward.gap_logits(block, &logits);
    size_t gap = 0;
    for (size_t k = bounds[b]; k < bounds[b + 1]; ++k) {
      const size_t chars = ids[k].positions() - 2;
      std::vector<uint8_t>& c = cuts[order[k]];
      c.assign(chars + 1, 0);
      if (decide_gaps(*model_, ids[k], &logits[gap], 1, chars, logit_threshold_, c.data())) {
        ++rechecked;
      }
      gap += chars + 1;
    }
  });
  words_ += words.size();
  chunks_ += unique.size();
  rechecked_ += rechecked.load();
  tokenizer::Segmentation out(words.size());
  for (size_t w = 0; w < words.size(); ++w) {
    for (size_t c : word_chunks[w]) append_pieces(unique[c], cuts[c], &out[w]);
  }
  return out;
}

Status EngineSegmenter::set_embedding_layout(const EmbeddingLayout& layout) {
  if (layout.parts().front().dim != model_->dim) {
    return invalid_argument("an embedding layout of width " +
                            std::to_string(layout.parts().front().dim) + " for a model of width " +
                            std::to_string(model_->dim));
  }
  layout_ = layout;
  return ok_status();
}

std::vector<float> EngineSegmenter::embed(const std::vector<std::string>& words) const {
  const size_t d = embedding_dim();
  std::vector<float> out(words.size() * d, 0.0f);
  std::vector<WordIds> items;
  std::vector<size_t> owner, chunk_count(words.size(), 0);
  for (size_t w = 0; w < words.size(); ++w) {
    StatusOr<std::u32string> cps = utf8::decode(words[w]);
    if (!cps.ok()) continue;
    for (const std::u32string& chunk : chunks_of(*cps, max_chunk_chars())) {
      std::u32string lower;
      std::vector<uint8_t> upper;
      for (char32_t c : chunk) {
        lower.push_back(unicode::to_lower(c));
        upper.push_back(lower.back() != c ? 1 : 0);
      }
      items.push_back(word_ids(lower, upper));
      owner.push_back(w);
      ++chunk_count[w];
    }
  }
  std::vector<size_t> order(items.size()), positions(items.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return items[a].positions() < items[b].positions(); });
  for (size_t k = 0; k < order.size(); ++k) positions[k] = items[order[k]].positions();
  const std::vector<size_t> bounds = block_bounds(positions);
  std::vector<float> rows(items.size() * d);
  std::atomic<uint64_t> rechecked{0};
  for_each_block(bounds.size() - 1, [&](size_t b, Forward& forward) {
    std::vector<const WordIds*> block;
    for (size_t k = bounds[b]; k < bounds[b + 1]; ++k) block.push_back(&items[order[k]]);
    std::vector<float> emb(block.size() * d);
    rechecked += forward.embeddings(block, model_logit_threshold_, layout_.pooling(), emb.data());
    for (size_t k = bounds[b]; k < bounds[b + 1]; ++k) {
      std::copy_n(&emb[(k - bounds[b]) * d], d, &rows[order[k] * d]);
    }
  });
  for (size_t i = 0; i < items.size(); ++i) {
    const float scale = 1.0f / static_cast<float>(chunk_count[owner[i]]);
    for (size_t e = 0; e < d; ++e) out[owner[i] * d + e] += scale * rows[i * d + e];
  }
  layout_.finish(out.data(), words.size());
  words_ += words.size();
  chunks_ += items.size();
  rechecked_ += rechecked.load();
  return out;
}

}  // namespace morpheus::engine
