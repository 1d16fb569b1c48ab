// SPDX-License-Identifier: MIT
// TrainConfig: the "train" section of a config file (optimiser, schedule, batching, logging,
// checkpointing). Defaults are the paper's run (reference §2.1); configs/tiny.json overrides them
// for CPU runs. Read by section_from_json<TrainConfig> (core/config_section.h); its JSON fields
// are in train_config.cc.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/status.h"

namespace morpheus::train {

struct TrainConfig {
  static constexpr const char* kSection = "train";
  // Length of the run.
  int64_t epochs = 10;    // passes over the train windows; [1, 1e6]
  int64_t max_steps = 0;  // optimiser steps; 0 = epochs × steps_per_epoch; else the run length
  // Batching: a micro-batch packs the real words of `batch_windows` windows (sentence rows of
  // ≤ 32 words), bucketed by word length; `grad_accum` micro-batches make one optimiser step.
  int64_t batch_windows = 256;  // [1, 1e6]
  int64_t grad_accum = 2;       // [1, 1024]
  int64_t bucket_batches = 50;  // batches sorted by length together before shuffling; [1, 1e6]
  bool skip_chunks = false;     // leave out chunks of words longer than the model's word length
  // AdamW (explicit groups: no decay on biases, norms, embeddings and mask vectors).
  double lr = 3e-4;            // peak learning rate; > 0
  double beta1 = 0.9;          // [0, 1)
  double beta2 = 0.98;         // [0, 1)
  double eps = 1e-6;           // > 0
  double weight_decay = 0.01;  // >= 0
  double grad_clip = 0.5;      // max global gradient norm; 0 = no clipping
  // Schedule: linear warm-up over min(warmup_steps, total/4) steps, then cosine to
  // lr_min_ratio × lr at the last step.
  int64_t warmup_steps = 1000;  // >= 0
  double lr_min_ratio = 0.2;    // [0, 1]
  // Reproducibility: data order, dropout, MLM masks and negatives all derive from this seed.
  int64_t seed = 1337;
  // Observability.
  int64_t log_every = 100;       // optimiser steps between metrics.jsonl rows; >= 1
  int64_t eval_every = 0;        // steps between dev evaluations; 0 = at each epoch end
  int64_t checkpoint_every = 0;  // steps between checkpoints; 0 = at each epoch end
  int64_t dev_max_windows = 0;   // dev windows evaluated; 0 = all of dev
  int64_t eval_seed = 4242;      // fixed seed for dev MLM masks and SGNS negatives
  int64_t threads = 0;           // intra-op CPU threads; 0 = all cores

  // OK, or INVALID_ARGUMENT naming the first field out of range.
  Status validate() const;
};

// Every field; missing keys keep their defaults.
void to_json(nlohmann::json& j, const TrainConfig& config);
void from_json(const nlohmann::json& j, TrainConfig& config);

}  // namespace morpheus::train
