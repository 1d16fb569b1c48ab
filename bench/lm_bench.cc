// SPDX-License-Identifier: MIT
// lm_bench: training speed of the language model of `morpheus lm train` (lm/gpt.h) against what
// the machine's matrix multiplications allow on the same shapes.
//   lm_bench [--config configs/lm_small.json] [--set lm.k=v]... [--vocab-size 8192]
//            [--steps 8] [--threads N] [--device cpu|cuda] [--trace FILE]
// Prints (1) training tokens/s: the median over `steps` timed optimiser steps (after two warm-up
// steps) of lm_train_step (forward, cross-entropy, backward, clipping, AdamW) on random ids;
// (2) the FLOP/s that reaches, counting the matrix products of a step: 3 × forward, forward per
// token = 2·(12·L·D² + V·D) + 4·L·T·D (QKᵀ and attention·V over all T keys, as computed);
// (3) the machine's matmul throughput on the step's own GEMM shapes (forward Y = X·W, and the
// backward dX = dY·Wᵀ and dW = Xᵀ·dY of every projection, the tied head and the two batched
// attention products), all of a step's GEMMs run back to back with at::mm / at::bmm, timed in
// alternation with the step, and each distinct shape alone, repeated with warm caches (the
// machine's best on these shapes); (4) the ratios (target >= 60 % of the warm throughput);
// and the split of a step into forward, backward, clipping and optimiser time. Each time is the
// median of its repetitions and, in brackets, the best one (least disturbed by other processes on
// a shared machine); the ratio is given for both. --trace FILE writes LibTorch's profiler trace
// (chrome://tracing JSON) of two more steps, for a per-op breakdown.
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/config_section.h"
#include "lm/gpt.h"
#include "lm/lm_trainer.h"
#include "lm/tied_head.h"
#include "lm_data/lm_config.h"
#include "model/cpu_allocator.h"
#include "model/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  double median = 0, best = 0;
};

// Seconds of one call of fn over `reps` calls after one warm-up.
template <typename Fn>
Timing time_call(const torch::Device& device, int reps, Fn&& fn) {
  fn();
  sync(device);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    fn();
    sync(device);
    t.push_back(seconds_since(t0));
  }
  return {median(t), *std::min_element(t.begin(), t.end())};
}

struct Gemm {
  int64_t batch, m, k, n;  // batch × ([m,k] · [k,n])
  double flops() const { return 2.0 * static_cast<double>(batch * m * k * n); }
};

// The GEMMs of one training step: per layer qkv, proj, fc1, fc2 (each forward product with its
// two backward ones) and the two attention products with theirs; then the tied head as the fused
// loss computes it, chunk by chunk (lm/tied_head.h): logits, dh and dw of every row chunk.
std::vector<Gemm> step_gemms(const morpheus::lm::GptOptions& g, int64_t b, int64_t t,
                             const torch::Device& device) {
  const int64_t r = b * t, d = g.width, h = g.heads, dh = d / h;
  std::vector<Gemm> out;
  auto linear = [&](int64_t in, int64_t o) {
    for (int64_t l = 0; l < g.layers; ++l) {
      out.push_back({1, r, in, o});  // Y = X·W
      out.push_back({1, r, o, in});  // dX = dY·Wᵀ
      out.push_back({1, in, r, o});  // dW = Xᵀ·dY
    }
  };
  linear(d, 3 * d);
  linear(d, d);
  linear(d, 4 * d);
  linear(4 * d, d);
  for (int64_t l = 0; l < g.layers; ++l) {
    for (const Gemm& a : {Gemm{b * h, t, dh, t}, Gemm{b * h, t, t, dh}, Gemm{b * h, t, t, dh},
                          Gemm{b * h, t, t, dh}, Gemm{b * h, t, dh, t}, Gemm{b * h, t, t, dh}}) {
      out.push_back(a);  // S = Q·Kᵀ, O = P·V and their gradients
    }
  }
  const int64_t rows = morpheus::lm::head_chunk_rows(g.vocab, g.width, device);
  for (int64_t start = 0; start < r; start += rows) {
    const int64_t len = std::min(rows, r - start);
    out.push_back({1, len, d, g.vocab});  // logits
    out.push_back({1, len, g.vocab, d});  // dh
    out.push_back({1, g.vocab, len, d});  // dw
  }
  return out;
}

// Random operands for every GEMM of a step. run() computes them all once, back to back, as a
// step does; peak_seconds() times each distinct shape alone, repeated (warm caches), and sums
// over the step's GEMMs: the best the machine's BLAS does on these shapes.
class StepGemms {
 public:
  StepGemms(const std::vector<Gemm>& gemms, const torch::Device& device) : device_(device) {
    for (const Gemm& g : gemms) {
      const auto opt = torch::TensorOptions(device);
      operands_.emplace_back(torch::randn({g.batch, g.m, g.k}, opt),
                             torch::randn({g.batch, g.k, g.n}, opt));
    }
  }
  void run() const {
    for (const auto& operands : operands_) multiply(operands);
  }
  double peak_seconds(int reps) const {
    double total = 0;
    std::vector<std::pair<std::vector<int64_t>, double>> seen;
    for (const auto& operands : operands_) {
      const std::vector<int64_t> key = {operands.first.size(0), operands.first.size(1),
                                        operands.first.size(2), operands.second.size(2)};
      auto it =
          std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == key; });
      if (it == seen.end()) {
        seen.emplace_back(key, time_call(device_, reps, [&] { multiply(operands); }).best);
        it = seen.end() - 1;
      }
      total += it->second;
    }
    return total;
  }

 private:
  static void multiply(const std::pair<torch::Tensor, torch::Tensor>& operands) {
    const auto& [a, w] = operands;
    if (a.size(0) == 1) {
      at::mm(a[0], w[0]);
    } else {
      at::bmm(a, w);
    }
  }

  torch::Device device_;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> operands_;
};

// The training step and the step's GEMMs alone, timed in alternation (`reps` each after one
// warm-up), so that the load of a shared machine weighs on both alike.
std::pair<Timing, Timing> time_step_and_gemms(const torch::Device& device, int reps,
                                              const std::function<void()>& step,
                                              const StepGemms& gemms) {
  step();
  gemms.run();
  sync(device);
  std::vector<double> s, g;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    step();
    sync(device);
    s.push_back(seconds_since(t0));
    t0 = Clock::now();
    gemms.run();
    sync(device);
    g.push_back(seconds_since(t0));
  }
  return {{median(s), *std::min_element(s.begin(), s.end())},
          {median(g), *std::min_element(g.begin(), g.end())}};
}

double step_flops(const morpheus::lm::GptOptions& g, int64_t b, int64_t t) {
  const auto d = static_cast<double>(g.width), l = static_cast<double>(g.layers);
  const double forward_per_token =
      2.0 * (12.0 * l * d * d + static_cast<double>(g.vocab) * d) + 4.0 * l * t * d;
  return 3.0 * forward_per_token * static_cast<double>(b * t);
}

int usage() {
  std::fprintf(stderr,
               "usage: lm_bench [--config F.json] [--set lm.k=v]... [--vocab-size V] [--steps N] "
               "[--threads N] [--device cpu|cuda] [--trace FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  morpheus::model::install_caching_cpu_allocator();  // as morpheus-torch
  std::vector<std::string> configs, sets;
  int64_t vocab = 8192;
  int steps = 8;
  std::string device_name = "cpu";
  std::string trace;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    if (a == "--config")
      configs.push_back(argv[++i]);
    else if (a == "--set")
      sets.push_back(argv[++i]);
    else if (a == "--vocab-size")
      vocab = std::atoll(argv[++i]);
    else if (a == "--steps")
      steps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--threads")
      torch::set_num_threads(std::atoi(argv[++i]));
    else if (a == "--device")
      device_name = argv[++i];
    else if (a == "--trace")
      trace = argv[++i];
    else
      return usage();
  }
  if (configs.empty()) configs.push_back(MORPHEUS_SOURCE_DIR "/configs/lm_small.json");
  auto cfg = morpheus::load_section<morpheus::lm::LmConfig>(configs, sets);
  auto device = morpheus::model::resolve_device(device_name);
  if (!cfg.ok() || !device.ok()) {
    std::fprintf(stderr, "error: %s\n",
                 (cfg.ok() ? device.status() : cfg.status()).message().c_str());
    return 1;
  }
  morpheus::model::configure_device(*device);
  const morpheus::lm::LmConfig& c = *cfg;
  const morpheus::lm::GptOptions g{
      vocab + 1, morpheus::lm::model_width(c, vocab), c.layers, c.heads, c.context, c.dropout};
  torch::manual_seed(1);
  morpheus::lm::Gpt model(g);
  model->to(*device);
  auto optimizer = morpheus::lm::make_lm_optimizer(*model, c);
  const int64_t b = c.batch_size, t = c.context;
  const auto ids =
      torch::randint(0, vocab + 1, {b, t + 1}, torch::TensorOptions(*device).dtype(torch::kLong));
  const torch::Tensor inputs = ids.narrow(1, 0, t), targets = ids.narrow(1, 1, t);
  auto forward_loss = [&] { return model->loss(inputs, targets); };
  const StepGemms gemms(step_gemms(g, b, t, *device), *device);
  const auto [step, gemm] = time_step_and_gemms(
      *device, steps,
      [&] { morpheus::lm::lm_train_step(*model, *optimizer, inputs, targets, c.grad_clip); },
      gemms);
  const Timing forward = time_call(*device, steps, forward_loss);
  const Timing forward_backward = time_call(*device, steps, [&] { forward_loss().backward(); });
  const Timing clip = time_call(*device, steps, [&] {
    return torch::nn::utils::clip_grad_norm_(model->parameters(), c.grad_clip);
  });
  const Timing adamw = time_call(*device, steps, [&] { optimizer->step(); });
  const double flops = step_flops(g, b, t);
  std::printf(
      "lm_bench: %s, %d threads, vocab %lld + eol, width %lld, %lld layers, %lld heads, "
      "context %lld, batch %lld\n",
      device->str().c_str(), torch::get_num_threads(), static_cast<long long>(vocab),
      static_cast<long long>(g.width), static_cast<long long>(g.layers),
      static_cast<long long>(g.heads), static_cast<long long>(t), static_cast<long long>(b));
  auto row = [](const char* what, const Timing& s) {
    std::printf("  %-26s %8.4f s  (best %.4f s)\n", what, s.median, s.best);
  };
  const double peak = gemms.peak_seconds(std::max(3, steps));
  row("training step", step);
  row("forward + loss", forward);
  row("  + backward", forward_backward);
  row("clipping", clip);
  row("AdamW", adamw);
  row("its GEMMs, back to back", gemm);
  std::printf("  %-26s %8.4f s  (each shape repeated, best)\n", "its GEMMs, warm", peak);
  std::printf("training tokens/s          %8.0f  (best %.0f)\n",
              static_cast<double>(b * t) / step.median, static_cast<double>(b * t) / step.best);
  std::printf("achieved GFLOP/s           %8.2f  (best %.2f; %.2f GFLOP per step)\n",
              flops / step.median / 1e9, flops / step.best / 1e9, flops / 1e9);
  std::printf("matmul GFLOP/s, its shapes %8.2f  warm; back to back %.2f (best %.2f)\n",
              flops / peak / 1e9, flops / gemm.median / 1e9, flops / gemm.best / 1e9);
  std::printf("ratio to warm matmul       %7.1f %%  (best step; target >= 60 %%)\n",
              100.0 * peak / step.best);
  std::printf("ratio to back to back      %7.1f %%  (median %.1f %%)\n",
              100.0 * gemm.best / step.best, 100.0 * gemm.median / step.median);
  if (!trace.empty()) {
    torch::autograd::profiler::RecordProfile profile(trace);
    for (int i = 0; i < 2; ++i) {
      morpheus::lm::lm_train_step(*model, *optimizer, inputs, targets, c.grad_clip);
    }
  }
  return 0;
}
