// SPDX-License-Identifier: MIT
// Tests for prepare/cache.h: write/read round trip, and corrupt, truncated or foreign files.
#include "prepare/cache.h"

#include <gtest/gtest.h>

#include <random>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

CacheWord make_word(std::mt19937_64& rng, uint32_t vocab, uint32_t max_len) {
  CacheWord w;
  const auto len = static_cast<uint32_t>(1 + rng() % max_len);
  for (uint32_t j = 0; j < len; ++j)
    w.char_ids.push_back(static_cast<uint16_t>(4 + rng() % (vocab - 4)));
  const uint32_t valid = len >= 32 ? 0xFFFFFFFFu : (1u << len) - 1u;
  w.case_bits = static_cast<uint32_t>(rng()) & valid;
  w.boundary_bits = static_cast<uint32_t>(rng()) & valid & ~1u;
  w.word_id = static_cast<uint32_t>(rng() % 1000);
  w.root_id = static_cast<uint32_t>(rng() % 100);
  w.flags = static_cast<uint8_t>(rng() % 4);
  return w;
}

void expect_same(const CacheWord& a, const CacheWord& b) {
  EXPECT_EQ(a.char_ids, b.char_ids);
  EXPECT_EQ(a.case_bits, b.case_bits);
  EXPECT_EQ(a.boundary_bits, b.boundary_bits);
  EXPECT_EQ(a.word_id, b.word_id);
  EXPECT_EQ(a.root_id, b.root_id);
  EXPECT_EQ(a.flags, b.flags);
}

// Writes a random cache; returns its path and fills `windows`.
std::string write_random_cache(uint32_t char_vocab, std::vector<std::vector<CacheWord>>* windows) {
  std::mt19937_64 rng(7);
  CacheInfo info;
  info.max_word_chars = 30;
  info.max_window_words = 5;
  info.char_vocab_size = char_vocab;
  info.word_vocab_size = 1000;
  info.root_vocab_size = 100;
  CacheWriter writer(info);
  for (int w = 0; w < 20; ++w) {
    writer.begin_window();
    std::vector<CacheWord> words;
    const auto n = 1 + rng() % 5;
    for (uint64_t i = 0; i < n; ++i) {
      words.push_back(make_word(rng, char_vocab, 30));
      writer.add_word(words.back());
    }
    windows->push_back(words);
  }
  const std::string path = path_join(testing::make_temp_dir("cache"), "c.cache");
  EXPECT_TRUE(writer.write(path).ok());
  return path;
}

TEST(CacheTest, RoundTripsWindowsAndWords) {
  for (uint32_t vocab : {100u, 700u}) {  // uint8 and uint16 char ids
    std::vector<std::vector<CacheWord>> windows;
    const std::string path = write_random_cache(vocab, &windows);
    StatusOr<CacheReader> cache = CacheReader::open(path);
    ASSERT_TRUE(cache.ok()) << cache.status().to_string();
    ASSERT_EQ(cache->num_windows(), windows.size());
    EXPECT_EQ(cache->info().char_vocab_size, vocab);
    EXPECT_EQ(cache->info().max_word_chars, 30u);
    for (uint64_t w = 0; w < windows.size(); ++w) {
      ASSERT_EQ(cache->window_end(w) - cache->window_begin(w), windows[w].size());
      for (size_t i = 0; i < windows[w].size(); ++i) {
        expect_same(cache->word(cache->window_begin(w) + i), windows[w][i]);
      }
    }
  }
}

TEST(CacheTest, AccessorsFollowTheGapConvention) {
  CacheInfo info;
  info.char_vocab_size = 10;
  CacheWriter writer(info);
  writer.begin_window();
  CacheWord w;
  w.char_ids = {4, 5, 6, 7, 8};  // "evler": ev|ler
  w.boundary_bits = 1u << 2;     // boundary after the first 2 characters
  w.case_bits = 1u << 0;         // "Evler"
  writer.add_word(w);
  writer.begin_window();  // an empty window is dropped
  const std::string path = path_join(testing::make_temp_dir("cache"), "c.cache");
  ASSERT_TRUE(writer.write(path).ok());
  StatusOr<CacheReader> cache = CacheReader::open(path);
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ(cache->num_windows(), 1u);
  EXPECT_EQ(cache->word_length(0), 5u);
  EXPECT_TRUE(cache->boundary(0, 2));
  EXPECT_FALSE(cache->boundary(0, 1));
  EXPECT_TRUE(cache->is_upper(0, 0));
  EXPECT_FALSE(cache->is_upper(0, 1));
  EXPECT_EQ(cache->char_id(0, 4), 8u);
}

TEST(CacheTest, FlippedByteIsAChecksumError) {
  std::vector<std::vector<CacheWord>> windows;
  const std::string path = write_random_cache(100, &windows);
  StatusOr<std::string> bytes = read_file(path);
  ASSERT_TRUE(bytes.ok());
  std::string corrupt = *bytes;
  corrupt[corrupt.size() - 20] = static_cast<char>(corrupt[corrupt.size() - 20] ^ 0x40);
  ASSERT_TRUE(write_file_atomic(path, corrupt).ok());
  StatusOr<CacheReader> cache = CacheReader::open(path);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(cache.status().message().find("checksum"), std::string::npos);
}

TEST(CacheTest, TruncatedFileIsRejected) {
  std::vector<std::vector<CacheWord>> windows;
  const std::string path = write_random_cache(100, &windows);
  StatusOr<std::string> bytes = read_file(path);
  ASSERT_TRUE(bytes.ok());
  for (size_t keep : {bytes->size() - 8, size_t{100}, size_t{0}}) {
    ASSERT_TRUE(write_file_atomic(path, bytes->substr(0, keep)).ok());
    StatusOr<CacheReader> cache = CacheReader::open(path);
    ASSERT_FALSE(cache.ok()) << keep;
    EXPECT_EQ(cache.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(cache.status().message().find("truncated"), std::string::npos)
        << cache.status().message();
  }
}

TEST(CacheTest, OtherVersionAndBadMagicAreRejected) {
  std::vector<std::vector<CacheWord>> windows;
  const std::string path = write_random_cache(100, &windows);
  StatusOr<std::string> bytes = read_file(path);
  ASSERT_TRUE(bytes.ok());
  std::string other = *bytes;
  other[8] = 2;  // version 2
  ASSERT_TRUE(write_file_atomic(path, other).ok());
  StatusOr<CacheReader> cache = CacheReader::open(path);
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.status().message().find("version 2"), std::string::npos);
  std::string foreign = *bytes;
  foreign[0] = 'X';
  ASSERT_TRUE(write_file_atomic(path, foreign).ok());
  cache = CacheReader::open(path);
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.status().message().find("magic"), std::string::npos);
}

TEST(CacheTest, RandomCorruptionNeverCrashesTheReader) {
  std::vector<std::vector<CacheWord>> windows;
  const std::string path = write_random_cache(100, &windows);
  StatusOr<std::string> bytes = read_file(path);
  ASSERT_TRUE(bytes.ok());
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    std::string corrupt = *bytes;
    const size_t pos = rng() % corrupt.size();
    corrupt[pos] = static_cast<char>(rng());
    if (corrupt == *bytes) continue;
    ASSERT_TRUE(write_file_atomic(path, corrupt).ok());
    // Without the checksum the structural checks alone must keep accessors in bounds.
    StatusOr<CacheReader> cache = CacheReader::open(path, /*verify_checksum=*/false);
    if (!cache.ok()) continue;
    for (uint64_t w = 0; w < cache->num_windows(); ++w) {
      for (uint64_t i = cache->window_begin(w); i < cache->window_end(w); ++i) {
        (void)cache->word(i);
      }
    }
    EXPECT_FALSE(CacheReader::open(path).ok()) << "byte " << pos;
  }
}

TEST(CacheTest, IsFarSmallerThanTheInt64Layout) {
  std::vector<std::vector<CacheWord>> windows;
  const std::string path = write_random_cache(100, &windows);
  StatusOr<CacheReader> cache = CacheReader::open(path);
  ASSERT_TRUE(cache.ok());
  EXPECT_LT(cache->file_bytes() * 8, reference_int64_cache_bytes(cache->num_windows()));
}

}  // namespace
}  // namespace morpheus::train
