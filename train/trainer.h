// SPDX-License-Identifier: MIT
// The training loop of `morpheus train` (reference §2, with §7.3's defects fixed):
//   AdamW with explicit parameter groups (no weight decay on biases, LayerNorm gains, embeddings
//   and mask vectors), linear warm-up + cosine to lr_min_ratio, global-norm clipping, gradient
//   accumulation, the aux curriculum max(end, start·decay^epoch), a NaN/Inf guard that skips only
//   the bad micro-batch, dev evaluation with fixed seeds (boundary P/R/F1 on interior gaps over
//   all of dev + per-objective losses), metrics.jsonl, atomic checkpoints every N steps, and
//   bit-exact --resume (data order, RNG state, optimiser and schedule state).
// Data-parallel runs (options.dist): gradients summed over ranks every optimiser step; sampling
// (dropout, MLM masks, SGNS negatives) seeded per micro-batch of the global plan.
// Run directory: config.json, metrics.jsonl, checkpoints/step-XXXXXXXX/ (model checkpoint
// + optimizer.pt + rng.pt + trainer_state.json), checkpoints/latest (name of the newest
// complete one), final/ (inference checkpoint of the last step), training_curves.png (losses per
// objective, dev P/R/F1 and lr against the step, drawn from metrics.jsonl at the end of a run).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "train/distributed.h"

namespace morpheus::train {

struct TrainOptions {
  std::string data_dir;  // output of `morpheus prepare` (train.cache, dev.cache, vocabularies)
  std::string out_dir;   // run directory
  std::string device = "auto";
  bool resume = false;
  nlohmann::json config;  // resolved config with "model" and "train" sections
  // Data parallelism (train/distributed.h): with dist.world_size > 1 this process is rank
  // dist.rank of the run. The global step is world_size × grad_accum micro-batches of
  // batch_windows windows, consecutive in the seeded epoch plan; rank r computes the r-th
  // grad_accum of them, so the trajectory depends on the global batch, not on the world size.
  // Rank 0 alone writes files; every rank reads the data and, with --resume, the checkpoint.
  DistEnv dist;
  DistOptions dist_options;
  // Test hook: called after every optimiser step with the global step; returning false stops
  // the run there (as a kill would, but without writing a final checkpoint).
  std::function<bool(int64_t)> after_step;
  // Test hook: forces the loss of the micro-batch with this global index to NaN (−1 = never).
  int64_t poison_micro_batch = -1;
};

struct TrainSummary {
  int64_t steps = 0;
  int64_t skipped_micro_batches = 0;
  double seconds = 0;
  nlohmann::json first_losses;  // the first logged row
  nlohmann::json last_losses;   // the last logged row
  nlohmann::json dev;           // the last dev evaluation
};

StatusOr<TrainSummary> run_training(const TrainOptions& options);

}  // namespace morpheus::train
