// SPDX-License-Identifier: MIT
// segmentation_bench [--threads N] [--reps R] [--skip-train] [--only fused|ops|naive]
//                    [--profile] [--system-allocator] [--no-row-packing]:
//   1. forward+backward of the Poisson–binomial segmentation for 8,192 words × 32 positions ×
//      12 segments: fused CPU kernel and tensor-op version vs a naive autograd loop (the
//      reference's per-position Python loop), measured in the same run; prints the speed-up.
//   2. one training step (forward, all four losses, backward, AdamW) of configs/paper.json
//      defaults at batch 32 sentences on CPU, synthetic words; prints words/s.
//   --system-allocator: LibTorch's default allocator instead of the caching one morpheus-torch
//      installs. --no-row-packing: position-wise layers on every (also padded) row.
//   --profile: instead, the wall time of each part of that training step (forward per module and
//      objective, backward by autograd node type, clipping, AdamW).
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/model_config.h"
#include "model/attention.h"
#include "model/boundary_detector.h"
#include "model/cpu_allocator.h"
#include "model/losses.h"
#include "model/poisson_binomial.h"
#include "tests/support/synthetic_batch.h"

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

// only: "" = all three, else "fused" / "ops" / "naive" (one kernel, e.g. under perf).
void bench_segmentation(int reps, const std::string& only) {
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
  auto wanted = [&](const char* name) { return only.empty() || only == name; };
  // Warm-ups first (as in a training process, the allocator has seen these sizes before).
  if (wanted("fused")) run(fused);
  if (wanted("naive")) run(naive);
  auto timed = [&](const char* name, const std::function<torch::Tensor(const torch::Tensor&)>& f) {
    return wanted(name) ? median_seconds(reps, [&] { run(f); }) : 0.0;
  };
  const double t_fused = timed("fused", fused);
  const double t_ops = timed("ops", tensor_ops);
  const double t_naive = timed("naive", naive);
  // The fused function's forward and backward timed apart (where its time goes).
  std::vector<double> fwd_times, bwd_times;
  if (wanted("fused")) {
    for (int r = 0; r < reps; ++r) {
      torch::Tensor p = probs.clone().requires_grad_(true);
      const auto t0 = std::chrono::steady_clock::now();
      torch::Tensor m = fused(p);
      const auto t1 = std::chrono::steady_clock::now();
      torch::autograd::grad({m}, {p}, {upstream});
      const auto t2 = std::chrono::steady_clock::now();
      fwd_times.push_back(std::chrono::duration<double>(t1 - t0).count());
      bwd_times.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
    std::sort(fwd_times.begin(), fwd_times.end());
    std::sort(bwd_times.begin(), bwd_times.end());
  }
  std::printf(
      "segmentation fwd+bwd, %lld words x %lld positions x %lld segments, float32, "
      "%d threads, median of %d\n",
      static_cast<long long>(n), static_cast<long long>(t), static_cast<long long>(s),
      torch::get_num_threads(), reps);
  std::printf("  fused CPU kernel      %8.2f ms", t_fused * 1e3);
  if (!fwd_times.empty()) {
    std::printf("  (forward %.2f ms, backward %.2f ms)", fwd_times[fwd_times.size() / 2] * 1e3,
                bwd_times[bwd_times.size() / 2] * 1e3);
  }
  std::printf("\n");
  std::printf("  tensor-op function    %8.2f ms\n", t_ops * 1e3);
  std::printf("  naive autograd loop   %8.2f ms\n", t_naive * 1e3);
  std::printf("  speed-up fused vs naive: %.1fx (target >= 10x); tensor-op vs naive: %.1fx\n",
              t_naive / t_fused, t_naive / t_ops);
}

// The training batch of the paper config: 32 sentence rows of 20 synthetic words of 3..14 letters
// (tests/support/synthetic_batch.h), trimmed to its longest word as packed batches are (outputs
// do not depend on padding).
morpheus::model::MorpheusBatch paper_batch(const morpheus::model::ModelConfig& c) {
  morpheus::model::MorpheusBatch b = morpheus::testing::synthetic_batch(c, 32, 20, 14, 7);
  const int64_t t = b.char_ids.ne(0).sum(1).max().item<int64_t>();
  b.char_ids = b.char_ids.slice(1, 0, t).contiguous();
  b.case_flags = b.case_flags.slice(1, 0, t).contiguous();
  b.boundary_labels = b.boundary_labels.slice(1, 0, t - 1).contiguous();
  return b;
}

void bench_train_step(int reps) {
  morpheus::model::ModelConfig c;  // paper configuration
  torch::manual_seed(1);
  morpheus::model::MorpheusWithHeads all(c);
  all->train();
  const morpheus::model::MorpheusBatch batch = paper_batch(c);
  const int64_t t = batch.char_ids.size(1);
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

// Per-part wall time of the paper training step: forward of each module and objective (the
// same calls as MorpheusWithHeads::compute_losses), backward, clipping, AdamW; and the backward
// split by autograd node type (legacy profiler, "evaluate_function: XBackward0" ranges).
void profile_train_step(int reps) {
  namespace M = morpheus::model;
  M::ModelConfig c;
  torch::manual_seed(1);
  M::MorpheusWithHeads all(c);
  all->train();
  const M::MorpheusBatch batch = paper_batch(c);
  torch::optim::AdamW opt(
      all->parameters(),
      torch::optim::AdamWOptions(3e-4).betas({0.9, 0.98}).eps(1e-6).weight_decay(0.01));
  const auto w = M::LossWeights::for_epoch(c, 0);
  std::map<std::string, std::vector<double>> parts;
  std::map<std::string, double> backward_nodes;
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r <= reps; ++r) {
    auto t0 = Clock::now();
    auto lap = [&](const char* name) {
      const auto now = Clock::now();
      if (r > 0) parts[name].push_back(std::chrono::duration<double>(now - t0).count());
      t0 = now;
    };
    opt.zero_grad();
    lap("zero_grad");
    torch::Tensor mask = batch.char_ids.ne(M::kPadId);
    torch::Tensor hidden = all->model->char_encoder(batch.char_ids, batch.case_flags, mask);
    lap("fwd char encoder");
    M::DetectorOutput det = all->model->boundary_detector(hidden, mask);
    lap("fwd boundary detector");
    torch::Tensor gaps = M::gap_mask(mask);
    torch::Tensor probs = torch::sigmoid(det.logits) * gaps.to(det.logits.dtype());
    torch::Tensor membership = M::soft_membership(probs, mask, c.max_segs);
    lap("fwd segmentation DP");
    M::PoolingOutput pooled = all->model->segment_encoder(hidden, membership, mask);
    lap("fwd segment pooling");
    torch::Tensor total =
        w.aux * M::aux_boundary_loss(det.layer_logits, batch.boundary_labels, batch.confidence,
                                     gaps, c.depth_weights, c.pos_weight, c.count_loss_w)
                    .total;
    lap("fwd aux loss");
    total = total + w.sgns * all->sgns(pooled.word_embeddings, batch.word_ids, batch.word_index);
    lap("fwd sgns");
    total = total + w.ctr * M::root_family_infonce(pooled.word_embeddings, batch.root_ids,
                                                   c.ctr_temperature);
    lap("fwd contrastive");
    total = total +
            w.mlm * all->mlm_head(pooled.word_embeddings, batch.char_ids, batch.word_index).loss;
    lap("fwd mlm head");
    const bool record = r == reps;
    if (record) {
      torch::autograd::profiler::enableProfilerLegacy(
          torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
    }
    total.backward();
    torch::autograd::profiler::thread_event_lists events;
    if (record) events = torch::autograd::profiler::disableProfilerLegacy();
    lap("backward (all)");
    torch::nn::utils::clip_grad_norm_(all->parameters(), 0.5);
    lap("clip_grad_norm");
    opt.step();
    lap("AdamW step");
    const std::string prefix = "autograd::engine::evaluate_function: ";
    for (const auto& list : events) {
      std::vector<const torch::autograd::profiler::LegacyEvent*> stack;
      for (const auto& e : list) {
        if (e.kind() == torch::autograd::profiler::EventKind::PushRange) {
          stack.push_back(&e);
        } else if (e.kind() == torch::autograd::profiler::EventKind::PopRange && !stack.empty()) {
          const auto* push = stack.back();
          stack.pop_back();
          const std::string name = push->name();
          if (name.rfind(prefix, 0) == 0) {
            backward_nodes[name.substr(prefix.size())] += push->cpuElapsedUs(e) / 1e3;
          }
        }
      }
    }
  }
  std::printf(
      "profile of one paper training step (32 sentences, %lld words, T=%lld), %d threads,"
      " median of %d:\n",
      static_cast<long long>(batch.char_ids.size(0)),
      static_cast<long long>(batch.char_ids.size(1)), torch::get_num_threads(), reps);
  double sum = 0;
  for (auto& [name, v] : parts) {
    std::sort(v.begin(), v.end());
    sum += v[v.size() / 2];
  }
  for (auto& [name, v] : parts) {
    std::printf("  %-24s %9.1f ms  %5.1f%%\n", name.c_str(), v[v.size() / 2] * 1e3,
                100 * v[v.size() / 2] / sum);
  }
  std::vector<std::pair<double, std::string>> nodes;
  for (const auto& [name, ms] : backward_nodes) nodes.emplace_back(ms, name);
  std::sort(nodes.rbegin(), nodes.rend());
  std::printf("  backward by node type (last step, top 12):\n");
  for (size_t i = 0; i < nodes.size() && i < 12; ++i) {
    std::printf("    %-34s %9.1f ms\n", nodes[i].second.c_str(), nodes[i].first);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool train = true;
  std::string only;
  bool profile = false;
  bool caching = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      torch::set_num_threads(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
      train = false;
    } else if (std::strcmp(argv[i], "--profile") == 0) {
      profile = true;
    } else if (std::strcmp(argv[i], "--skip-train") == 0) {
      train = false;
    } else if (std::strcmp(argv[i], "--system-allocator") == 0) {
      caching = false;
    } else if (std::strcmp(argv[i], "--no-row-packing") == 0) {
      morpheus::model::ValidRows::set_packing_enabled(false);
    } else {
      std::fprintf(stderr,
                   "usage: segmentation_bench [--threads N] [--reps R] [--skip-train] "
                   "[--only fused|ops|naive] [--profile] [--system-allocator] "
                   "[--no-row-packing]\n");
      return 2;
    }
  }
  // As in `morpheus-torch` (all measured kernels share it); --system-allocator: glibc's.
  if (caching) morpheus::model::install_caching_cpu_allocator();
  std::printf("CPU allocator: %s; position-wise layers on %s\n",
              caching ? "caching (model/cpu_allocator.h)" : "system",
              morpheus::model::ValidRows::packing_enabled() ? "valid rows only" : "every row");
  if (profile) {
    profile_train_step(std::max(1, reps / 2));
    return 0;
  }
  bench_segmentation(reps, only);
  if (train) bench_train_step(std::max(1, reps / 2));
  return 0;
}
