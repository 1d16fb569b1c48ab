// SPDX-License-Identifier: MIT
// File helpers: whole-file reads with clear errors, atomic writes (temp file in the same
// directory, fsync, rename), and a line reader that reports line numbers and invalid UTF-8.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace morpheus {

// Reads the whole file. NOT_FOUND when missing, INVALID_ARGUMENT for a directory, IO_ERROR when
// unreadable.
StatusOr<std::string> read_file(const std::string& path);

// OK when `path` is an existing regular file (or "-"), else NOT_FOUND/INVALID_ARGUMENT naming it.
Status check_readable_file(const std::string& path);

// Writes `content` to `path` atomically: readers see the old file or the whole new one.
Status write_file_atomic(const std::string& path, std::string_view content);

// Streaming atomic writer: write(), then commit() renames the temp file into place. Destroying an
// uncommitted writer removes the temp file, so a failed run never leaves a partial output.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  Status open(const std::string& path);
  Status write(std::string_view data);
  Status commit();
  void abort();
  bool is_open() const { return file_ != nullptr; }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
};

// Reads a text file (or stdin for "-") line by line. Lines are returned without "\n"; a trailing
// "\r" is kept (lossless). With validate_utf8, a line holding invalid UTF-8 yields
// INVALID_ARGUMENT naming the file, line number and byte offset.
class LineReader {
 public:
  LineReader() = default;
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  Status open(const std::string& path, bool validate_utf8 = true);
  // Sets *line and returns true while lines remain; returns false at the end or on error (then
  // status() says which).
  bool next(std::string* line);
  const Status& status() const { return status_; }
  uint64_t line_number() const { return line_number_; }  // 1-based number of the last line read
  // Whether the last line read ended with '\n' (false only for a final line without newline).
  bool last_had_newline() const { return last_had_newline_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  char* buffer_ = nullptr;  // getline's buffer (malloc'd, grown by getline)
  size_t capacity_ = 0;
  bool owns_ = false;
  bool validate_ = true;
  uint64_t line_number_ = 0;
  bool last_had_newline_ = true;
  Status status_;
};

// Removes temporary siblings of `path` that a killed process left behind: entries of path's
// directory named <name>.tmp.<pid>, <name>.tmp.<pid>.<8 hex digits> (the atomic writers' temp
// names) or <name>.tmp-<pid> (exports of earlier versions), nothing else, whose <pid> is not a
// running process here. The caller's own pid and live pids are kept.
// Best effort: returns how many entries were removed, never fails.
size_t remove_stale_temps(const std::string& path);
// The temp sibling this process writes `target` through before renaming it into place
// (<target>.tmp.<pid>, a file or a directory), after removing those of killed writers.
std::string temp_path_for(const std::string& target);
// The same for every entry of `dir` with such a name (whatever it is the temp of): for output
// directories whose killed writer may have been writing a file that is never written again.
size_t remove_stale_temps_in(const std::string& dir);

// Creates a directory and its parents (like mkdir -p).
Status make_dirs(const std::string& path);
bool file_exists(const std::string& path);
bool dir_exists(const std::string& path);
// Joins path components with '/'.
std::string path_join(const std::string& a, const std::string& b);

}  // namespace morpheus
