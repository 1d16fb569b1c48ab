// SPDX-License-Identifier: MIT
// Small integer arithmetic shared by the buffers and file layouts.
#pragma once

#include <cstddef>

namespace morpheus {

// n rounded up to a multiple of `multiple` (> 0).
constexpr size_t round_up(size_t n, size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

}  // namespace morpheus
