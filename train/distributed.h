// SPDX-License-Identifier: MIT
// Data-parallel training on torch.distributed's c10d (LibTorch's own process groups: Gloo on CPU,
// NCCL on CUDA when the LibTorch build has it). No communication code of our own: this file only
//   * reads where a process sits in a run (torchrun's RANK/WORLD_SIZE/LOCAL_RANK/MASTER_ADDR/
//     MASTER_PORT, or Slurm's SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID),
//   * joins the group (TCPStore rendezvous at MASTER_ADDR:MASTER_PORT, timeout on every
//     collective),
//   * exchanges gradients: dense parameters flattened into buckets of `bucket_mb` and summed by
//     one all-reduce each (all buckets in flight at once, after backward: LibTorch 1.13's C++ API
//     has no post-accumulation gradient hook to overlap them with backward); Embedding tables
//     (the SGNS context table above all) exchange only the rows some rank touched (an all-reduce
//     of a per-row mask, then one all-reduce of the union's rows) unless the union covers ≥ 3/4
//     of the table,
//   * starts N local ranks of this very executable for `morpheus train --nproc N`.
// Every collective error (a peer that died, or sent nothing within the timeout) comes back as a
// Status naming the rank and the operation, never as a hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace at {
class Tensor;
}

namespace morpheus::train {

// Where this process sits in a run. world_size 1: not distributed.
struct DistEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string launcher = "none";  // "torchrun" (also `--nproc`), "slurm" or "none"
};

// torchrun variables when RANK and WORLD_SIZE are set, else Slurm's when SLURM_NTASKS > 1 (then
// MASTER_ADDR must be set, e.g. to the first host of the allocation), else one process.
StatusOr<DistEnv> dist_env_from_environment();

struct DistOptions {
  std::string backend = "auto";   // auto (gloo on CPU, nccl on CUDA), gloo, nccl
  double timeout_s = 300;         // any collective or the rendezvous: error after this long
  double bucket_mb = 25;          // dense gradient bucket size
  bool sparse_embeddings = true;  // touched-row exchange for Embedding tables
};

// What the last gradient exchange did (for logs and bench/dist_bench.cc).
struct ExchangeStats {
  double seconds = 0;              // wall time of the exchange (flatten, collectives, copy back)
  double dense_bytes = 0;          // payload of the dense all-reduces (per rank)
  double sparse_bytes = 0;         // payload of the row-mask and union-row all-reduces
  double sparse_dense_bytes = 0;   // what the row-sparse tables would have cost dense
  int64_t sparse_rows = 0;         // rows in the union of the ranks' touched rows
  int sparse_tables_dense = 0;     // tables that fell back to the dense all-reduce this step
  double sparse_scan_seconds = 0;  // finding the touched rows (local, before any collective)
  double sparse_seconds = 0;       // the whole touched-row exchange (scan, all-reduces, copy)
};

class DataParallel {
 public:
  // Joins the group of `env` (world_size > 1) for tensors on CUDA device `cuda_device` (the
  // rank's LOCAL_RANK device; NCCL by default, made the current device before the group is
  // created) or on the CPU (cuda_device < 0; Gloo by default).
  static StatusOr<std::unique_ptr<DataParallel>> join(const DistEnv& env,
                                                      const DistOptions& options, int cuda_device);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int rank() const { return env_.rank; }
  int world_size() const { return env_.world_size; }
  const std::string& backend() const { return backend_; }

  // Registers the parameters whose gradients `sync_gradients` exchanges; `row_sparse[i]` marks
  // Embedding tables ([rows, dim], gradients non-zero on touched rows only).
  void set_parameters(const std::vector<at::Tensor>& params, const std::vector<bool>& row_sparse);
  // Touched-row exchange on or off (DistOptions::sparse_embeddings); call set_parameters after.
  void set_sparse_embeddings(bool on) { options_.sparse_embeddings = on; }
  // Replaces every rank's values with rank 0's (parameters and buffers after construction).
  Status broadcast(const std::vector<at::Tensor>& tensors);
  // Sums the registered gradients over ranks in place (undefined gradients count as zero and are
  // defined afterwards).
  Status sync_gradients();
  // Sums `t` over ranks in place (small tensors: per-step statistics; on the device of the
  // gradients, so NCCL takes them).
  Status all_reduce_sum(at::Tensor& t);
  Status barrier();
  const ExchangeStats& last_exchange() const { return stats_; }

 private:
  DataParallel(DistEnv env, DistOptions options);
  Status failure(const std::string& op, const std::exception& e) const;
  Status sync_sparse(size_t k, bool* done);

  DistEnv env_;
  mutable bool failed_ = false;  // a collective failed: the group is left to the process's end
  DistOptions options_;
  std::string backend_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ExchangeStats stats_;
};

// The global step's micro-batches that rank `rank` of `world` computes: plan positions
// step·(world·accum) + rank·accum + a, a < accum, for every step of `steps`.
std::vector<size_t> rank_micro_batches(size_t steps, int world, int rank, int64_t accum);

// Seed of the sampling (dropout, MLM masks, SGNS negatives) of the micro-batch at global plan
// position `micro` of the run: the same on whichever rank computes it, so runs with different
// world sizes and the same global batch draw the same samples.
uint64_t micro_batch_seed(int64_t seed, int64_t micro);

// `morpheus train --nproc N`: runs `args` (this executable's arguments without --nproc) as N
// local ranks with torchrun's variables (MASTER_ADDR 127.0.0.1, a free port), waits for all, and
// returns the first failure (a rank's non-zero exit or signal). Ranks still running
// `grace_s` after another failed are killed.
Status launch_local_ranks(int nproc, const std::vector<std::string>& args, double grace_s);

// This process's arguments (from /proc/self/cmdline) without argv[0].
StatusOr<std::vector<std::string>> own_arguments();

}  // namespace morpheus::train
