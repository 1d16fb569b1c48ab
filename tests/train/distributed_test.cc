// SPDX-License-Identifier: MIT
// Data-parallel `morpheus train` (train/distributed.h) with Gloo over loopback: the real
// executable (MORPHEUS_TRAIN_EXE) runs as 1 or 2 ranks on a tiny prepared corpus (tests/data/
// prepare repeated), and the checkpoints it writes are compared parameter by parameter.
#include "train/distributed.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/file_util.h"
#include "model/checkpoint.h"
#include "tests/support/test_support.h"

extern char** environ;

namespace morpheus::train {
namespace {

using Clock = std::chrono::steady_clock;

// Parameters of two runs that saw the same global batches agree to this (float32 sums in a
// different order: the all-reduce adds g0 + g1, accumulation adds g0/2 + g1/2).
constexpr double kTolerance = 2e-5;

std::string exe() { return MORPHEUS_TRAIN_EXE; }

struct Proc {
  pid_t pid = -1;
};

// Starts the morpheus executable with `args`, extra environment `env`, stderr to `err_file`.
Proc spawn(const std::vector<std::string>& args, const std::vector<std::string>& env,
           const std::string& err_file) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.insert(env_strings.end(), env.begin(), env.end());
  std::vector<std::string> argv_strings = {exe()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  Proc p;
  EXPECT_EQ(posix_spawn(&p.pid, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  return p;
}

// Exit status of `p` (-1 when it was killed by a signal), waiting at most `timeout_s`; on a
// timeout the process is killed and -2 returned.
int wait_exit(Proc p, double timeout_s, double* elapsed = nullptr) {
  const auto t0 = Clock::now();
  int status = 0;
  while (true) {
    const pid_t done = waitpid(p.pid, &status, WNOHANG);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (elapsed != nullptr) *elapsed = s;
    if (done == p.pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (s > timeout_s) {
      kill(p.pid, SIGKILL);
      waitpid(p.pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int run(const std::vector<std::string>& args, const std::string& err_file) {
  return wait_exit(spawn(args, {}, err_file), 300);
}

std::string slurp(const std::string& path) {
  auto text = read_file(path);
  return text.ok() ? *text : std::string();
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// torchrun's variables for rank `rank` of `world`.
std::vector<std::string> rank_env(int rank, int world, int port) {
  return {"RANK=" + std::to_string(rank),
          "WORLD_SIZE=" + std::to_string(world),
          "LOCAL_RANK=" + std::to_string(rank),
          "LOCAL_WORLD_SIZE=" + std::to_string(world),
          "MASTER_ADDR=127.0.0.1",
          "MASTER_PORT=" + std::to_string(port)};
}

// The prepared tiny corpus, made once per test program.
const std::string& data_dir() {
  static const std::string dir = [] {
    const std::string tmp = testing::make_temp_dir("dist_data");
    const std::string prep = testing::source_dir() + "/tests/data/prepare";
    const std::string corpus = slurp(prep + "/corpus.txt");
    std::string repeated;
    for (int i = 0; i < 60; ++i) repeated += corpus;
    EXPECT_TRUE(write_file_atomic(tmp + "/corpus.txt", repeated).ok());
    const int rc = run(
        {"-q", "prepare", "--corpus", tmp + "/corpus.txt", "--teacher", prep + "/teacher.tsv",
         "--set", "prepare.root_lexicon=" + prep + "/roots.txt", "--set",
         "prepare.suffix_lexicon=" + prep + "/suffixes.txt", "--set", "prepare.word_min_count=1",
         "--set", "prepare.root_min_count=1", "--out", tmp + "/data"},
        tmp + "/prepare.err");
    EXPECT_EQ(rc, 0) << slurp(tmp + "/prepare.err");
    return tmp + "/data";
  }();
  return dir;
}

// `train` arguments of the tiny runs: 4 steps, micro-batches of 2 windows, checkpoints every 2.
std::vector<std::string> train_args(const std::string& out, int64_t accum,
                                    const std::vector<std::string>& more = {}) {
  std::vector<std::string> a = {"-q",       "train",
                                "--data",   data_dir(),
                                "--config", testing::source_dir() + "/configs/tiny.json",
                                "--out",    out,
                                "--device", "cpu",
                                "--set",    "train.max_steps=4",
                                "--set",    "train.batch_windows=2",
                                "--set",    "train.checkpoint_every=2",
                                "--set",    "train.threads=1",
                                "--set",    "train.grad_accum=" + std::to_string(accum)};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::map<std::string, torch::Tensor> load_params(const std::string& dir) {
  auto module = model::load_checkpoint(dir);
  EXPECT_TRUE(module.ok()) << dir << ": " << module.status().to_string();
  std::map<std::string, torch::Tensor> out;
  if (!module.ok()) return out;
  for (const auto& item : (*module)->named_parameters()) out[item.key()] = item.value().clone();
  return out;
}

double max_abs_diff(const std::map<std::string, torch::Tensor>& a,
                    const std::map<std::string, torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (const auto& [name, t] : a) {
    auto it = b.find(name);
    if (it == b.end()) {
      ADD_FAILURE() << "missing parameter " << name;
      continue;
    }
    worst = std::max(worst, (t - it->second).abs().max().item<double>());
  }
  return worst;
}

// One rank accumulating 2 micro-batches of 2 windows per step (made once).
const std::string& one_rank_run() {
  static const std::string out = [] {
    const std::string dir = testing::make_temp_dir("dist_one") + "/run";
    EXPECT_EQ(run(train_args(dir, 2), dir + ".err"), 0) << slurp(dir + ".err");
    return dir;
  }();
  return out;
}

std::string step_dir(const std::string& run_dir, int step) {
  char name[32];
  std::snprintf(name, sizeof(name), "step-%08d", step);
  return run_dir + "/checkpoints/" + name;
}

TEST(DataParallel, TwoRanksMatchOneRankAccumulatingTheSameMicroBatches) {
  const std::string two = testing::make_temp_dir("dist_two") + "/run";
  ASSERT_EQ(run(train_args(two, 1, {"--nproc", "2"}), two + ".err"), 0) << slurp(two + ".err");
  const auto ref = load_params(step_dir(one_rank_run(), 4));
  const auto got = load_params(step_dir(two, 4));
  ASSERT_FALSE(ref.empty());
  const double diff = max_abs_diff(ref, got);
  EXPECT_LT(diff, kTolerance);
  // The steps moved the parameters far more than the tolerance.
  EXPECT_GT(max_abs_diff(ref, load_params(step_dir(one_rank_run(), 2))), 10 * kTolerance);
  std::printf("2 ranks vs 1 rank after 4 steps: max |Δparam| = %.3g\n", diff);
}

TEST(DataParallel, TwoRankRunResumedAsOneRankContinuesTheTrajectory) {
  const std::string two = testing::make_temp_dir("dist_resume") + "/run";
  ASSERT_EQ(run(train_args(two, 1, {"--nproc", "2"}), two + ".err"), 0) << slurp(two + ".err");
  // As if the 2-rank run had died after its step-2 checkpoint.
  ASSERT_TRUE(write_file_atomic(two + "/checkpoints/latest", "step-00000002\n").ok());
  std::filesystem::remove_all(step_dir(two, 4));
  std::filesystem::remove_all(two + "/final");
  ASSERT_EQ(run(train_args(two, 2, {"--resume"}), two + ".err1"), 0) << slurp(two + ".err1");
  EXPECT_LT(max_abs_diff(load_params(step_dir(one_rank_run(), 4)), load_params(step_dir(two, 4))),
            kTolerance);
}

TEST(DataParallel, ResumeWithAnotherGlobalBatchIsAClearError) {
  const std::string dir = testing::make_temp_dir("dist_resume_bad") + "/run";
  std::filesystem::copy(one_rank_run(), dir, std::filesystem::copy_options::recursive);
  ASSERT_EQ(run(train_args(dir, 1, {"--resume"}), dir + ".err"), 1);
  EXPECT_NE(slurp(dir + ".err").find("train.grad_accum=2"), std::string::npos)
      << slurp(dir + ".err");
}

TEST(DataParallel, OnlyRankZeroWritesFiles) {
  const std::string tmp = testing::make_temp_dir("dist_writes");
  const int port = free_port();
  // Each rank gets its own --out: rank 1's must stay absent.
  Proc r1 = spawn(train_args(tmp + "/rank1", 1), rank_env(1, 2, port), tmp + "/rank1.err");
  Proc r0 = spawn(train_args(tmp + "/rank0", 1), rank_env(0, 2, port), tmp + "/rank0.err");
  EXPECT_EQ(wait_exit(r0, 120), 0) << slurp(tmp + "/rank0.err");
  EXPECT_EQ(wait_exit(r1, 120), 0) << slurp(tmp + "/rank1.err");
  EXPECT_TRUE(file_exists(tmp + "/rank0/final/config.json"));
  EXPECT_TRUE(file_exists(tmp + "/rank0/metrics.jsonl"));
  EXPECT_FALSE(file_exists(tmp + "/rank1"));
  EXPECT_EQ(slurp(tmp + "/rank1.err"), "");  // -q: nothing but errors, and there were none
}

// Starts 2 ranks on a long run (checkpoint every 2 steps), waits for rank 0's first checkpoint,
// applies `signal` to rank 1, and checks rank 0 exits non-zero within the timeout with a clear
// error, leaving a loadable checkpoint.
void expect_peer_failure_detected(int signal, double timeout_s) {
  const std::string tmp = testing::make_temp_dir("dist_fail");
  const int port = free_port();
  const std::vector<std::string> more = {"--dist-timeout", std::to_string(timeout_s), "--set",
                                         "train.max_steps=1000000"};
  Proc r0 = spawn(train_args(tmp + "/run", 1, more), rank_env(0, 2, port), tmp + "/rank0.err");
  Proc r1 = spawn(train_args(tmp + "/run", 1, more), rank_env(1, 2, port), tmp + "/rank1.err");
  const auto t0 = Clock::now();
  while (!file_exists(tmp + "/run/checkpoints/latest") &&
         std::chrono::duration<double>(Clock::now() - t0).count() < 60) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(file_exists(tmp + "/run/checkpoints/latest")) << slurp(tmp + "/rank0.err");
  kill(r1.pid, signal);
  double elapsed = 0;
  const int rc0 = wait_exit(r0, timeout_s + 30, &elapsed);
  kill(r1.pid, SIGKILL);
  wait_exit(r1, 10);
  EXPECT_EQ(rc0, 1) << slurp(tmp + "/rank0.err");
  EXPECT_LT(elapsed, timeout_s + 10);
  EXPECT_NE(slurp(tmp + "/rank0.err").find("rank 0 of 2"), std::string::npos)
      << slurp(tmp + "/rank0.err");
  std::string latest = slurp(tmp + "/run/checkpoints/latest");
  while (!latest.empty() && latest.back() == '\n') latest.pop_back();
  EXPECT_TRUE(model::load_checkpoint(tmp + "/run/checkpoints/" + latest).ok());
  std::printf("rank 0 exited %.2f s after signal %d to rank 1 (timeout %.0f s)\n", elapsed, signal,
              timeout_s);
}

TEST(DataParallel, KilledRankMakesTheOtherExitWithAnError) {
  expect_peer_failure_detected(SIGKILL, 20);
}

TEST(DataParallel, HungRankMakesTheOtherExitWithinTheTimeout) {
  expect_peer_failure_detected(SIGSTOP, 5);
}

TEST(DataParallel, NcclWithoutNcclIsAClearError) {
  const std::string dir = testing::make_temp_dir("dist_nccl") + "/run";
  ASSERT_EQ(run(train_args(dir, 1, {"--nproc", "2", "--dist-backend", "nccl"}), dir + ".err"), 1);
  EXPECT_NE(slurp(dir + ".err").find("NCCL"), std::string::npos) << slurp(dir + ".err");
}

// Two ranks as two threads of this process: rank r's gradients are `grads[r]`; returns what
// each rank holds after sync_gradients.
std::vector<std::vector<torch::Tensor>> exchange_in_threads(
    const std::vector<std::vector<torch::Tensor>>& grads, const std::vector<bool>& tables,
    bool sparse, std::vector<ExchangeStats>* stats) {
  const int port = free_port();
  std::vector<std::vector<torch::Tensor>> out(2);
  stats->assign(2, ExchangeStats{});
  auto rank_main = [&](int rank) {
    DistEnv env;
    env.rank = rank;
    env.world_size = 2;
    env.master_port = port;
    DistOptions options;
    options.timeout_s = 30;
    options.sparse_embeddings = sparse;
    auto dp = DataParallel::join(env, options, /*cuda_device=*/-1);
    ASSERT_TRUE(dp.ok()) << dp.status().to_string();
    std::vector<torch::Tensor> params;
    for (const auto& g : grads[static_cast<size_t>(rank)]) {
      params.push_back(torch::zeros_like(g));
      params.back().mutable_grad() = g.clone();
    }
    (*dp)->set_parameters(params, tables);
    ASSERT_TRUE((*dp)->sync_gradients().ok());
    for (const auto& p : params) out[static_cast<size_t>(rank)].push_back(p.grad());
    (*stats)[static_cast<size_t>(rank)] = (*dp)->last_exchange();
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  return out;
}

TEST(DataParallel, TouchedRowExchangeSumsTablesLikeTheDenseAllReduce) {
  // A [1000, 8] table touched on a few rows per rank (overlapping) and a dense matrix.
  std::vector<std::vector<torch::Tensor>> grads(2);
  for (int r = 0; r < 2; ++r) {
    torch::Tensor table = torch::zeros({1000, 8});
    const torch::Tensor rows = torch::tensor({3 + r, 10, 500 + 7 * r, 999}, torch::kLong);
    table.index_copy_(0, rows, torch::randn({4, 8}));
    grads[static_cast<size_t>(r)] = {table, torch::randn({5, 7})};
  }
  std::vector<ExchangeStats> stats;
  const auto got = exchange_in_threads(grads, {true, false}, true, &stats);
  for (size_t i = 0; i < 2; ++i) {
    const torch::Tensor want = grads[0][i] + grads[1][i];
    for (int r = 0; r < 2; ++r) {
      EXPECT_TRUE(torch::allclose(got[static_cast<size_t>(r)][i], want, 0, 1e-6));
    }
  }
  EXPECT_TRUE(torch::equal(got[0][0], got[1][0]));  // the same bits on both ranks
  EXPECT_EQ(stats[0].sparse_rows, 6);               // union {3, 4, 10, 500, 507, 999}
  EXPECT_EQ(stats[0].sparse_tables_dense, 0);
  // The row mask (4 bytes a row) and 6 rows instead of the 1000-row table.
  EXPECT_LT(stats[0].sparse_bytes, stats[0].sparse_dense_bytes / 4);
}

TEST(DataParallel, TableMostlyTouchedFallsBackToTheDenseAllReduce) {
  std::vector<std::vector<torch::Tensor>> grads = {{torch::randn({16, 4})},
                                                   {torch::randn({16, 4})}};
  std::vector<ExchangeStats> stats;
  const auto got = exchange_in_threads(grads, {true}, true, &stats);
  EXPECT_EQ(stats[0].sparse_tables_dense, 1);
  EXPECT_TRUE(torch::allclose(got[0][0], grads[0][0] + grads[1][0], 0, 1e-6));
}

TEST(DataParallel, RanksSplitTheGlobalStepIntoDisjointMicroBatches) {
  const auto r0 = rank_micro_batches(3, 2, 0, 2);
  const auto r1 = rank_micro_batches(3, 2, 1, 2);
  EXPECT_EQ(r0, (std::vector<size_t>{0, 1, 4, 5, 8, 9}));
  EXPECT_EQ(r1, (std::vector<size_t>{2, 3, 6, 7, 10, 11}));
  EXPECT_EQ(rank_micro_batches(3, 1, 0, 4).size(), 12u);
}

}  // namespace
}  // namespace morpheus::train
