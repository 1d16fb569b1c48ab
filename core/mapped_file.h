// SPDX-License-Identifier: MIT
// A whole file mapped read-only (mmap, MAP_SHARED): the bytes of the binary images a tokenizer
// directory holds (engine weights, root lexicon) without a copy; processes forked after the load,
// and every process mapping the same file, share its pages.
//   StatusOr<std::shared_ptr<const MappedFile>> f = MappedFile::open(path);
//   std::string_view bytes = (*f)->bytes();  // valid while the MappedFile lives
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace morpheus {

class MappedFile {
 public:
  // NOT_FOUND for a missing file, INVALID_ARGUMENT for a directory or another non-regular file,
  // IO_ERROR when it cannot be read or mapped; an empty file maps to no bytes.
  static StatusOr<std::shared_ptr<const MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The file's bytes; page-aligned (so 8-byte aligned) when not empty.
  std::string_view bytes() const { return {static_cast<const char*>(base_), size_}; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  std::string path_;
  const void* base_ = nullptr;
  size_t size_ = 0;
};

}  // namespace morpheus
