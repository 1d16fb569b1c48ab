// SPDX-License-Identifier: MIT
// segmentation_bench [--threads N] [--reps R] [--skip-train]:
//   1. forward+backward of the Poisson–binomial segmentation for 8,192 words × 32 positions ×
//      12 segments: fused CPU kernel and tensor-op version vs a naive autograd loop (the
//      reference's per-position Python loop), measured in the same run; prints the speed-up.
//   2. one training step (forward, all four losses, backward, AdamW) of configs/paper.json
//      defaults at batch 32 sentences on CPU, synthetic words; prints words/s.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "model/config.h"
#include "model/losses.h"
#include "model/poisson_binomial.h"

namespace {

using morpheus::model::SegmentationKernel;

double median_seconds(int reps, const std::function<void()>& fn) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void bench_segmentation(int reps) {
  const int64_t n = 8192, t = 32, s = 12;
  torch::manual_seed(0);
  torch::Tensor probs = torch::rand({n, t - 1});
  torch::Tensor mask = torch::arange(t).unsqueeze(0) < torch::randint(4, t + 1, {n, 1});
  torch::Tensor upstream = torch::randn({n, t, s});
  auto run = [&](const std::function<torch::Tensor(const torch::Tensor&)>& f) {
    torch::Tensor p = probs.clone().requires_grad_(true);
    torch::Tensor m = f(p);
    torch::autograd::grad({m}, {p}, {upstream});
  };
  auto fused = [&](const torch::Tensor& p) {
    return morpheus::model::soft_membership(p, mask, s, SegmentationKernel::kFused);
  };
  auto tensor_ops = [&](const torch::Tensor& p) {
    return morpheus::model::soft_membership(p, mask, s, SegmentationKernel::kTensorOps);
  };
  auto naive = [&](const torch::Tensor& p) {
    return morpheus::model::soft_membership_naive(p, mask, s);
  };
  run(fused);  // warm-up
  run(naive);
  const double t_fused = median_seconds(reps, [&] { run(fused); });
  const double t_ops = median_seconds(reps, [&] { run(tensor_ops); });
  const double t_naive = median_seconds(reps, [&] { run(naive); });
  std::printf(
      "segmentation fwd+bwd, %lld words x %lld positions x %lld segments, float32, "
      "%d threads, median of %d\n",
      static_cast<long long>(n), static_cast<long long>(t), static_cast<long long>(s),
      torch::get_num_threads(), reps);
  std::printf("  fused CPU kernel      %8.2f ms\n", t_fused * 1e3);
  std::printf("  tensor-op function    %8.2f ms\n", t_ops * 1e3);
  std::printf("  naive autograd loop   %8.2f ms\n", t_naive * 1e3);
  std::printf("  speed-up fused vs naive: %.1fx (target >= 10x); tensor-op vs naive: %.1fx\n",
              t_naive / t_fused, t_naive / t_ops);
}

morpheus::model::MorpheusBatch paper_batch(const morpheus::model::ModelConfig& c,
                                           int64_t sentences) {
  std::mt19937_64 rng(7);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<int64_t> counts;
  int64_t n = 0;
  for (int64_t i = 0; i < sentences; ++i) {
    counts.push_back(uniform(8, c.max_sent_len));
    n += counts.back();
  }
  const int64_t t = c.max_word_len;
  morpheus::model::MorpheusBatch b;
  b.char_ids = torch::zeros({n, t}, torch::kLong);
  b.case_flags = torch::zeros({n, t}, torch::kLong);
  b.boundary_labels = torch::zeros({n, t - 1});
  b.confidence = torch::ones({n});
  b.word_ids = torch::zeros({n}, torch::kLong);
  b.root_ids = torch::zeros({n}, torch::kLong);
  b.word_index = torch::full({sentences, c.max_sent_len}, int64_t{-1}, torch::kLong);
  auto ids = b.char_ids.accessor<int64_t, 2>();
  auto labels = b.boundary_labels.accessor<float, 2>();
  int64_t w = 0;
  for (int64_t sent = 0; sent < sentences; ++sent) {
    for (int64_t slot = 0; slot < counts[static_cast<size_t>(sent)]; ++slot, ++w) {
      const int64_t len = uniform(2, 14);
      ids[w][0] = 2;
      for (int64_t i = 1; i <= len; ++i) ids[w][i] = uniform(4, 32);
      ids[w][len + 1] = 3;
      for (int64_t g = 2; g < len; ++g) labels[w][g] = uniform(0, 3) == 0 ? 1.f : 0.f;
      b.word_ids[w] = uniform(0, c.word_vocab_size - 1);
      b.root_ids[w] = uniform(0, 300);
      b.word_index[sent][slot] = w;
    }
  }
  return b;
}

void bench_train_step(int reps) {
  morpheus::model::ModelConfig c;  // paper configuration
  torch::manual_seed(1);
  morpheus::model::MorpheusWithHeads all(c);
  all->train();
  morpheus::model::MorpheusBatch batch = paper_batch(c, 32);
  // Packed batches are trimmed to their longest word (outputs do not depend on padding).
  const int64_t t = batch.char_ids.ne(0).sum(1).max().item<int64_t>();
  batch.char_ids = batch.char_ids.slice(1, 0, t).contiguous();
  batch.case_flags = batch.case_flags.slice(1, 0, t).contiguous();
  batch.boundary_labels = batch.boundary_labels.slice(1, 0, t - 1).contiguous();
  const int64_t words = batch.char_ids.size(0);
  torch::optim::AdamW opt(
      all->parameters(),
      torch::optim::AdamWOptions(3e-4).betas({0.9, 0.98}).eps(1e-6).weight_decay(0.01));
  const auto weights = morpheus::model::LossWeights::for_epoch(c, 0);
  double last_loss = 0;
  auto step = [&] {
    opt.zero_grad();
    auto out = all->compute_losses(batch, weights);
    out.total.backward();
    torch::nn::utils::clip_grad_norm_(all->parameters(), 0.5);
    opt.step();
    last_loss = out.total.item<double>();
  };
  step();  // warm-up
  const double sec = median_seconds(reps, step);
  std::printf(
      "training step, configs/paper.json, 32 sentences = %lld words (T=%lld), CPU, "
      "%d threads, median of %d: %.3f s/step, %.0f words/s (loss %.3f)\n",
      static_cast<long long>(words), static_cast<long long>(t), torch::get_num_threads(), reps, sec,
      double(words) / sec, last_loss);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool train = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      torch::set_num_threads(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--skip-train") == 0) {
      train = false;
    } else {
      std::fprintf(stderr, "usage: segmentation_bench [--threads N] [--reps R] [--skip-train]\n");
      return 2;
    }
  }
  bench_segmentation(reps);
  if (train) bench_train_step(std::max(1, reps / 2));
  return 0;
}
