// SPDX-License-Identifier: MIT
// Embedding in blocks and blocked exact cosine top-k (infer/word_vectors.h).
#include "infer/word_vectors.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>

namespace morpheus::infer {
namespace {

using embed::Neighbor;

// Better = higher score, then lower row.
bool better(const Neighbor& a, const Neighbor& b) {
  return a.score != b.score ? a.score > b.score : a.row < b.row;
}

// The k best of one row of scores (the rows in `skip` left out), best first.
std::vector<Neighbor> top_k(const float* scores, int64_t n, const std::vector<int64_t>& skip,
                            size_t k) {
  std::vector<Neighbor> heap;  // the worst kept neighbour at the front
  heap.reserve(k + 1);
  for (int64_t i = 0; i < n && k > 0; ++i) {
    const Neighbor c{i, scores[i]};
    if (heap.size() == k && !better(c, heap.front())) continue;
    if (std::find(skip.begin(), skip.end(), i) != skip.end()) continue;
    heap.push_back(c);
    std::push_heap(heap.begin(), heap.end(), better);
    if (heap.size() > k) {
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.pop_back();
    }
  }
  std::sort_heap(heap.begin(), heap.end(), better);
  return heap;
}

}  // namespace

torch::Tensor embed_words(const infer::NeuralSegmenter& seg, const std::vector<std::string>& words,
                          size_t block) {
  std::vector<torch::Tensor> parts;
  block = std::max<size_t>(1, block);
  for (size_t b = 0; b < words.size(); b += block) {
    const std::vector<std::string> part(
        words.begin() + static_cast<std::ptrdiff_t>(b),
        words.begin() + static_cast<std::ptrdiff_t>(std::min(words.size(), b + block)));
    parts.push_back(seg.embed(part));
  }
  if (parts.empty()) return torch::zeros({0, seg.embedding_dim()}, torch::kFloat);
  return torch::cat(parts, 0).contiguous();
}

std::vector<std::vector<Neighbor>> cosine_neighbors(
    const torch::Tensor& candidates, const torch::Tensor& queries,
    const std::vector<std::vector<int64_t>>& exclude, size_t k, int64_t block) {
  const auto unit = torch::nn::functional::NormalizeFuncOptions().dim(1);
  const torch::Tensor emb = torch::nn::functional::normalize(candidates, unit);
  const int64_t n = emb.size(0);
  const int64_t nq = queries.size(0);
  std::vector<std::vector<Neighbor>> out(static_cast<size_t>(nq));
  const std::vector<int64_t> none;
  for (int64_t b = 0; b < nq; b += std::max<int64_t>(1, block)) {
    const int64_t e = std::min(nq, b + std::max<int64_t>(1, block));
    const torch::Tensor q = torch::nn::functional::normalize(queries.slice(0, b, e), unit);
    const torch::Tensor scores = torch::matmul(q, emb.t()).contiguous();  // [e-b, V]
    const float* s = scores.data_ptr<float>();
    at::parallel_for(b, e, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const auto row = static_cast<size_t>(i);
        out[row] = top_k(s + (i - b) * n, n, row < exclude.size() ? exclude[row] : none, k);
      }
    });
  }
  return out;
}

}  // namespace morpheus::infer
