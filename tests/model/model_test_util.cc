// SPDX-License-Identifier: MIT
// Finite-difference gradient check and synthetic batches for the model tests.
#include "tests/model/model_test_util.h"

#include <algorithm>
#include <random>
#include <vector>

namespace morpheus::testing {

double max_gradient_error(const std::function<torch::Tensor(const torch::Tensor&)>& f,
                          const torch::Tensor& x, double eps) {
  TORCH_CHECK(x.dtype() == torch::kDouble, "gradient checks run in double");
  torch::Tensor probe = f(x.detach());
  torch::manual_seed(4321);
  torch::Tensor w = torch::randn(probe.sizes(), probe.options());
  torch::Tensor xv = x.detach().clone().requires_grad_(true);
  torch::Tensor loss = (f(xv) * w).sum();
  torch::Tensor analytic = torch::autograd::grad({loss}, {xv})[0].flatten();
  torch::Tensor base = x.detach().clone();
  torch::Tensor flat = base.view({-1});
  double worst = 0.0;
  torch::NoGradGuard no_grad;
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const double orig = flat[i].item<double>();
    flat[i] = orig + eps;
    const double up = (f(base) * w).sum().item<double>();
    flat[i] = orig - eps;
    const double down = (f(base) * w).sum().item<double>();
    flat[i] = orig;
    const double numeric = (up - down) / (2 * eps);
    worst = std::max(worst, std::abs(numeric - analytic[i].item<double>()));
  }
  return worst;
}

model::ModelConfig tiny_test_config() {
  model::ModelConfig c;
  c.char_dim = 16;
  c.char_embed_dim = 8;
  c.case_embed_dim = 4;
  c.n_layers_encoder = 1;
  c.n_layers_detector = 2;
  c.depth_weights = {0.925, 1.0};
  c.num_heads = 2;
  c.cnn_kernels = {2, 3, 4, 5};
  c.cnn_channels = 4;
  c.max_word_len = 32;
  c.max_sent_len = 16;
  c.max_segs = 6;
  c.dropout = 0.0;
  c.word_vocab_size = 50;
  c.root_vocab_size = 10;
  c.mlm_ctx_layers = 1;
  c.mlm_dec_layers = 1;
  c.sgns_n_negatives = 4;
  c.sgns_window = 2;
  return c;
}

model::MorpheusBatch synthetic_batch(const model::ModelConfig& config, int64_t sentences,
                                     int64_t words_per_sentence, int64_t max_chars, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int64_t n = sentences * words_per_sentence, t = max_chars + 2;
  model::MorpheusBatch b;
  b.char_ids = torch::zeros({n, t}, torch::kLong);
  b.case_flags = torch::zeros({n, t}, torch::kLong);
  b.boundary_labels = torch::zeros({n, t - 1});
  b.confidence = torch::ones({n});
  b.word_ids = torch::zeros({n}, torch::kLong);
  b.root_ids = torch::zeros({n}, torch::kLong);
  b.word_index = torch::full({sentences, config.max_sent_len}, int64_t{-1}, torch::kLong);
  for (int64_t w = 0; w < n; ++w) {
    const int64_t len = uniform(3, max_chars);
    b.char_ids[w][0] = model::kBosId;
    const int64_t word_id = uniform(1, config.word_vocab_size - 1);
    std::mt19937_64 word_rng(static_cast<uint64_t>(word_id));  // same id -> same spelling
    for (int64_t i = 1; i <= len; ++i) {
      b.char_ids[w][i] = std::uniform_int_distribution<int64_t>(4, 32)(word_rng);
    }
    b.char_ids[w][len + 1] = model::kEosId;
    if (uniform(0, 3) == 0) b.case_flags[w][1] = 1;
    for (int64_t g = 2; g < len; ++g) {
      if (uniform(0, 3) == 0) b.boundary_labels[w][g] = 1.0;
    }
    b.word_ids[w] = word_id;
    b.root_ids[w] = 1 + word_id % (config.root_vocab_size - 1);
    b.word_index[w / words_per_sentence][w % words_per_sentence] = w;
  }
  return b;
}

}  // namespace morpheus::testing
