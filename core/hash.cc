// SPDX-License-Identifier: MIT
#include "core/hash.h"

#include <cstring>

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

namespace {

constexpr uint64_t kLanePrime = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kLaneMul = 0xff51afd7ed558ccdULL;

// Little-endian hosts only (as every file format here); memcpy compiles to one load.
uint64_t load_le64(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

uint64_t lane_step(uint64_t h, uint64_t w) {
  h ^= w;
  h *= kLaneMul;
  return h ^ (h >> 29);
}

uint64_t final_mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

}  // namespace

uint64_t lanes64(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t a = kLanePrime, b = kLanePrime * 3, c = kLanePrime * 5, d = kLanePrime * 7;
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    a = lane_step(a, load_le64(p + i));
    b = lane_step(b, load_le64(p + i + 8));
    c = lane_step(c, load_le64(p + i + 16));
    d = lane_step(d, load_le64(p + i + 24));
  }
  uint64_t h = size * kLaneMul;
  h = lane_step(h ^ a, kLanePrime);
  h = lane_step(h ^ b, kLanePrime + 1);
  h = lane_step(h ^ c, kLanePrime + 2);
  h = lane_step(h ^ d, kLanePrime + 3);
  for (; i + 8 <= size; i += 8) h = lane_step(h, load_le64(p + i));
  if (i < size) {
    unsigned char tail[8] = {};
    std::memcpy(tail, p + i, size - i);
    h = lane_step(h, load_le64(tail) ^ (static_cast<uint64_t>(size - i) << 59));
  }
  return final_mix(h);
}

std::string fast_checksum_tag(std::string_view bytes) {
  return "lanes64:" + hex16(lanes64(bytes.data(), bytes.size()));
}

bool checksum_matches(std::string_view bytes, std::string_view tag) {
  if (tag.rfind("lanes64:", 0) == 0) return tag == fast_checksum_tag(bytes);
  if (tag.rfind("fnv1a64:", 0) == 0) return tag == checksum_tag(bytes);
  return false;
}

StatusOr<std::string> file_checksum(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string content, read_file(path));
  return checksum_tag(content);
}

}  // namespace morpheus
