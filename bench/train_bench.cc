// SPDX-License-Identifier: MIT
// train_bench: training throughput of `morpheus train` (the real trainer loop on a prepared data
// directory) for configs/tiny.json and configs/paper.json on CPU, each config in its own forked
// child so that the peak RSS (wait4 ru_maxrss) of one does not hide the other's. Prints words/s
// (median over the logged steps after the first, which pays the warm-up), s/step, words/step,
// peak RSS and the paper/tiny throughput ratio. Each config runs twice by default: with the
// caching CPU allocator `morpheus-torch` installs (model/cpu_allocator.h) and with LibTorch's
// default (glibc) allocator, with the ratio of the two.
//   train_bench --data DIR [--steps 6] [--batch-windows 32] [--threads N] [--config F.json]...
//               [--allocator both|caching|system] [--no-row-packing]
// --no-row-packing: position-wise layers on every padded row (model/attention.h ValidRows).
// Every config runs with train.grad_accum=1, train.batch_windows=B (so both configs see the same
// batches), train.log_every=1, and a single dev window for the final evaluation.
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "core/logging.h"
#include "model/attention.h"
#include "model/cpu_allocator.h"
#include "train/trainer.h"

namespace {

using nlohmann::json;

struct Options {
  std::string data;
  int steps = 6;
  int batch_windows = 32;
  int threads = 1;
  std::vector<std::string> configs;
  std::string allocator = "both";
  bool row_packing = true;
};

// Child: trains `steps` steps of `config` into `out`; exit status 0 on success.
int child_main(const Options& o, const std::string& config, const std::string& out, bool caching) {
  if (caching) morpheus::model::install_caching_cpu_allocator();
  morpheus::model::ValidRows::set_packing_enabled(o.row_packing);
  morpheus::set_log_level(morpheus::LogLevel::kWarning);
  auto resolved = morpheus::config::load_config(
      {config}, {"train.max_steps=" + std::to_string(o.steps), "train.grad_accum=1",
                 "train.batch_windows=" + std::to_string(o.batch_windows), "train.log_every=1",
                 "train.eval_every=0", "train.checkpoint_every=0", "train.dev_max_windows=1",
                 "train.threads=" + std::to_string(o.threads)});
  if (!resolved.ok()) {
    std::fprintf(stderr, "%s\n", resolved.status().to_string().c_str());
    return 1;
  }
  morpheus::train::TrainOptions options;
  options.data_dir = o.data;
  options.out_dir = out;
  options.device = "cpu";
  options.config = *resolved;
  auto summary = morpheus::train::run_training(options);
  if (!summary.ok()) {
    std::fprintf(stderr, "%s\n", summary.status().to_string().c_str());
    return 1;
  }
  if (caching) {
    const auto st = morpheus::model::caching_cpu_allocator_stats();
    std::printf(
        "    caching allocator: %.1f%% of %llu requests >= 1 MiB served from the cache\n",
        st.cached_allocations ? 100.0 * double(st.cache_hits) / double(st.cached_allocations) : 0.0,
        static_cast<unsigned long long>(st.cached_allocations));
    std::fflush(stdout);
  }
  return 0;
}

struct Result {
  bool ok = false;
  double wall_s = 0, peak_mb = 0;
  double words_per_s = 0, s_per_step = 0, words_per_step = 0;
  int rows = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Result run_config(const Options& o, const std::string& config, bool caching) {
  Result r;
  char tmpl[] = "/tmp/train_bench_XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return r;
  const std::string out = tmpl;
  std::fflush(stdout);
  std::fflush(stderr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) _exit(child_main(o, config, out + "/run", caching));
  int status = 0;
  struct rusage usage {};
  if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) return r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::vector<double> wps, sps, wpst;
  std::ifstream in(out + "/run/metrics.jsonl");
  std::string line;
  while (r.ok && std::getline(in, line)) {
    const json row = json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("words_per_s")) continue;
    ++r.rows;
    if (row.value("step", 0) == 1) continue;  // warm-up step
    wps.push_back(row.value("words_per_s", 0.0));
    sps.push_back(row.value("seconds", 0.0));  // one step per row (log_every = 1)
    wpst.push_back(row.value("words", 0.0));
  }
  r.s_per_step = median(sps);
  r.words_per_step = median(wpst);
  r.words_per_s = median(wps);
  std::error_code ec;
  std::filesystem::remove_all(out, ec);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) {
      o.data = argv[++i];
    } else if (a == "--steps" && i + 1 < argc) {
      o.steps = std::max(2, std::atoi(argv[++i]));
    } else if (a == "--batch-windows" && i + 1 < argc) {
      o.batch_windows = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--threads" && i + 1 < argc) {
      o.threads = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--config" && i + 1 < argc) {
      o.configs.push_back(argv[++i]);
    } else if (a == "--no-row-packing") {
      o.row_packing = false;
    } else if (a == "--allocator" && i + 1 < argc) {
      o.allocator = argv[++i];
      if (o.allocator != "both" && o.allocator != "caching" && o.allocator != "system") {
        o.data.clear();
        break;
      }
    } else {
      o.data.clear();
      break;
    }
  }
  if (o.data.empty()) {
    std::fprintf(
        stderr,
        "usage: train_bench --data PREPARED_DIR [--steps 6] [--batch-windows 32] "
        "[--threads 1] [--config F.json]... [--allocator both|caching|system] [--no-row-packing]\n"
        "  PREPARED_DIR is a `morpheus prepare` "
        "output (train.cache, dev.cache, vocabularies)\n");
    return 2;
  }
  if (o.configs.empty()) {
    o.configs = {std::string(MORPHEUS_SOURCE_DIR) + "/configs/tiny.json",
                 std::string(MORPHEUS_SOURCE_DIR) + "/configs/paper.json"};
  }
  std::printf(
      "training throughput on CPU, data %s, %d steps of %d windows (grad_accum 1), "
      "%d threads; words/s = median over steps 2..%d; position-wise layers on %s\n",
      o.data.c_str(), o.steps, o.batch_windows, o.threads, o.steps,
      o.row_packing ? "valid rows only" : "every row");
  std::vector<bool> modes;
  if (o.allocator != "system") modes.push_back(true);
  if (o.allocator != "caching") modes.push_back(false);
  std::vector<Result> firsts;  // per config, the first mode's result
  for (const auto& config : o.configs) {
    const std::string name = std::filesystem::path(config).filename().string();
    std::vector<Result> by_mode;
    for (const bool caching : modes) {
      const Result r = run_config(o, config, caching);
      by_mode.push_back(r);
      const char* mode = caching ? "caching" : "system";
      if (!r.ok) {
        std::printf("  %-11s %-7s FAILED (see the child's message above)\n", name.c_str(), mode);
        continue;
      }
      std::printf(
          "  %-11s %-7s %8.1f words/s  %7.3f s/step  %5.0f words/step  peak RSS %6.0f MB  "
          "(child wall %.1f s incl. setup, dev eval, checkpoint)\n",
          name.c_str(), mode, r.words_per_s, r.s_per_step, r.words_per_step, r.peak_mb, r.wall_s);
    }
    if (by_mode.size() == 2 && by_mode[0].ok && by_mode[1].ok && by_mode[1].words_per_s > 0) {
      std::printf("  %-11s caching/system allocator throughput: %.2fx\n", name.c_str(),
                  by_mode[0].words_per_s / by_mode[1].words_per_s);
    }
    firsts.push_back(by_mode.front());
  }
  if (firsts.size() >= 2 && firsts[0].ok && firsts[1].ok && firsts[1].words_per_s > 0) {
    std::printf("  ratio first/second config throughput: %.1fx\n",
                firsts[0].words_per_s / firsts[1].words_per_s);
  }
  return 0;
}
