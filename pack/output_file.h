// SPDX-License-Identifier: MIT
// OutputFile: one file of a pack, written under a temporary name next to its final name
// (core/file_util.h temp_path_for: <final>.tmp.<pid>, removed by the next writer once this
// process is gone) and renamed into place by commit(). Writes are buffered; write_at patches
// bytes already written (the headers whose counts are known at the end); read_at reads them back
// (Megatron's pointers are computed from the lengths written before). Every failing system call
// is an IO_ERROR naming the final name; an OutputFile destroyed before commit() removes its
// temporary file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::pack {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Creates the temporary file of `path` (the final name).
  Status open(const std::string& path);
  Status write(const void* data, size_t size);
  Status write(std::string_view data) { return write(data.data(), data.size()); }
  // Overwrites bytes [offset, offset + data.size()) (flushes the buffer first).
  Status write_at(uint64_t offset, std::string_view data);
  // Reads `size` bytes at `offset` of what was written (flushes the buffer first).
  Status read_at(uint64_t offset, void* data, size_t size);
  // Bytes written so far.
  uint64_t size() const { return size_; }
  // Flushes, fsyncs and closes the temporary file (still under its temporary name).
  Status finish();
  // Renames the finished temporary file to the final name.
  Status commit();
  // Closes and removes the temporary file (a no-op after commit).
  void abort();
  const std::string& path() const { return path_; }

 private:
  Status flush();
  Status fail(const std::string& what);

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool finished_ = false;
  uint64_t size_ = 0;
  std::vector<char> buffer_;
};

}  // namespace morpheus::pack
