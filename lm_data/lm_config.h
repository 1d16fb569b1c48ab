// SPDX-License-Identifier: MIT
// LmConfig: the "lm" section of a config file — the GPT of `morpheus lm train` (lm/gpt.h), its
// optimiser, schedule and bookkeeping. Defaults are the reference setup (the Morpheus paper's
// language-model comparison: 8 layers, d 512 at a 64K vocabulary, 8 heads, context 512, batch 32,
// 10,000 steps, AdamW 3e-4 β 0.9/0.95 wd 0.01, 500 warm-up steps, cosine to 0.1×, clip 1.0);
// configs/lm_paper.json spells them out, configs/lm_small.json is the CPU study. Read by
// load_section<LmConfig> / section_from_json<LmConfig> (core/config_section.h); its JSON fields
// are in lm_config.cc.
//
// Parameter equalization: with equalize_vocab > 0 every vocabulary V gets the width d that
// solves V·d + 12·L·d² + context·d = equalize_vocab·d_model + 12·L·d_model² + context·d_model
// (embedding/tied head + blocks + positions), rounded to a multiple of the heads: 64,000 → 512,
// 50,000 → 560, 32,768 → 624 for the reference's 8 × 512 at 64K.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::lm {

struct LmConfig {
  static constexpr const char* kSection = "lm";
  // Model: a pre-norm GPT with learned positions and a tied output head.
  int64_t layers = 8;              // L, transformer blocks; [1, 256]
  int64_t heads = 8;               // H, attention heads; [1, 256]
  int64_t d_model = 512;           // width at equalize_vocab (or for every V when that is 0)
  int64_t equalize_vocab = 64000;  // reference vocabulary of the parameter budget; 0 = off
  int64_t context = 512;           // T, tokens per training and evaluation window; [2, 65536]
  double dropout = 0.0;            // on embeddings and both residual branches; [0, 1)
  // Optimisation: AdamW (decay on 2-D weights only), linear warm-up, cosine to lr_min_ratio.
  int64_t batch_size = 32;     // B, windows per step: B·T tokens per step; [1, 1e6]
  int64_t steps = 10000;       // optimiser steps; [1, 1e9]
  double lr = 3e-4;            // peak learning rate; > 0
  double beta1 = 0.9;          // [0, 1)
  double beta2 = 0.95;         // [0, 1)
  double eps = 1e-8;           // > 0
  double weight_decay = 0.01;  // >= 0
  int64_t warmup_steps = 500;  // capped at steps/4 (core/lr_schedule.h); >= 0
  double lr_min_ratio = 0.1;   // [0, 1]
  double grad_clip = 1.0;      // global gradient norm; 0 = off
  // Reproducibility: the initialisation and the order of the training lines (the same order for
  // every tokenizer of a seed, so seeds pair across systems).
  int64_t seed = 1;
  // Bookkeeping.
  int64_t log_every = 100;          // steps between metrics.jsonl rows; >= 1
  int64_t eval_every = 1000;        // steps between validation BPC rows; 0 = at the end only
  int64_t checkpoint_every = 1000;  // steps between checkpoints; 0 = at the end only
  int64_t eval_batch = 32;          // windows per evaluation forward; >= 1
  int64_t threads = 0;              // intra-op CPU threads; 0 = LibTorch's default
  // Free text kept with the config and every run's config.json (why these values); no effect.
  std::vector<std::string> note;

  // OK, or INVALID_ARGUMENT naming the first field out of range.
  Status validate() const;
};

// Every field; missing keys keep their defaults.
void to_json(nlohmann::json& j, const LmConfig& config);
void from_json(const nlohmann::json& j, LmConfig& config);

// equalize_vocab·d_model + 12·L·d_model² + context·d_model: the reference formula's budget.
double parameter_budget(const LmConfig& config);
// The width for a tokenizer vocabulary of `vocab` ids: d_model when equalize_vocab is 0, else the
// positive root of 12·L·d² + (vocab + context)·d = parameter_budget rounded to the nearest
// multiple of the heads (at least one per head).
int64_t model_width(const LmConfig& config, int64_t vocab);

}  // namespace morpheus::lm
