// SPDX-License-Identifier: MIT
#include "core/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace morpheus {

int64_t effective_warmup(int64_t warmup_steps, int64_t total_steps) {
  return std::max<int64_t>(0, std::min(warmup_steps, total_steps / 4));
}

double lr_multiplier(int64_t step, int64_t total_steps, int64_t warmup_steps, double min_ratio) {
  const int64_t warmup = effective_warmup(warmup_steps, total_steps);
  if (step < warmup) return static_cast<double>(step + 1) / static_cast<double>(warmup);
  const int64_t span = std::max<int64_t>(1, total_steps - warmup);
  const double progress =
      std::clamp(static_cast<double>(step - warmup) / static_cast<double>(span), 0.0, 1.0);
  return min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace morpheus
