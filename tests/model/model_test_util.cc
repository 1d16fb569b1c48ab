// SPDX-License-Identifier: MIT
// Finite-difference gradient check and a small config for the model tests.
#include "tests/model/model_test_util.h"

#include <algorithm>

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

}  // namespace morpheus::testing
