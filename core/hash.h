// SPDX-License-Identifier: MIT
// FNV-1a 64: the one checksum of the project (cache images, tokenizer files, checkpoints,
// training text, evaluation splits). Not cryptographic: it catches corruption, not tampering.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace morpheus {

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;

// FNV-1a 64 of `size` bytes, continuing from `seed` (the offset basis by default).
uint64_t fnv1a64(const void* data, size_t size, uint64_t seed = kFnv1a64Offset);
inline uint64_t fnv1a64(std::string_view bytes, uint64_t seed = kFnv1a64Offset) {
  return fnv1a64(bytes.data(), bytes.size(), seed);
}

// 16 lower-case hex digits.
std::string hex16(uint64_t v);

// "fnv1a64:<16 hex digits>" of `bytes`.
std::string checksum_tag(std::string_view bytes);

// checksum_tag of a whole file; errors name the file.
StatusOr<std::string> file_checksum(const std::string& path);

}  // namespace morpheus
