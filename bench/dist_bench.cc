// SPDX-License-Identifier: MIT
// dist_bench: data-parallel training on this machine (train/distributed.h, Gloo over loopback).
//   1. Gradient exchange per optimiser step between 2 ranks for configs/tiny.json and
//      configs/paper.json: every parameter's gradient filled, the embedding tables (the SGNS
//      context table above all) touched on the rows one step of batch_windows windows touches
//      (the batch's words + n_negatives draws per word, from a Zipf unigram^0.75; words per window
//      from --data's train cache, else 20). Median seconds of the exchange with the touched-row
//      exchange and with everything all-reduced densely, bytes of each.
//   2. Training throughput of the real `morpheus train` on --data (configs/tiny.json, same global
//      batch): 1 rank × 2 threads (grad_accum 2) against 2 ranks × 1 thread (--nproc 2), words/s
//      from metrics.jsonl (step time only, start-up excluded), and the scaling efficiency
//      (2-rank words/s ÷ 1-rank words/s). --rounds times, the ratio of each round measured in it.
//   dist_bench [--data PREPDIR] [--steps 20] [--rounds 2] [--reps 5] [--skip-train]
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "config/config_loader.h"
#include "config/model_config.h"
#include "core/config_section.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "model/losses.h"
#include "prepare/cache.h"
#include "train/distributed.h"

namespace {

using morpheus::train::DataParallel;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Rows of a [V, D] table that one step touches: the batch's words and their negatives.
torch::Tensor touched_rows(int64_t vocab, int64_t words, int64_t negatives, uint64_t seed) {
  torch::manual_seed(seed);
  const torch::Tensor zipf = 1.0 / torch::arange(1, vocab + 1, torch::kFloat64);
  const torch::Tensor ids = torch::multinomial(zipf, words, /*replacement=*/true);
  const torch::Tensor negs = torch::multinomial(zipf.pow(0.75), words * negatives, true);
  return std::get<0>(torch::_unique(torch::cat({ids, negs})));
}

// One rank of part 1: exchange timings for `config_path`.
int exchange_rank(DataParallel& dp, const std::string& config_path, double words_per_window,
                  int reps) {
  auto resolved = morpheus::config::load_config({config_path}, {});
  if (!resolved.ok()) return 1;
  auto mcfg = morpheus::section_from_json<morpheus::model::ModelConfig>(*resolved, config_path);
  if (!mcfg.ok()) return 1;
  const int64_t batch_windows = (*resolved)["train"].value("batch_windows", int64_t{256});
  morpheus::model::MorpheusWithHeads module(*mcfg);
  std::vector<torch::Tensor> params = module->parameters();
  std::vector<bool> tables(params.size(), false);
  const auto* table = module->sgns->context_embedding->weight.unsafeGetTensorImpl();
  const int64_t words = static_cast<int64_t>(static_cast<double>(batch_windows) * words_per_window);
  int64_t rows = 0;
  std::vector<torch::Tensor> grads;
  for (size_t i = 0; i < params.size(); ++i) {
    torch::Tensor g = torch::randn_like(params[i]);
    if (params[i].unsafeGetTensorImpl() == table) {
      tables[i] = true;
      const torch::Tensor t = touched_rows(params[i].size(0), words, mcfg->sgns_n_negatives,
                                           1000 + static_cast<uint64_t>(dp.rank()));
      rows = t.size(0);
      torch::Tensor sparse = torch::zeros_like(g);
      sparse.index_copy_(0, t, g.index_select(0, t));
      g = sparse;
    }
    grads.push_back(g);
  }
  double total_bytes = 0;
  for (const auto& p : params) total_bytes += static_cast<double>(p.numel() * 4);
  for (bool sparse : {true, false}) {
    dp.set_sparse_embeddings(sparse);
    dp.set_parameters(params, tables);
    std::vector<double> secs, scan, rows_s;
    morpheus::train::ExchangeStats last;
    for (int r = 0; r < reps; ++r) {
      for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = grads[i].clone();
      if (!dp.barrier().ok()) return 1;
      const auto t0 = Clock::now();
      if (!dp.sync_gradients().ok()) return 1;
      secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      last = dp.last_exchange();
      scan.push_back(last.sparse_scan_seconds);
      rows_s.push_back(last.sparse_seconds);
    }
    if (dp.rank() == 0) {
      std::printf(
          "  %-6s %-22s %8.1f ms/step  dense all-reduce %7.1f MB, rows all-reduce %6.1f MB"
          " (table %.1f MB dense; %lld rows in the union of 2 ranks, rank 0: %lld of %lld;"
          " row exchange %.1f ms of which scan %.1f ms)\n",
          sparse ? "rows" : "dense", sparse ? "(touched-row tables)" : "(all dense)",
          1000 * median(secs), last.dense_bytes / 1e6, last.sparse_bytes / 1e6,
          last.sparse_dense_bytes / 1e6, static_cast<long long>(last.sparse_rows),
          static_cast<long long>(rows), static_cast<long long>(mcfg->word_vocab_size),
          1000 * median(rows_s), 1000 * median(scan));
    }
  }
  if (dp.rank() == 0) {
    std::printf("  parameters %.1f MB; batch %lld windows × %.1f words, %lld negatives/word\n",
                total_bytes / 1e6, static_cast<long long>(batch_windows), words_per_window,
                static_cast<long long>(mcfg->sgns_n_negatives));
  }
  return 0;
}

int worker_main(const std::string& source, double words_per_window, int reps) {
  morpheus::set_log_level(morpheus::LogLevel::kWarning);
  torch::set_num_threads(1);
  auto env = morpheus::train::dist_env_from_environment();
  if (!env.ok()) return 1;
  auto dp = DataParallel::join(*env, morpheus::train::DistOptions{}, /*cuda_device=*/-1);
  if (!dp.ok()) {
    std::fprintf(stderr, "%s\n", dp.status().to_string().c_str());
    return 1;
  }
  for (const char* name : {"tiny", "paper"}) {
    if ((*dp)->rank() == 0) std::printf("%s (2 ranks, Gloo, loopback):\n", name);
    std::fflush(stdout);
    const std::string path = source + "/configs/" + name + ".json";
    if (exchange_rank(**dp, path, words_per_window, reps) != 0) return 1;
    std::fflush(stdout);
  }
  return 0;
}

// words/s of the last metrics row of a run directory (0 when missing).
double words_per_s(const std::string& run, double* exchange) {
  std::ifstream in(run + "/metrics.jsonl");
  std::string line;
  double wps = 0;
  while (std::getline(in, line)) {
    const auto row = nlohmann::json::parse(line, nullptr, false);
    if (row.is_object() && row.contains("words_per_s")) {
      wps = row["words_per_s"].get<double>();
      if (exchange != nullptr) *exchange = row.value("exchange_s_per_step", 0.0);
    }
  }
  return wps;
}

void throughput(const std::string& data, int steps, int rounds) {
  const std::string exe = MORPHEUS_TORCH_BINARY;
  const std::string tmp = "/tmp/dist_bench." + std::to_string(getpid());
  const std::string base =
      exe + " -q train --data " + data +
      " --config " MORPHEUS_SOURCE_DIR "/configs/tiny.json --device cpu --set train.max_steps=" +
      std::to_string(steps) + " --set train.log_every=" + std::to_string(steps) +
      " --set train.eval_every=0 --set train.checkpoint_every=0"
      " --set train.dev_max_windows=1 --set train.batch_windows=64";
  std::printf("throughput, configs/tiny.json, global batch 128 windows, %d steps, data %s:\n",
              steps, data.c_str());
  for (int r = 0; r < rounds; ++r) {
    const std::string one = tmp + "/one", two = tmp + "/two";
    std::filesystem::remove_all(tmp);
    const std::string load_before = load_average();
    const int rc1 = std::system(
        (base + " --out " + one + " --set train.threads=2 --set train.grad_accum=2").c_str());
    const int rc2 = std::system(
        (base + " --out " + two + " --set train.threads=1 --set train.grad_accum=1 --nproc 2")
            .c_str());
    double exchange = 0;
    const double w1 = words_per_s(one, nullptr), w2 = words_per_s(two, &exchange);
    std::printf(
        "  round %d: 1 rank × 2 threads %8.0f words/s | 2 ranks × 1 thread %8.0f words/s | "
        "efficiency %.2f | exchange %.1f ms/step | load %s -> %s%s\n",
        r + 1, w1, w2, w1 > 0 ? w2 / w1 : 0.0, 1000 * exchange, load_before.c_str(),
        load_average().c_str(), rc1 != 0 || rc2 != 0 ? " (a run failed)" : "");
    std::fflush(stdout);
  }
  std::filesystem::remove_all(tmp);
}

}  // namespace

int main(int argc, char** argv) {
  std::string data, source = MORPHEUS_SOURCE_DIR;
  int steps = 20, rounds = 2, reps = 5;
  bool skip_train = false, worker = false;
  double wpw = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--data")
      data = next();
    else if (a == "--steps")
      steps = std::atoi(next().c_str());
    else if (a == "--rounds")
      rounds = std::atoi(next().c_str());
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--skip-train")
      skip_train = true;
    else if (a == "--worker")
      worker = true;
    else if (a == "--words-per-window")
      wpw = std::atof(next().c_str());
    else {
      std::fprintf(stderr,
                   "usage: dist_bench [--data PREPDIR] [--steps N] [--rounds N] "
                   "[--reps N] [--skip-train]\n");
      return 2;
    }
  }
  if (worker) return worker_main(source, wpw, reps);
  if (data.empty() && morpheus::file_exists(source + "/runs/main/semi/prepare/train.cache")) {
    data = source + "/runs/main/semi/prepare";
  }
  wpw = 20;
  if (!data.empty()) {
    auto cache = morpheus::train::CacheReader::open(data + "/train.cache");
    if (cache.ok() && cache->num_windows() > 0) {
      wpw = static_cast<double>(cache->num_words()) / static_cast<double>(cache->num_windows());
    }
  }
  std::printf("dist_bench: load %s, %u cores\n", load_average().c_str(),
              std::thread::hardware_concurrency());
  std::fflush(stdout);
  const auto st = morpheus::train::launch_local_ranks(
      2, {"--worker", "--words-per-window", std::to_string(wpw), "--reps", std::to_string(reps)},
      120);
  if (!st.ok()) std::fprintf(stderr, "exchange bench: %s\n", st.to_string().c_str());
  if (!skip_train && !data.empty()) throughput(data, steps, rounds);
  if (!skip_train && data.empty()) std::printf("throughput: no --data, skipped\n");
  return st.ok() ? 0 : 1;
}
