// SPDX-License-Identifier: MIT
#include "core/logging.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace morpheus {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_sink_mutex;

void stderr_sink(LogLevel level, const std::string& message) {
  const char* prefix = "";
  switch (level) {
    case LogLevel::kDebug:
      prefix = "debug: ";
      break;
    case LogLevel::kInfo:
      prefix = "";
      break;
    case LogLevel::kWarning:
      prefix = "warning: ";
      break;
    case LogLevel::kError:
    case LogLevel::kSilent:
      prefix = "error: ";
      break;
  }
  std::fprintf(stderr, "%s%s\n", prefix, message.c_str());
  std::fflush(stderr);
}

LogSink& sink_ref() {
  static LogSink sink = stderr_sink;
  return sink;
}

}  // namespace

void set_log_level(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

LogSink set_log_sink(LogSink sink) {
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  LogSink previous = sink_ref();
  sink_ref() = sink ? std::move(sink) : LogSink(stderr_sink);
  return previous;
}

void log_message(LogLevel level, const std::string& message) {
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  sink_ref()(level, message);
}

}  // namespace morpheus
