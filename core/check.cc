// SPDX-License-Identifier: MIT
#include "core/check.h"

namespace morpheus::detail {

void throw_check_failure(const char* file, int line, const char* condition,
                         const std::string& message) {
  std::string what =
      std::string(file) + ":" + std::to_string(line) + ": check failed: " + condition;
  if (!message.empty()) what += ": " + message;
  throw InternalError(what);
}

}  // namespace morpheus::detail
