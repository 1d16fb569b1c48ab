// SPDX-License-Identifier: MIT
// The training cache written by `morpheus prepare` and read by `morpheus train`: one versioned,
// checksummed, mmap-able binary file of windows (≤ max_window_words consecutive words of one
// sentence); only real words are stored, no padding slots.
//
// File layout (version 1, little-endian, every section starts at an 8-byte aligned offset and
// follows the previous one directly after padding with zero bytes to a multiple of 8):
//   header, 128 bytes:
//     0  char[8]  magic "MRPHCACH"
//     8  u32      version (kCacheVersion)
//    12  u32      header bytes (128)
//    16  u32      char id bytes: 1 (uint8 ids, char vocab ≤ 256) or 2 (uint16 ids)
//    20  u32      max_word_chars (≤ 32: every word has ≤ 32 characters)
//    24  u32      max_window_words
//    28  u32      char vocab size     32  u32  word vocab size     36  u32  root vocab size
//    40  u64      W = number of windows
//    48  u64      N = number of words
//    56  u64      C = number of characters
//    64  u64      file bytes (the exact file size)
//    72  u64      checksum: FNV-1a 64 over the whole file read with these 8 bytes as zeros
//    80  48 bytes reserved, zero
//   sections:
//     window_begin  u64[W + 1]  first word of window w; window_begin[W] == N
//     char_begin    u64[N + 1]  first character of word i; char_begin[N] == C
//     word_id       u32[N]      id in the word vocabulary (0 = <unk>)
//     root_id       u32[N]      id in the root vocabulary of the root-corrected root (0 = <unk>)
//     case_bits     u32[N]      bit j set: character j (0-based) was upper case
//     boundary_bits u32[N]      bit g set: morpheme boundary after the first g characters (the
//                               gap between 1-based characters g and g+1), 1 ≤ g < length;
//                               bit 0 and bits ≥ length are always 0. Root-corrected teacher
//                               labels.
//     word_flags    u8[N]       kWordIsChunk | kWordContinues (see below)
//     char_ids      u8[C] or u16[C]  char vocab ids (tokenizer/char_vocab.h CharVocab; never
//     PAD/BOS/EOS)
// The model's position convention (BOS at 0, character j at j+1, EOS at length+1) maps bit g to
// the reference's gap g; the trainer adds BOS/EOS/PAD itself.
//
// Words longer than max_word_chars (the paper's max_word_len 32 minus BOS and EOS = 30) are
// stored as consecutive chunks of max_word_chars characters (the last one shorter), each chunk a
// word of its own with kWordIsChunk set, kWordContinues set on all but the last chunk, its own
// case and boundary bits (teacher cuts falling inside the chunk), and the whole word's word and
// root ids. The tokenizer chunks the same way. A trainer may skip chunks or train on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/prepare_config.h"  // kMaxCacheWordChars
#include "core/hash.h"
#include "core/status.h"

namespace morpheus::train {

inline constexpr uint32_t kCacheVersion = 1;
inline constexpr char kCacheMagic[8] = {'M', 'R', 'P', 'H', 'C', 'A', 'C', 'H'};
inline constexpr size_t kCacheHeaderBytes = 128;

// word_flags bits.
inline constexpr uint8_t kWordIsChunk = 1;    // a piece of a word longer than max_word_chars
inline constexpr uint8_t kWordContinues = 2;  // the next word is the next chunk of the same word

// Sizes recorded in the header.
struct CacheInfo {
  uint32_t max_word_chars = 30;
  uint32_t max_window_words = 32;
  uint32_t char_vocab_size = 0;  // > 256 selects uint16 char ids
  uint32_t word_vocab_size = 0;
  uint32_t root_vocab_size = 0;
};

// One word to store.
struct CacheWord {
  std::vector<uint16_t> char_ids;  // 1..max_word_chars ids, each < char_vocab_size
  uint32_t case_bits = 0;
  uint32_t boundary_bits = 0;
  uint32_t word_id = 0;
  uint32_t root_id = 0;
  uint8_t flags = 0;
};

// Collects windows in memory and writes the file atomically.
class CacheWriter {
 public:
  explicit CacheWriter(const CacheInfo& info);
  // Starts a new window; following add_word calls fill it. Empty windows are dropped.
  void begin_window();
  // Adds a word to the current window (contract: a window was begun, the word fits the limits).
  void add_word(const CacheWord& word);
  uint64_t num_windows() const;
  uint64_t num_words() const { return word_id_.size(); }
  // The whole file image (header with checksum + sections).
  std::string serialize() const;
  Status write(const std::string& path) const;

 private:
  CacheInfo info_;
  std::vector<uint64_t> window_begin_;
  std::vector<uint64_t> char_begin_{0};
  std::vector<uint32_t> word_id_, root_id_, case_bits_, boundary_bits_;
  std::vector<uint8_t> flags_;
  std::vector<uint16_t> char_ids_;
};

// A read-only view of a cache file, memory-mapped. Move-only; unmaps on destruction.
//   MORPHEUS_ASSIGN_OR_RETURN(CacheReader cache, CacheReader::open("out/train.cache"));
//   for (uint64_t w = 0; w < cache.num_windows(); ++w)
//     for (uint64_t i = cache.window_begin(w); i < cache.window_end(w); ++i)
//       for (uint32_t j = 0; j < cache.word_length(i); ++j) use(cache.char_id(i, j));
class CacheReader {
 public:
  // Maps and validates `path`: magic, version, header sizes, exact file size, section bounds,
  // offsets monotone and in range, and (with verify_checksum) the checksum. Any failure is
  // DATA_LOSS (or NOT_FOUND / IO_ERROR) naming the file and what is wrong.
  static StatusOr<CacheReader> open(const std::string& path, bool verify_checksum = true);

  CacheReader(CacheReader&& other) noexcept;
  CacheReader& operator=(CacheReader&& other) noexcept;
  CacheReader(const CacheReader&) = delete;
  CacheReader& operator=(const CacheReader&) = delete;
  ~CacheReader();

  const CacheInfo& info() const { return info_; }
  uint64_t num_windows() const { return num_windows_; }
  uint64_t num_words() const { return num_words_; }
  uint64_t num_chars() const { return num_chars_; }
  uint64_t file_bytes() const { return size_; }

  // Words of window w are [window_begin(w), window_end(w)); w < num_windows().
  uint64_t window_begin(uint64_t w) const { return window_begin_[w]; }
  uint64_t window_end(uint64_t w) const { return window_begin_[w + 1]; }
  // Per word i < num_words():
  uint32_t word_length(uint64_t i) const {
    return static_cast<uint32_t>(char_begin_[i + 1] - char_begin_[i]);
  }
  // Char vocab id of character j < word_length(i).
  uint16_t char_id(uint64_t i, uint32_t j) const {
    const uint64_t k = char_begin_[i] + j;
    return char_bytes_ == 1 ? char_u8_[k] : char_u16_[k];
  }
  bool is_upper(uint64_t i, uint32_t j) const { return ((case_bits_[i] >> j) & 1u) != 0; }
  // Boundary after the first g characters of word i (1 ≤ g < word_length(i)).
  bool boundary(uint64_t i, uint32_t g) const { return ((boundary_bits_[i] >> g) & 1u) != 0; }
  uint32_t case_bits(uint64_t i) const { return case_bits_[i]; }
  uint32_t boundary_bits(uint64_t i) const { return boundary_bits_[i]; }
  uint32_t word_id(uint64_t i) const { return word_id_[i]; }
  uint32_t root_id(uint64_t i) const { return root_id_[i]; }
  uint8_t flags(uint64_t i) const { return flags_[i]; }
  // The whole word i as a CacheWord (copies; convenient for tests and tools).
  CacheWord word(uint64_t i) const;

 private:
  CacheReader() = default;
  void reset();

  void* map_ = nullptr;
  size_t size_ = 0;
  CacheInfo info_;
  uint64_t num_windows_ = 0, num_words_ = 0, num_chars_ = 0;
  uint32_t char_bytes_ = 1;
  const uint64_t* window_begin_ = nullptr;
  const uint64_t* char_begin_ = nullptr;
  const uint32_t* word_id_ = nullptr;
  const uint32_t* root_id_ = nullptr;
  const uint32_t* case_bits_ = nullptr;
  const uint32_t* boundary_bits_ = nullptr;
  const uint8_t* flags_ = nullptr;
  const uint8_t* char_u8_ = nullptr;
  const uint16_t* char_u16_ = nullptr;
};

// Bytes the reference implementation's int64 torch layout needs for `windows` rows
// of 32 word slots × 32 positions: char ids, case flags, lengths, 31 labels, word and root ids
// (int64), confidence (float32), attention mask (bool).
uint64_t reference_int64_cache_bytes(uint64_t windows);

}  // namespace morpheus::train
