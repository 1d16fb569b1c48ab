// SPDX-License-Identifier: MIT
#include "core/progress.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>

#include "core/logging.h"

namespace morpheus {
namespace {

std::atomic<int> g_progress_enabled{-1};  // -1: decide from isatty(stderr)

bool progress_enabled() {
  int v = g_progress_enabled.load();
  if (v < 0) {
    v = isatty(STDERR_FILENO) ? 1 : 0;
    g_progress_enabled = v;
  }
  return v == 1 && log_level() <= LogLevel::kInfo;
}

}  // namespace

void ProgressBar::set_enabled(bool enabled) { g_progress_enabled = enabled ? 1 : 0; }

std::string human_count(double value) {
  char buf[32];
  const double a = std::fabs(value);
  if (a >= 1e9) {
    std::snprintf(buf, sizeof(buf), "%.2fG", value / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%.2fM", value / 1e6);
  } else if (a >= 1e4) {
    std::snprintf(buf, sizeof(buf), "%.1fk", value / 1e3);
  } else if (a >= 100 || value == std::floor(value)) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f", value);
  }
  return buf;
}

std::string human_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof(buf), "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%llds", s);
  }
  return buf;
}

ProgressBar::ProgressBar(std::string label, uint64_t total, std::string unit)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (!finished_) finish();
}

double ProgressBar::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::add(uint64_t n) {
  done_ += n;
  maybe_draw(false);
}

void ProgressBar::set(uint64_t done) {
  done_ = done;
  maybe_draw(false);
}

std::string ProgressBar::render() const {
  const double secs = elapsed_seconds();
  const double rate = secs > 0 ? static_cast<double>(done_) / secs : 0.0;
  std::string line = label_ + "  ";
  if (total_ > 0) {
    constexpr int kWidth = 24;
    const double frac = std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
    const int filled = static_cast<int>(frac * kWidth);
    line += "[" + std::string(static_cast<size_t>(filled), '#') +
            std::string(static_cast<size_t>(kWidth - filled), ' ') + "] ";
    line += human_count(static_cast<double>(done_)) + "/" +
            human_count(static_cast<double>(total_)) + " " + unit_;
  } else {
    line += human_count(static_cast<double>(done_)) + " " + unit_;
  }
  line += "  " + human_count(rate) + " " + unit_ + "/s";
  if (total_ > 0 && rate > 0 && done_ < total_) {
    line += "  ETA " + human_duration(static_cast<double>(total_ - done_) / rate);
  } else {
    line += "  " + human_duration(secs);
  }
  if (!note_.empty()) line += "  " + note_;
  return line;
}

void ProgressBar::maybe_draw(bool force) {
  if (!progress_enabled()) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::fprintf(stderr, "\r\033[2K%s", render().c_str());
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  if (progress_enabled()) {
    maybe_draw(true);
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
  } else {
    MORPHEUS_LOG(kDebug, render());
  }
}

}  // namespace morpheus
