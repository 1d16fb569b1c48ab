// SPDX-License-Identifier: MIT
// Shared command-line plumbing for the `morpheus` and `morpheus-spm` executables (CLI11).
// Each leaf subcommand registers an action returning Status; run_cli parses, runs the chosen
// action, and maps outcomes to exit codes: 0 ok, 1 runtime error (message + hint on stderr),
// 2 usage error. It is the only place that catches exceptions.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::tools {

class CommandRegistry {
 public:
  void add(CLI::App* command, std::function<Status()> action);
  // Runs before any action (e.g. the BLAS check); may be empty.
  void set_before_action(std::function<void()> hook) { before_action_ = std::move(hook); }

  // Parses argv, runs the parsed leaf command, returns the process exit code.
  int run(CLI::App& app, int argc, char** argv);

 private:
  std::vector<std::pair<CLI::App*, std::function<Status()>>> commands_;
  std::function<void()> before_action_;
};

// Adds -v/--verbose, -q/--quiet to the top-level app (they set the log level).
void add_global_flags(CLI::App& app);

// An output stream: stdout for "-" or empty, else a file written atomically (commit on close).
class Output {
 public:
  Output() = default;
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  Status open(const std::string& path);
  Status write(std::string_view data);
  // Flushes and, for files, renames the temp file into place. Without commit, nothing is left.
  Status close();

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool is_stdout_ = false;
  std::string buffer_;
};

// Writes all of `content` to `path` as Output does (stdout for "-" or empty, else atomically).
Status write_output(const std::string& path, std::string_view content);

}  // namespace morpheus::tools
