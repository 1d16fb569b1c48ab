// SPDX-License-Identifier: MIT
// device_check: the checks of dev/gpu_check.sh that need the model in process, on a real
// batch (the first --batch-windows windows of PREPDIR/train.cache) and seeded random weights.
//   device_check --data PREPDIR [--config FILE] [--set section.key=value]... [--batch-windows 256]
//                [--reps 5] [--threads N] [--dp-device auto|cpu|cuda] [--shapes-out FILE]
// Prints one JSON object per line:
//   {"check":"batch", ...}      the batch: windows, words N, positions T, vocabulary sizes, cuda
//   {"check":"agreement", ...}  CUDA vs CPU forward (eval mode, TF32 off) of the final-layer
//                               boundary logits (valid gaps) and the word embeddings:
//                               max_rel = max|cuda − cpu| / max|cpu|, norm_rel = ‖Δ‖₂ / ‖cpu‖₂;
//                               "status":"skipped" without CUDA (the CPU forward still runs)
//   {"check":"dp_share", ...}   the Poisson–binomial membership DP alone (forward + backward at the
//                               batch's N × T × S) against a whole forward + backward of all four
//                               losses, median milliseconds of --reps, on --dp-device (auto: CUDA
//                               when present)
//   {"check":"nccl", ...}       one rank of an NCCL group on cuda:0 (a world of one): joins, then
//                               broadcasts, all-reduces a statistics tensor and exchanges dense and
//                               row-sparse gradients on the device; every sum must equal its input;
//                               "status":"skipped" without CUDA or without NCCL in the build
//   {"check":"shapes", ...}     with --shapes-out: the word lengths of every train window, one
//                               window per line (the batch shapes of the reference's timing)
// Exit status 0 when every check that was not skipped ran, 1 on an error, 2 on a usage error.
#include <ATen/Context.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "config/model_config.h"
#include "core/config_section.h"
#include "core/file_util.h"
#include "core/status.h"
#include "model/boundary_detector.h"
#include "model/cpu_allocator.h"
#include "model/losses.h"
#include "model/poisson_binomial.h"
#include "prepare/cache.h"
#include "train/batcher.h"
#include "train/distributed.h"

namespace {

namespace M = morpheus::model;
namespace tr = morpheus::train;
using nlohmann::json;

struct Options {
  std::string data;
  std::vector<std::string> configs;
  std::vector<std::string> sets;
  int64_t batch_windows = 256;
  int reps = 5;
  int threads = 0;
  std::string dp_device = "auto";
  std::string shapes_out;
};

void print(const json& row) {
  std::printf("%s\n", row.dump().c_str());
  std::fflush(stdout);
}

void sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

// Median wall time of `reps` calls after one warm-up, in milliseconds (device work included).
double median_ms(int reps, const torch::Device& device, const std::function<void()>& fn) {
  fn();
  sync(device);
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    sync(device);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double round_to(double v, double unit) { return std::round(v / unit) * unit; }

// max|a − b| / max|b| and ‖a − b‖ / ‖b‖ over the rows/entries selected by `keep` (bool, a's shape)
// or all of them; both tensors on the CPU in float64.
json relative_difference(const torch::Tensor& a, const torch::Tensor& b,
                         const torch::Tensor& keep) {
  torch::Tensor x = a.to(torch::kCPU, torch::kFloat64);
  torch::Tensor y = b.to(torch::kCPU, torch::kFloat64);
  if (keep.defined()) {
    x = x.masked_select(keep.to(torch::kCPU));
    y = y.masked_select(keep.to(torch::kCPU));
  }
  const torch::Tensor diff = x - y;
  const double scale = y.abs().max().item<double>();
  const double norm = y.norm().item<double>();
  return json{{"max_rel", diff.abs().max().item<double>() / std::max(scale, 1e-30)},
              {"norm_rel", diff.norm().item<double>() / std::max(norm, 1e-30)},
              {"max_abs", diff.abs().max().item<double>()},
              {"finite", static_cast<bool>(torch::isfinite(x).all().item<bool>())}};
}

// The CPU forward always runs (so this path cannot rot on machines without CUDA); the CUDA one
// and the comparison only with CUDA. TF32 is off for the comparison.
json agreement(const M::ModelConfig& config, const M::MorpheusBatch& batch, bool cuda) {
  torch::manual_seed(1);
  M::Morpheus model(config);
  model->eval();
  torch::NoGradGuard no_grad;
  const M::MorpheusOutput cpu = model->forward(batch.char_ids, batch.case_flags);
  const torch::Tensor gaps = M::gap_mask(cpu.mask);
  json row{{"check", "agreement"}, {"tf32", false}};
  row["cpu_finite"] = torch::isfinite(cpu.word_embeddings).all().item<bool>() &&
                      torch::isfinite(cpu.boundary_logits.masked_select(gaps)).all().item<bool>();
  if (!cuda) {
    row["status"] = "skipped";
    row["reason"] = "no CUDA";
    return row;
  }
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
  const torch::Device device(torch::kCUDA, 0);
  model->to(device);
  const M::MorpheusBatch on_device = batch.to(device);
  const M::MorpheusOutput gpu = model->forward(on_device.char_ids, on_device.case_flags);
  row["status"] = "ok";
  row["boundary_logits"] = relative_difference(gpu.boundary_logits, cpu.boundary_logits, gaps);
  row["word_embeddings"] =
      relative_difference(gpu.word_embeddings, cpu.word_embeddings, torch::Tensor());
  const double worst = std::max(row["boundary_logits"]["max_rel"].get<double>(),
                                row["word_embeddings"]["max_rel"].get<double>());
  row["max_rel"] = worst;
  row["pass"] = worst <= 1e-4;
  return row;
}

// Membership DP alone vs forward + backward of all losses, on `device` (training mode).
json dp_share(const M::ModelConfig& config, const M::MorpheusBatch& cpu_batch,
              const torch::Device& device, int reps) {
  torch::manual_seed(2);
  M::MorpheusWithHeads module(config);
  module->train();
  module->to(device);
  const M::MorpheusBatch batch = cpu_batch.to(device);
  const M::LossWeights weights = M::LossWeights::for_epoch(config, 0);
  const double step_ms = median_ms(reps, device, [&] {
    module->zero_grad();
    M::LossOutput out = module->compute_losses(batch, weights);
    out.total.backward();
  });
  const torch::Tensor mask = batch.char_ids.ne(M::kPadId);
  const int64_t n = mask.size(0), t = mask.size(1), s = config.max_segs;
  const auto options = torch::TensorOptions().device(device).dtype(torch::kFloat32);
  const torch::Tensor probs = torch::rand({n, t - 1}, options) * M::gap_mask(mask).to(options);
  const torch::Tensor upstream = torch::randn({n, t, s}, options);
  const double dp_ms = median_ms(reps, device, [&] {
    torch::Tensor p = probs.clone().requires_grad_(true);
    torch::Tensor m = M::soft_membership(p, mask, s);
    torch::autograd::grad({m}, {p}, {upstream});
  });
  return json{{"check", "dp_share"},
              {"status", "ok"},
              {"device", device.str()},
              {"words", n},
              {"positions", t},
              {"segments", s},
              {"dp_ms", round_to(dp_ms, 1e-3)},
              {"step_ms", round_to(step_ms, 1e-3)},
              {"share", dp_ms / step_ms},
              {"reps", reps}};
}

// The compiled NCCL path on one GPU. A world of one: every collective's result is its input.
json nccl_check(bool cuda) {
  if (!cuda) return json{{"check", "nccl"}, {"status", "skipped"}, {"reason", "no CUDA"}};
  tr::DistEnv env;
  env.master_port = 29517;
  tr::DistOptions options;
  options.backend = "nccl";
  options.timeout_s = 60;
  const auto t0 = std::chrono::steady_clock::now();
  auto dp = tr::DataParallel::join(env, options, 0);
  if (!dp.ok()) {
    const bool absent = dp.status().code() == morpheus::StatusCode::kUnimplemented;
    return json{{"check", "nccl"},
                {"status", absent ? "skipped" : "failed"},
                {"reason", dp.status().to_string()}};
  }
  const double join_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const torch::Device dev(torch::kCUDA, 0);
  torch::manual_seed(7);
  torch::Tensor dense = torch::randn({64, 32}, dev).requires_grad_();
  torch::Tensor table = torch::randn({1000, 32}, dev).requires_grad_();
  const torch::Tensor ids = torch::tensor({3, 17, 17, 512}, torch::kLong).to(dev);
  (dense.sum() + table.index_select(0, ids).pow(2).sum()).backward();
  const torch::Tensor want_dense = dense.grad().clone();
  const torch::Tensor want_table = table.grad().clone();
  const torch::Tensor want_params =
      torch::cat({dense.detach().flatten(), table.detach().flatten()});
  torch::Tensor stats = torch::tensor({1.0, 2.0, 3.0}, torch::kDouble).to(dev);
  (*dp)->set_parameters({dense, table}, {false, true});
  const auto t1 = std::chrono::steady_clock::now();
  morpheus::Status st = (*dp)->broadcast({dense, table});
  if (st.ok()) st = (*dp)->all_reduce_sum(stats);
  if (st.ok()) st = (*dp)->sync_gradients();
  if (st.ok()) st = (*dp)->barrier();
  if (!st.ok()) return json{{"check", "nccl"}, {"status", "failed"}, {"reason", st.to_string()}};
  sync(dev);
  const double ops_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  const bool same =
      torch::equal(stats.cpu(), torch::tensor({1.0, 2.0, 3.0}, torch::kDouble)) &&
      torch::equal(dense.grad(), want_dense) && torch::equal(table.grad(), want_table) &&
      torch::equal(torch::cat({dense.detach().flatten(), table.detach().flatten()}), want_params);
  return json{
      {"check", "nccl"},    {"status", "ok"},   {"backend", (*dp)->backend()},
      {"join_ms", join_ms}, {"ops_ms", ops_ms}, {"sparse_rows", (*dp)->last_exchange().sparse_rows},
      {"pass", same}};
}

morpheus::Status write_shapes(const tr::CacheReader& cache, const std::string& path) {
  std::string out;
  for (uint64_t w = 0; w < cache.num_windows(); ++w) {
    for (uint64_t i = cache.window_begin(w); i < cache.window_end(w); ++i) {
      if (i != cache.window_begin(w)) out += ' ';
      out += std::to_string(cache.word_length(i));
    }
    out += '\n';
  }
  MORPHEUS_RETURN_IF_ERROR(morpheus::write_file_atomic(path, out));
  print(json{
      {"check", "shapes"}, {"status", "ok"}, {"file", path}, {"windows", cache.num_windows()}});
  return morpheus::ok_status();
}

morpheus::Status run(const Options& o) {
  M::install_caching_cpu_allocator();  // as in morpheus-torch: CPU timings like the trainer's
  if (o.threads > 0) torch::set_num_threads(o.threads);
  MORPHEUS_ASSIGN_OR_RETURN(tr::CacheReader cache,
                            tr::CacheReader::open(morpheus::path_join(o.data, "train.cache")));
  MORPHEUS_ASSIGN_OR_RETURN(json resolved, morpheus::config::load_config(o.configs, o.sets));
  resolved["model"]["char_vocab_size"] = cache.info().char_vocab_size;
  resolved["model"]["word_vocab_size"] = cache.info().word_vocab_size;
  resolved["model"]["root_vocab_size"] = cache.info().root_vocab_size;
  MORPHEUS_ASSIGN_OR_RETURN(M::ModelConfig config,
                            morpheus::section_from_json<M::ModelConfig>(resolved, "config"));
  const tr::EpochPlan plan = tr::plan_sequential(cache.num_windows(), o.batch_windows, 0);
  const M::MorpheusBatch batch = tr::make_batch(cache, plan.at(0), config.max_word_len, false);
  const bool cuda = torch::cuda::is_available();
  print(json{{"check", "batch"},
             {"status", "ok"},
             {"configs", o.configs},
             {"windows", plan.at(0).size()},
             {"words", batch.char_ids.size(0)},
             {"positions", batch.char_ids.size(1)},
             {"char_dim", config.char_dim},
             {"word_vocab_size", config.word_vocab_size},
             {"cuda", cuda},
             {"cuda_devices", cuda ? torch::cuda::device_count() : 0},
             {"threads", torch::get_num_threads()}});
  print(agreement(config, batch, cuda));
  std::string dp = o.dp_device == "auto" ? (cuda ? "cuda" : "cpu") : o.dp_device;
  if (dp == "cuda" && !cuda) {
    print(json{{"check", "dp_share"}, {"status", "skipped"}, {"reason", "no CUDA"}});
  } else {
    // The DP's timing on CUDA is what decides whether a CUDA kernel is worth writing; TF32 as in
    // training there.
    if (dp == "cuda") {
      at::globalContext().setAllowTF32CuBLAS(true);
      at::globalContext().setAllowTF32CuDNN(true);
    }
    print(dp_share(config, batch, dp == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::kCPU,
                   o.reps));
  }
  print(nccl_check(cuda));
  if (!o.shapes_out.empty()) MORPHEUS_RETURN_IF_ERROR(write_shapes(cache, o.shapes_out));
  return morpheus::ok_status();
}

int usage() {
  std::fprintf(stderr,
               "usage: device_check --data PREPDIR [--config FILE]... [--set section.key=value]... "
               "[--batch-windows 256] [--reps 5] [--threads N] [--dp-device auto|cpu|cuda] "
               "[--shapes-out FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string v = argv[++i];
    if (a == "--data") {
      o.data = v;
    } else if (a == "--config") {
      o.configs.push_back(v);
    } else if (a == "--set") {
      o.sets.push_back(v);
    } else if (a == "--batch-windows") {
      o.batch_windows = std::max(1L, std::atol(v.c_str()));
    } else if (a == "--reps") {
      o.reps = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--threads") {
      o.threads = std::atoi(v.c_str());
    } else if (a == "--dp-device" && (v == "auto" || v == "cpu" || v == "cuda")) {
      o.dp_device = v;
    } else if (a == "--shapes-out") {
      o.shapes_out = v;
    } else {
      return usage();
    }
  }
  if (o.data.empty()) return usage();
  const morpheus::Status status = run(o);
  if (!status.ok()) {
    std::fprintf(stderr, "device_check: %s\n", status.to_string().c_str());
    return 1;
  }
  return 0;
}
