// SPDX-License-Identifier: MIT
// FNV-1a 64: the checksum of the project (cache images, checkpoints, training text, evaluation
// splits), and lanes64 for the files read at every start-up, where FNV-1a's byte loop would be
// most of the start. Not cryptographic: they catch corruption, not tampering.
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

// The checksum of files verified at every start of a program (a tokenizer directory's files):
// four interleaved lanes of 64-bit multiply-xor over 8-byte little-endian words, 8-10x the speed
// of FNV-1a's byte loop; same purpose (corruption, not tampering). Stored, so it never changes.
uint64_t lanes64(const void* data, size_t size);
// "lanes64:<16 hex digits>" of `bytes`.
std::string fast_checksum_tag(std::string_view bytes);
// Whether `tag`, a checksum_tag or a fast_checksum_tag, is the checksum of `bytes`; false for a
// tag of another kind.
bool checksum_matches(std::string_view bytes, std::string_view tag);

// checksum_tag of a whole file; errors name the file.
StatusOr<std::string> file_checksum(const std::string& path);

}  // namespace morpheus
