// SPDX-License-Identifier: MIT
// Helpers shared by the fuzz targets: a per-process scratch directory and a byte-stream reader
// that turns the fuzzer's input into small choices.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace morpheus::fuzz {

// A directory under $TMPDIR (or /tmp) created once per process; removed by the OS tmp cleaner.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/morpheus_fuzz_XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    return tmpl;
  }();
  return dir;
}

// Consumes the input front to back: small integers first, the rest as text.
class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // The next byte (0 when the input is exhausted).
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // Everything not consumed yet.
  std::string_view rest() const {
    return std::string_view(reinterpret_cast<const char*>(data_) + pos_, size_ - pos_);
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace morpheus::fuzz
