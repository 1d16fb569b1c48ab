// SPDX-License-Identifier: MIT
// Where the benchmarks find the shared data: $MORPHEUS_SHARED_DATA, or else <repo>/../shared/data
// (the same rule as the tests, tests/support/test_support.cc).
#pragma once

#include <cstdlib>
#include <string>

namespace morpheus::bench {

inline std::string shared_data_dir() {
  const char* env = std::getenv("MORPHEUS_SHARED_DATA");
  if (env != nullptr && *env != '\0') return env;
  return std::string(MORPHEUS_SOURCE_DIR) + "/../shared/data";
}

}  // namespace morpheus::bench
