// SPDX-License-Identifier: MIT
// Helpers for the model tests: a finite-difference gradient check in double and a small config
// (synthetic batches: tests/support/synthetic_batch.h).
#pragma once

#include <torch/torch.h>

#include <functional>

#include "config/model_config.h"

namespace morpheus::testing {

// Max |analytic − numeric| over the elements of x for L(x) = Σ f(x)·w with a fixed random w
// (central differences, step eps). x must be double; f must be deterministic.
double max_gradient_error(const std::function<torch::Tensor(const torch::Tensor&)>& f,
                          const torch::Tensor& x, double eps = 1e-6);

// A small ModelConfig for tests: D=16, 2 heads, 1 encoder + 2 detector layers, dropout 0.
model::ModelConfig tiny_test_config();

}  // namespace morpheus::testing
