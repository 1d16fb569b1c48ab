// SPDX-License-Identifier: MIT
// NeuralSegmenter: batched, cached hard segmentation and embedding with the Morpheus model.
#include "infer/neural_segmenter.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/check.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "model/linear.h"
#include "model/packed_inference.h"
#include "model/runtime.h"

namespace morpheus::infer {

struct NeuralSegmenter::Cache {
  using Entry = std::pair<std::u32string, std::vector<uint8_t>>;
  std::mutex mutex;
  std::list<Entry> lru;  // front = most recent
  std::unordered_map<std::u32string, std::list<Entry>::iterator> index;
  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> model_chunks{0};
  std::atomic<uint64_t> int8_rechecks{0};
  std::once_flag calibrated;  // int8 guard, set once by the first int8 batch
  double guard = 0;

  bool get(const std::u32string& key, std::vector<uint8_t>* cuts) {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = index.find(key);
    if (it == index.end()) return false;
    lru.splice(lru.begin(), lru, it->second);
    *cuts = it->second->second;
    return true;
  }
  void put(const std::u32string& key, const std::vector<uint8_t>& cuts, size_t capacity) {
    if (capacity == 0) return;
    std::lock_guard<std::mutex> lock(mutex);
    if (index.count(key) != 0) return;
    lru.emplace_front(key, cuts);
    index.emplace(key, lru.begin());
    while (lru.size() > capacity) {
      index.erase(lru.back().first);
      lru.pop_back();
    }
  }
};

namespace {

std::u32string decode_or_empty(std::string_view s) {
  StatusOr<std::u32string> cps = utf8::decode(s);
  return cps.ok() ? std::move(*cps) : std::u32string();
}

std::vector<std::string> pieces_from_cuts(const std::u32string& cps,
                                          const std::vector<uint8_t>& cuts) {
  std::vector<std::string> pieces;
  std::string current;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (i > 0 && cuts[i] != 0) {
      pieces.push_back(std::move(current));
      current.clear();
    }
    utf8::append(cps[i], current);
  }
  if (!current.empty()) pieces.push_back(std::move(current));
  return pieces;
}

// N·T positions per model call: sized for the CPU's cache, or on a GPU large enough that a call
// is not bound by kernel launches (2^24 / char_dim: 52,428 positions for the paper model).
int64_t default_batch_chars(int64_t char_dim, const torch::Device& device) {
  const int64_t budget = device.is_cuda() ? (int64_t{1} << 24) : (int64_t{1} << 18);
  return std::max<int64_t>(256, budget / char_dim);
}

}  // namespace

NeuralSegmenter::NeuralSegmenter(model::Morpheus model, tokenizer::CharVocab chars,
                                 NeuralSegmenterOptions options)
    : model_(std::move(model)),
      chars_(std::move(chars)),
      options_(options),
      layout_(options.embedding, static_cast<size_t>(model_->config.char_dim),
              options.inflection_weight),
      max_chunk_(model_->config.max_word_len - 2),
      batch_chars_(options.max_batch_chars > 0
                       ? options.max_batch_chars
                       : default_batch_chars(model_->config.char_dim, options.device)),
      threshold_(options.threshold > 0 ? options.threshold : model_->config.threshold),
      logit_threshold_(std::log(threshold_ / (1.0 - threshold_))),
      cache_(std::make_unique<Cache>()) {
  model_->eval();
  model_->to(options_.device);
  model::configure_inference_device(options_.device);  // full float: no TF32 (cuDNN's either)
  MORPHEUS_CHECK(max_chunk_ >= 1, "max_word_len must leave room for BOS and EOS");
  if (options_.int8 && options_.device.is_cpu()) {
    const StatusOr<int> packed = model::quantize_dynamic_int8(*model_);
    int8_status_ = packed.status();
    int8_ = packed.ok();
  } else if (options_.int8) {
    int8_status_ =
        invalid_argument("int8 segmentation runs on the CPU only, not on " + options_.device.str(),
                         "int8 = false on this device");
  }
}

NeuralSegmenter::~NeuralSegmenter() = default;

int64_t NeuralSegmenter::embedding_dim() const { return static_cast<int64_t>(layout_.dim()); }
uint64_t NeuralSegmenter::model_chunks() const { return cache_->model_chunks.load(); }
uint64_t NeuralSegmenter::cache_hits() const { return cache_->hits.load(); }
uint64_t NeuralSegmenter::int8_rechecks() const { return cache_->int8_rechecks.load(); }
double NeuralSegmenter::int8_guard() const { return cache_->guard; }
const model::ModelConfig& NeuralSegmenter::config() const { return model_->config; }

std::vector<std::u32string> NeuralSegmenter::chunks_of(const std::u32string& cps) const {
  std::vector<std::u32string> chunks;
  const size_t step = static_cast<size_t>(max_chunk_);
  for (size_t begin = 0; begin < cps.size(); begin += step) {
    chunks.push_back(cps.substr(begin, step));
  }
  return chunks;
}

void NeuralSegmenter::run_boundaries(const std::vector<const std::u32string*>& chunks,
                                     std::vector<std::vector<uint8_t>>* cuts,
                                     std::vector<float>* margins) const {
  std::vector<GapScores> scores = gap_scores(chunks, int8_);
  if (int8_) recheck_close_calls(chunks, &scores);
  cuts->assign(chunks.size(), {});
  if (margins != nullptr) margins->assign(chunks.size(), 0);
  std::vector<size_t> close;  // chunks the close-call segmenter decides
  for (size_t i = 0; i < chunks.size(); ++i) {
    const std::vector<float>& prob = scores[i].prob;
    std::vector<uint8_t>& c = (*cuts)[i];
    c.assign(chunks[i]->size(), 0);
    for (size_t r = 1; r < c.size(); ++r) c[r] = prob[r] > threshold_ ? 1 : 0;
    const float margin = margin_of(scores[i]);
    if (margins != nullptr) (*margins)[i] = margin;
    if (options_.close_calls && margin < options_.close_call_margin) close.push_back(i);
  }
  if (!close.empty()) decide_close_calls(chunks, close, cuts);
}

void NeuralSegmenter::decide_close_calls(const std::vector<const std::u32string*>& chunks,
                                         const std::vector<size_t>& close,
                                         std::vector<std::vector<uint8_t>>* cuts) const {
  std::vector<std::string> words;
  words.reserve(close.size());
  for (size_t i : close) words.push_back(utf8::encode(*chunks[i]));
  StatusOr<tokenizer::Segmentation> pieces = options_.close_calls->segment(words);
  MORPHEUS_CHECK(pieces.ok() && pieces->size() == close.size(),
                 "the close-call segmenter failed on valid chunks");
  for (size_t k = 0; k < close.size(); ++k) {
    std::vector<uint8_t>& c = (*cuts)[close[k]];
    std::fill(c.begin(), c.end(), 0);
    size_t at = 0;
    for (const std::string& p : (*pieces)[k]) {
      at += utf8::length(p);
      if (at < c.size()) c[at] = 1;
    }
  }
  close_calls_ += close.size();
}

float NeuralSegmenter::margin_of(const GapScores& scores) const {
  float margin = std::numeric_limits<float>::infinity();
  for (size_t r = 1; r < scores.logit.size(); ++r) {
    margin = std::min(margin, static_cast<float>(std::fabs(scores.logit[r] - logit_threshold_)));
  }
  return margin;
}

void NeuralSegmenter::recheck_close_calls(const std::vector<const std::u32string*>& chunks,
                                          std::vector<GapScores>* scores) const {
  std::call_once(cache_->calibrated, [&] {
    double guard = options_.int8_guard;
    if (options_.int8_calibrate) {
      const size_t n = std::min<size_t>(chunks.size(), 2048);
      const std::vector<const std::u32string*> sample(chunks.begin(),
                                                      chunks.begin() + static_cast<ptrdiff_t>(n));
      const std::vector<GapScores> exact = gap_scores(sample, false);
      float worst = 0;
      for (size_t i = 0; i < n; ++i) {
        for (size_t r = 1; r < exact[i].logit.size(); ++r) {
          worst = std::max(worst, std::fabs(exact[i].logit[r] - (*scores)[i].logit[r]));
        }
      }
      guard = std::max(guard, 2.0 * static_cast<double>(worst));
    }
    cache_->guard = guard;
  });
  std::vector<size_t> close;
  std::vector<const std::u32string*> again;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (margin_of((*scores)[i]) < cache_->guard) {
      close.push_back(i);
      again.push_back(chunks[i]);
    }
  }
  if (close.empty()) return;
  std::vector<GapScores> exact = gap_scores(again, false);
  for (size_t k = 0; k < close.size(); ++k) (*scores)[close[k]] = std::move(exact[k]);
  cache_->int8_rechecks += close.size();
}

std::vector<NeuralSegmenter::GapScores> NeuralSegmenter::gap_scores(
    const std::vector<const std::u32string*>& chunks, bool int8) const {
  std::vector<GapScores> scores(chunks.size());
  // Sort by length so a batch pads little; batches are bounded by N·T positions.
  std::vector<size_t> order(chunks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return chunks[a]->size() < chunks[b]->size(); });
  c10::InferenceMode inference;
  const model::Int8Scope precision(int8);
  size_t pos = 0;
  while (pos < order.size()) {
    // Longest chunk of the batch is its last one (sorted); grow while N·T fits.
    size_t end = pos + 1;
    while (end < order.size() && static_cast<int64_t>(end + 1 - pos) *
                                         static_cast<int64_t>(chunks[order[end]]->size() + 2) <=
                                     batch_chars_) {
      ++end;
    }
    const int64_t n = static_cast<int64_t>(end - pos);
    const int64_t t = static_cast<int64_t>(chunks[order[end - 1]]->size()) + 2;
    torch::Tensor ids = torch::zeros({n, t}, torch::kLong);
    auto acc = ids.accessor<int64_t, 2>();
    for (int64_t k = 0; k < n; ++k) {
      const std::u32string& chunk = *chunks[order[pos + static_cast<size_t>(k)]];
      acc[k][0] = model::kBosId;
      for (size_t j = 0; j < chunk.size(); ++j) {
        acc[k][static_cast<int64_t>(j) + 1] = static_cast<int64_t>(chars_.id(chunk[j]));
      }
      acc[k][static_cast<int64_t>(chunk.size()) + 1] = model::kEosId;
    }
    ids = ids.to(options_.device);
    const torch::Tensor mask = ids.ne(model::kPadId);
    const torch::Tensor logits =
        model::boundary_logits(model_, ids, mask).to(torch::kCPU, torch::kFloat).contiguous();
    const torch::Tensor probs = torch::sigmoid(logits);
    auto lacc = logits.accessor<float, 2>();
    auto pacc = probs.accessor<float, 2>();
    for (int64_t k = 0; k < n; ++k) {
      GapScores& out = scores[order[pos + static_cast<size_t>(k)]];
      const int64_t len = static_cast<int64_t>(chunks[order[pos + static_cast<size_t>(k)]]->size());
      out.logit.assign(static_cast<size_t>(std::max<int64_t>(len, 1)), 0.0f);
      out.prob.assign(out.logit.size(), 0.0f);
      for (int64_t r = 1; r < len; ++r) {
        out.logit[static_cast<size_t>(r)] = lacc[k][r];
        out.prob[static_cast<size_t>(r)] = pacc[k][r];
      }
    }
    cache_->model_chunks += static_cast<uint64_t>(n);
    pos = end;
  }
  return scores;
}

std::vector<std::vector<std::string>> NeuralSegmenter::segment_many(
    const std::vector<std::string>& words) const {
  // Distinct chunks of the request; each resolved once (cache or model).
  std::unordered_map<std::u32string, std::vector<uint8_t>> resolved;
  std::vector<std::u32string> todo;
  std::vector<std::vector<std::u32string>> word_chunks(words.size());
  std::vector<std::u32string> word_cps(words.size());
  for (size_t w = 0; w < words.size(); ++w) {
    word_cps[w] = decode_or_empty(words[w]);
    word_chunks[w] = chunks_of(word_cps[w]);
    for (const std::u32string& chunk : word_chunks[w]) {
      if (resolved.count(chunk) != 0) continue;
      std::vector<uint8_t> cuts;
      if (cache_->get(chunk, &cuts)) {
        ++cache_->hits;
        resolved.emplace(chunk, std::move(cuts));
      } else {
        resolved.emplace(chunk, std::vector<uint8_t>());
        todo.push_back(chunk);
      }
    }
  }
  if (!todo.empty()) {
    std::vector<const std::u32string*> ptrs;
    ptrs.reserve(todo.size());
    for (const std::u32string& c : todo) ptrs.push_back(&c);
    std::vector<std::vector<uint8_t>> cuts;
    run_boundaries(ptrs, &cuts, nullptr);
    for (size_t i = 0; i < todo.size(); ++i) {
      cache_->put(todo[i], cuts[i], options_.cache_capacity);
      resolved[todo[i]] = std::move(cuts[i]);
    }
  }
  std::vector<std::vector<std::string>> out(words.size());
  for (size_t w = 0; w < words.size(); ++w) {
    for (const std::u32string& chunk : word_chunks[w]) {
      std::vector<std::string> pieces = pieces_from_cuts(chunk, resolved.at(chunk));
      for (std::string& p : pieces) out[w].push_back(std::move(p));
    }
  }
  return out;
}

std::vector<std::string> NeuralSegmenter::segment(std::string_view word) const {
  return segment_many({std::string(word)})[0];
}

std::vector<std::vector<float>> NeuralSegmenter::boundary_probabilities(
    const std::vector<std::string>& words) const {
  std::vector<std::vector<std::u32string>> word_chunks(words.size());
  std::vector<const std::u32string*> ptrs;
  for (size_t w = 0; w < words.size(); ++w) {
    word_chunks[w] = chunks_of(decode_or_empty(words[w]));
  }
  for (const auto& chunks : word_chunks) {
    for (const std::u32string& chunk : chunks) ptrs.push_back(&chunk);
  }
  const std::vector<GapScores> scores = gap_scores(ptrs, false);
  std::vector<std::vector<float>> out(words.size());
  size_t next = 0;
  for (size_t w = 0; w < words.size(); ++w) {
    for (size_t c = 0; c < word_chunks[w].size(); ++c, ++next) {
      if (c > 0) out[w].push_back(1.0f);
      const std::vector<float>& prob = scores[next].prob;
      for (size_t r = 1; r < word_chunks[w][c].size(); ++r) out[w].push_back(prob[r]);
    }
  }
  return out;
}

float NeuralSegmenter::decision_margin(std::string_view word) const {
  const std::vector<std::u32string> chunks = chunks_of(decode_or_empty(word));
  float margin = std::numeric_limits<float>::infinity();
  for (const std::u32string& chunk : chunks) {
    std::vector<std::vector<uint8_t>> cuts;
    std::vector<float> margins;
    run_boundaries({&chunk}, &cuts, &margins);
    margin = std::min(margin, margins[0]);
  }
  return margin;
}

torch::Tensor NeuralSegmenter::embed(const std::vector<std::string>& words) const {
  const int64_t dim = embedding_dim();
  torch::Tensor out = torch::zeros({static_cast<int64_t>(words.size()), dim}, torch::kFloat);
  // Every chunk of every word, with its owner and case flags.
  struct Item {
    size_t word;
    std::u32string lower;
    std::vector<uint8_t> upper;
  };
  std::vector<Item> items;
  std::vector<int64_t> chunk_count(words.size(), 0);
  for (size_t w = 0; w < words.size(); ++w) {
    const std::u32string cps = decode_or_empty(words[w]);
    for (const std::u32string& chunk : chunks_of(cps)) {
      Item item{w, {}, {}};
      for (char32_t c : chunk) {
        const char32_t lower = unicode::to_lower(c);
        item.lower.push_back(lower);
        item.upper.push_back(lower != c ? 1 : 0);
      }
      items.push_back(std::move(item));
      ++chunk_count[w];
    }
  }
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return items[a].lower.size() < items[b].lower.size();
  });
  c10::InferenceMode inference;
  auto oacc = out.accessor<float, 2>();
  size_t pos = 0;
  while (pos < order.size()) {
    size_t end = pos + 1;
    while (end < order.size() && static_cast<int64_t>(end + 1 - pos) *
                                         static_cast<int64_t>(items[order[end]].lower.size() + 2) <=
                                     batch_chars_) {
      ++end;
    }
    const int64_t n = static_cast<int64_t>(end - pos);
    const int64_t t = static_cast<int64_t>(items[order[end - 1]].lower.size()) + 2;
    torch::Tensor ids = torch::zeros({n, t}, torch::kLong);
    torch::Tensor cases = torch::zeros({n, t}, torch::kLong);
    auto iacc = ids.accessor<int64_t, 2>();
    auto cacc = cases.accessor<int64_t, 2>();
    for (int64_t k = 0; k < n; ++k) {
      const Item& item = items[order[pos + static_cast<size_t>(k)]];
      iacc[k][0] = model::kBosId;
      for (size_t j = 0; j < item.lower.size(); ++j) {
        iacc[k][static_cast<int64_t>(j) + 1] = static_cast<int64_t>(chars_.id(item.lower[j]));
        cacc[k][static_cast<int64_t>(j) + 1] = item.upper[j];
      }
      iacc[k][static_cast<int64_t>(item.lower.size()) + 1] = model::kEosId;
    }
    const torch::Tensor emb = raw_vectors(ids.to(options_.device), cases.to(options_.device))
                                  .to(torch::kCPU, torch::kFloat)
                                  .contiguous();
    auto eacc = emb.accessor<float, 2>();
    for (int64_t k = 0; k < n; ++k) {
      const size_t w = items[order[pos + static_cast<size_t>(k)]].word;
      const float scale = 1.0f / static_cast<float>(chunk_count[w]);
      for (int64_t d = 0; d < dim; ++d) oacc[static_cast<int64_t>(w)][d] += scale * eacc[k][d];
    }
    pos = end;
  }
  layout_.finish(out.data_ptr<float>(), words.size());
  return out;
}

torch::Tensor NeuralSegmenter::raw_vectors(const torch::Tensor& ids,
                                           const torch::Tensor& cases) const {
  const model::MorpheusOutput out = model_->forward(ids, cases, true);
  if (layout_.pooling() == engine::EmbeddingPooling::kMean) return out.word_embeddings;
  const torch::Tensor inputs =
      model::root_inflection_inputs(out.char_hidden, out.membership, out.mask,
                                    out.segment_embeddings, out.segment_mask);  // [n,3,D]
  return model_->segment_encoder->fuse(inputs.reshape({-1, inputs.size(2)}))
      .reshape({inputs.size(0), -1});
}

}  // namespace morpheus::infer
