// SPDX-License-Identifier: MIT
#include "prepare/cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/check.h"
#include "core/file_util.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the cache format is little-endian; add byte swapping for this platform"
#endif

namespace morpheus::train {
namespace {

constexpr size_t kChecksumOffset = 72;

size_t align8(size_t n) { return (n + 7) & ~static_cast<size_t>(7); }

// Byte offsets of the sections for the given counts.
struct Layout {
  size_t window_begin, char_begin, word_id, root_id, case_bits, boundary_bits, flags, char_ids, end;
};

Layout layout_for(uint64_t windows, uint64_t words, uint64_t chars, uint32_t char_bytes) {
  Layout l{};
  l.window_begin = kCacheHeaderBytes;
  l.char_begin = align8(l.window_begin + 8 * (windows + 1));
  l.word_id = align8(l.char_begin + 8 * (words + 1));
  l.root_id = align8(l.word_id + 4 * words);
  l.case_bits = align8(l.root_id + 4 * words);
  l.boundary_bits = align8(l.case_bits + 4 * words);
  l.flags = align8(l.boundary_bits + 4 * words);
  l.char_ids = align8(l.flags + words);
  l.end = align8(l.char_ids + char_bytes * chars);
  return l;
}

template <typename T>
void put(std::string& buf, size_t offset, const T& value) {
  std::memcpy(&buf[offset], &value, sizeof(T));
}

template <typename T>
void put_array(std::string& buf, size_t offset, const std::vector<T>& values) {
  if (!values.empty()) std::memcpy(&buf[offset], values.data(), values.size() * sizeof(T));
}

template <typename T>
T get(const uint8_t* base, size_t offset) {
  T value;
  std::memcpy(&value, base + offset, sizeof(T));
  return value;
}

uint64_t checksum_of(const uint8_t* data, size_t size) {
  static const uint8_t kZeros[8] = {};
  uint64_t h = fnv1a64(data, kChecksumOffset);
  h = fnv1a64(kZeros, 8, h);
  return fnv1a64(data + kChecksumOffset + 8, size - kChecksumOffset - 8, h);
}

}  // namespace

uint64_t reference_int64_cache_bytes(uint64_t windows) {
  const uint64_t slots = 32, positions = 32, gaps = 31;
  const uint64_t per_row = slots * positions * 8 * 2  // char_ids + case_flags
                           + slots * 8                // real_lengths
                           + slots * gaps * 8         // morfessor_labels
                           + slots * 4                // confidence (float32)
                           + slots * 8 * 2            // word_ids + root_ids
                           + slots;                   // attention_mask (bool)
  return windows * per_row;
}

CacheWriter::CacheWriter(const CacheInfo& info) : info_(info) {
  MORPHEUS_CHECK(info.max_word_chars >= 1 && info.max_word_chars <= kMaxCacheWordChars,
                 "max_word_chars must be in [1, 32], got ", info.max_word_chars);
  MORPHEUS_CHECK(info.char_vocab_size <= 65536, "char vocab too large for uint16 ids");
}

void CacheWriter::begin_window() {
  if (!window_begin_.empty() && window_begin_.back() == word_id_.size()) return;  // empty
  window_begin_.push_back(word_id_.size());
}

uint64_t CacheWriter::num_windows() const {
  if (window_begin_.empty()) return 0;
  return window_begin_.back() == word_id_.size() ? window_begin_.size() - 1 : window_begin_.size();
}

void CacheWriter::add_word(const CacheWord& word) {
  MORPHEUS_CHECK(!window_begin_.empty(), "add_word before begin_window");
  MORPHEUS_CHECK(!word.char_ids.empty() && word.char_ids.size() <= info_.max_word_chars,
                 "word length ", word.char_ids.size(), " outside [1, ", info_.max_word_chars, "]");
  const uint64_t words_in_window = word_id_.size() - window_begin_.back();
  MORPHEUS_CHECK(words_in_window < info_.max_window_words, "window holds more than ",
                 info_.max_window_words, " words");
  for (uint16_t id : word.char_ids) {
    MORPHEUS_CHECK(id < info_.char_vocab_size, "char id ", id, " >= vocab size");
  }
  const auto len = static_cast<uint32_t>(word.char_ids.size());
  const uint32_t valid = len >= 32 ? 0xFFFFFFFFu : ((1u << len) - 1u);
  MORPHEUS_CHECK((word.case_bits & ~valid) == 0, "case bits beyond the word length");
  MORPHEUS_CHECK((word.boundary_bits & ~(valid & ~1u)) == 0,
                 "boundary bits at gap 0 or beyond the word length");
  char_ids_.insert(char_ids_.end(), word.char_ids.begin(), word.char_ids.end());
  char_begin_.push_back(char_ids_.size());
  word_id_.push_back(word.word_id);
  root_id_.push_back(word.root_id);
  case_bits_.push_back(word.case_bits);
  boundary_bits_.push_back(word.boundary_bits);
  flags_.push_back(word.flags);
}

std::string CacheWriter::serialize() const {
  const uint64_t windows = num_windows();
  const uint64_t words = word_id_.size();
  const uint64_t chars = char_ids_.size();
  const uint32_t char_bytes = info_.char_vocab_size > 256 ? 2 : 1;
  const Layout l = layout_for(windows, words, chars, char_bytes);
  std::string buf(l.end, '\0');
  std::memcpy(&buf[0], kCacheMagic, 8);
  put<uint32_t>(buf, 8, kCacheVersion);
  put<uint32_t>(buf, 12, static_cast<uint32_t>(kCacheHeaderBytes));
  put<uint32_t>(buf, 16, char_bytes);
  put<uint32_t>(buf, 20, info_.max_word_chars);
  put<uint32_t>(buf, 24, info_.max_window_words);
  put<uint32_t>(buf, 28, info_.char_vocab_size);
  put<uint32_t>(buf, 32, info_.word_vocab_size);
  put<uint32_t>(buf, 36, info_.root_vocab_size);
  put<uint64_t>(buf, 40, windows);
  put<uint64_t>(buf, 48, words);
  put<uint64_t>(buf, 56, chars);
  put<uint64_t>(buf, 64, static_cast<uint64_t>(l.end));
  std::vector<uint64_t> window_begin(window_begin_.begin(),
                                     window_begin_.begin() + static_cast<std::ptrdiff_t>(windows));
  window_begin.push_back(words);
  put_array(buf, l.window_begin, window_begin);
  put_array(buf, l.char_begin, char_begin_);
  put_array(buf, l.word_id, word_id_);
  put_array(buf, l.root_id, root_id_);
  put_array(buf, l.case_bits, case_bits_);
  put_array(buf, l.boundary_bits, boundary_bits_);
  put_array(buf, l.flags, flags_);
  if (char_bytes == 2) {
    put_array(buf, l.char_ids, char_ids_);
  } else {
    for (size_t k = 0; k < chars; ++k) buf[l.char_ids + k] = static_cast<char>(char_ids_[k]);
  }
  const uint64_t checksum = checksum_of(reinterpret_cast<const uint8_t*>(buf.data()), buf.size());
  put<uint64_t>(buf, kChecksumOffset, checksum);
  return buf;
}

Status CacheWriter::write(const std::string& path) const {
  return write_file_atomic(path, serialize());
}

CacheReader::CacheReader(CacheReader&& other) noexcept { *this = std::move(other); }

CacheReader& CacheReader::operator=(CacheReader&& other) noexcept {
  if (this != &other) {
    reset();
    std::memcpy(static_cast<void*>(this), static_cast<const void*>(&other), sizeof(CacheReader));
    other.map_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

CacheReader::~CacheReader() { reset(); }

void CacheReader::reset() {
  if (map_ != nullptr) ::munmap(map_, size_);
  map_ = nullptr;
  size_ = 0;
}

StatusOr<CacheReader> CacheReader::open(const std::string& path, bool verify_checksum) {
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return io_error("cannot stat " + path + ": " + std::strerror(err));
  }
  const auto size = static_cast<size_t>(st.st_size);
  const std::string hint = "re-run `morpheus prepare` to rebuild the cache";
  if (size < kCacheHeaderBytes) {
    ::close(fd);
    return data_loss(
        path + ": truncated cache (" + std::to_string(size) + " bytes, smaller than the header)",
        hint);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_err = errno;
  ::close(fd);
  if (map == MAP_FAILED) return io_error("cannot mmap " + path + ": " + std::strerror(map_err));
  CacheReader r;
  r.map_ = map;
  r.size_ = size;
  const auto* base = static_cast<const uint8_t*>(map);
  if (std::memcmp(base, kCacheMagic, 8) != 0) {
    return data_loss(path + ": not a morpheus cache (bad magic)", hint);
  }
  const auto version = get<uint32_t>(base, 8);
  if (version != kCacheVersion) {
    return data_loss(path + ": cache format version " + std::to_string(version) +
                         ", this build reads version " + std::to_string(kCacheVersion),
                     hint);
  }
  const auto header_bytes = get<uint32_t>(base, 12);
  r.char_bytes_ = get<uint32_t>(base, 16);
  r.info_.max_word_chars = get<uint32_t>(base, 20);
  r.info_.max_window_words = get<uint32_t>(base, 24);
  r.info_.char_vocab_size = get<uint32_t>(base, 28);
  r.info_.word_vocab_size = get<uint32_t>(base, 32);
  r.info_.root_vocab_size = get<uint32_t>(base, 36);
  r.num_windows_ = get<uint64_t>(base, 40);
  r.num_words_ = get<uint64_t>(base, 48);
  r.num_chars_ = get<uint64_t>(base, 56);
  const auto file_bytes = get<uint64_t>(base, 64);
  if (header_bytes != kCacheHeaderBytes || (r.char_bytes_ != 1 && r.char_bytes_ != 2) ||
      r.info_.max_word_chars == 0 || r.info_.max_word_chars > kMaxCacheWordChars) {
    return data_loss(path + ": corrupt cache header", hint);
  }
  if (file_bytes != size) {
    return data_loss(path + ": cache is " + std::to_string(size) + " bytes, its header says " +
                         std::to_string(file_bytes) + (size < file_bytes ? " (truncated)" : ""),
                     hint);
  }
  const uint64_t limit = size;  // every count is bounded by the file size
  if (r.num_windows_ > limit || r.num_words_ > limit || r.num_chars_ > limit) {
    return data_loss(path + ": corrupt cache header (counts exceed the file size)", hint);
  }
  const Layout l = layout_for(r.num_windows_, r.num_words_, r.num_chars_, r.char_bytes_);
  if (l.end != size) {
    return data_loss(path + ": section sizes do not add up to the file size", hint);
  }
  if (verify_checksum) {
    const uint64_t stored = get<uint64_t>(base, kChecksumOffset);
    if (checksum_of(base, size) != stored) {
      return data_loss(path + ": checksum mismatch (the cache file is corrupt)", hint);
    }
  }
  r.window_begin_ = reinterpret_cast<const uint64_t*>(base + l.window_begin);
  r.char_begin_ = reinterpret_cast<const uint64_t*>(base + l.char_begin);
  r.word_id_ = reinterpret_cast<const uint32_t*>(base + l.word_id);
  r.root_id_ = reinterpret_cast<const uint32_t*>(base + l.root_id);
  r.case_bits_ = reinterpret_cast<const uint32_t*>(base + l.case_bits);
  r.boundary_bits_ = reinterpret_cast<const uint32_t*>(base + l.boundary_bits);
  r.flags_ = base + l.flags;
  r.char_u8_ = base + l.char_ids;
  r.char_u16_ = reinterpret_cast<const uint16_t*>(base + l.char_ids);
  // Structural checks, so that accessors never read out of bounds.
  if (r.window_begin_[0] != 0 || r.window_begin_[r.num_windows_] != r.num_words_ ||
      r.char_begin_[0] != 0 || r.char_begin_[r.num_words_] != r.num_chars_) {
    return data_loss(path + ": corrupt cache offsets", hint);
  }
  for (uint64_t w = 0; w < r.num_windows_; ++w) {
    const uint64_t n = r.window_begin_[w + 1] - r.window_begin_[w];
    if (r.window_begin_[w + 1] < r.window_begin_[w] || n > r.info_.max_window_words) {
      return data_loss(path + ": corrupt window " + std::to_string(w), hint);
    }
  }
  for (uint64_t i = 0; i < r.num_words_; ++i) {
    if (r.char_begin_[i + 1] <= r.char_begin_[i] ||
        r.char_begin_[i + 1] - r.char_begin_[i] > r.info_.max_word_chars) {
      return data_loss(path + ": corrupt word " + std::to_string(i), hint);
    }
  }
  return r;
}

CacheWord CacheReader::word(uint64_t i) const {
  CacheWord w;
  for (uint32_t j = 0; j < word_length(i); ++j) w.char_ids.push_back(char_id(i, j));
  w.case_bits = case_bits_[i];
  w.boundary_bits = boundary_bits_[i];
  w.word_id = word_id_[i];
  w.root_id = root_id_[i];
  w.flags = flags_[i];
  return w;
}

}  // namespace morpheus::train
