// SPDX-License-Identifier: MIT
// cbpe_train_bench: trains CBPE (in a forked child, this library) and `morpheus-spm --type bpe`
// (a child process) on the same corpus at the same vocabulary size, and prints wall time, CPU
// time and peak RSS of each child (wait4 rusage) and the time ratio SentencePiece / CBPE.
//   cbpe_train_bench [--corpus FILE] [--vocab-size 32000] [--boundaries FILE.tsv]
//                    [--spm PATH] [--out DIR]
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "baselines/cbpe/cbpe_model.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "tokenizer/segment_table.h"

namespace {

struct ChildResult {
  bool ok = false;
  double wall_s = 0;
  double cpu_s = 0;
  double peak_mb = 0;
};

ChildResult wait_child(pid_t pid, std::chrono::steady_clock::time_point start) {
  ChildResult r;
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) < 0) return r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  r.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  r.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  return r;
}

ChildResult run_cbpe(const std::string& corpus, const std::string& boundaries, size_t vocab,
                     const std::string& out) {
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    using morpheus::tokenizer::cbpe::CbpeConfig;
    using morpheus::tokenizer::cbpe::CbpeModel;
    CbpeConfig config;
    std::shared_ptr<const morpheus::tokenizer::Segmenter> bounds;
    if (!boundaries.empty()) {
      config.boundaries = "file";
      auto table = morpheus::tokenizer::TableSegmenter::load(boundaries);
      if (!table.ok()) {
        std::fprintf(stderr, "%s\n", table.status().to_string().c_str());
        _exit(1);
      }
      bounds = std::move(table).value();
    }
    auto model = CbpeModel::train_corpus(corpus, bounds, config, vocab);
    morpheus::Status saved = model.ok() ? model->save(out) : model.status();
    if (!saved.ok()) std::fprintf(stderr, "cbpe: %s\n", saved.to_string().c_str());
    std::fflush(stdout);
    _exit(saved.ok() ? 0 : 1);
  }
  return wait_child(pid, start);
}

ChildResult run_spm(const std::string& spm, const std::string& corpus, size_t vocab,
                    const std::string& out) {
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string v = std::to_string(vocab);
    std::vector<const char*> argv = {spm.c_str(),    "-q",     "train",     "--corpus",
                                     corpus.c_str(), "--type", "bpe",       "--vocab-size",
                                     v.c_str(),      "--out",  out.c_str(), nullptr};
    execv(spm.c_str(), const_cast<char* const*>(argv.data()));
    std::perror("execv morpheus-spm");
    _exit(127);
  }
  return wait_child(pid, start);
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = MORPHEUS_SOURCE_DIR "/node_modules/nlptoolkit-corpus/corpus.txt";
  std::string spm = MORPHEUS_SPM_BINARY;
  std::string boundaries;
  std::string out = "/tmp/cbpe_train_bench." + std::to_string(getpid());
  size_t vocab = 32000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--corpus")
      corpus = value;
    else if (key == "--vocab-size")
      vocab = std::stoul(value);
    else if (key == "--boundaries")
      boundaries = value;
    else if (key == "--spm")
      spm = value;
    else if (key == "--out")
      out = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  if (!morpheus::file_exists(corpus)) {
    std::fprintf(stderr, "corpus not found: %s (run npm install in the repo)\n", corpus.c_str());
    return 1;
  }
  morpheus::set_log_level(morpheus::LogLevel::kWarning);
  std::printf("corpus: %s, vocab size %zu, cbpe boundaries: %s\n", corpus.c_str(), vocab,
              boundaries.empty() ? "none (plain BPE control)" : boundaries.c_str());
  const ChildResult cbpe = run_cbpe(corpus, boundaries, vocab, out + "/cbpe");
  const ChildResult sp = run_spm(spm, corpus, vocab, out + "/spm_bpe");
  std::printf("%-22s %10s %10s %12s\n", "trainer", "wall s", "cpu s", "peak RSS MB");
  std::printf("%-22s %10.2f %10.2f %12.1f %s\n", "cbpe (1 thread)", cbpe.wall_s, cbpe.cpu_s,
              cbpe.peak_mb, cbpe.ok ? "" : "FAILED");
  std::printf("%-22s %10.2f %10.2f %12.1f %s\n", "morpheus-spm bpe", sp.wall_s, sp.cpu_s,
              sp.peak_mb, sp.ok ? "" : "FAILED");
  if (cbpe.ok && sp.ok && cbpe.wall_s > 0) {
    std::printf("ratio spm/cbpe: wall %.2fx, cpu %.2fx, peak RSS %.2fx\n", sp.wall_s / cbpe.wall_s,
                sp.cpu_s / cbpe.cpu_s, sp.peak_mb / cbpe.peak_mb);
  }
  std::printf("models written under %s\n", out.c_str());
  return cbpe.ok && sp.ok ? 0 : 1;
}
