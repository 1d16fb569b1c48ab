// SPDX-License-Identifier: MIT
// Leveled logging to stderr: the only place library code writes to stderr.
//   MORPHEUS_LOG(kInfo, "read ", n, " lines");
// The level is process-wide (set by tools/ from -v / -q); tests may redirect the sink.
#pragma once

#include <functional>
#include <string>

#include "core/check.h"

namespace morpheus {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kSilent = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();

// Replaces the sink (default: stderr, one line per message). Returns the previous one.
using LogSink = std::function<void(LogLevel, const std::string&)>;
LogSink set_log_sink(LogSink sink);

void log_message(LogLevel level, const std::string& message);

}  // namespace morpheus

#define MORPHEUS_LOG(level, ...)                                                \
  do {                                                                          \
    if (::morpheus::LogLevel::level >= ::morpheus::log_level()) {               \
      ::morpheus::log_message(::morpheus::LogLevel::level,                      \
                              ::morpheus::detail::concat_message(__VA_ARGS__)); \
    }                                                                           \
  } while (false)
