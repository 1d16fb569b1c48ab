// SPDX-License-Identifier: MIT
// ProgressBar: a one-line progress display with count, rate and ETA for long loops.
//   ProgressBar bar("segment", total_words, "words");
//   for (...) { ...; bar.add(1); }
//   bar.finish();
// It draws to stderr only when stderr is a terminal (and the log level is info or lower), at most
// ~10 times a second; otherwise it stays quiet and finish() logs one summary line at debug level.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace morpheus {

class ProgressBar {
 public:
  // total == 0 means unknown: shows count and rate without a bar or ETA.
  ProgressBar(std::string label, uint64_t total, std::string unit = "it");
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void add(uint64_t n = 1);
  void set(uint64_t done);
  void finish();
  // Text appended to the line (e.g. "table 69 %"); empty: none.
  void set_note(std::string note) { note_ = std::move(note); }

  uint64_t done() const { return done_; }
  double elapsed_seconds() const;
  // Formats one line, e.g. "train  [#####     ]  50/100 steps  12.5 steps/s  ETA 4s".
  std::string render() const;

  // Whether bars draw at all (default: stderr is a terminal). Tests turn it off or on.
  static void set_enabled(bool enabled);

 private:
  void maybe_draw(bool force);

  std::string label_;
  uint64_t total_;
  std::string unit_;
  std::string note_;
  uint64_t done_ = 0;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "1.2k", "3.4M": compact human-readable counts and rates.
std::string human_count(double value);
// "1h02m", "3m05s", "12s".
std::string human_duration(double seconds);

}  // namespace morpheus
