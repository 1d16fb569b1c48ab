// SPDX-License-Identifier: MIT
// The learning-rate schedule of both trainers (train/, lm/), a pure function of the step:
//   lr(s) = peak × lr_multiplier(s): linear warm-up (s+1)/warmup, then cosine from 1 to
//   min_ratio over the remaining steps (reference §2.3).
#pragma once

#include <cstdint>

namespace morpheus {

// min(warmup_steps, total_steps / 4), as the reference caps warm-up on short runs.
int64_t effective_warmup(int64_t warmup_steps, int64_t total_steps);

// Multiplier of the peak learning rate for optimiser step `step` (0-based) of `total_steps`.
double lr_multiplier(int64_t step, int64_t total_steps, int64_t warmup_steps, double min_ratio);

}  // namespace morpheus
