// SPDX-License-Identifier: MIT
#include "core/hash.h"

#include "core/file_util.h"

namespace morpheus {

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex16(uint64_t v) {
  static const char* const kDigits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<size_t>(i)] = kDigits[v & 15u];
    v >>= 4;
  }
  return s;
}

std::string checksum_tag(std::string_view bytes) { return "fnv1a64:" + hex16(fnv1a64(bytes)); }

StatusOr<std::string> file_checksum(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string content, read_file(path));
  return checksum_tag(content);
}

}  // namespace morpheus
