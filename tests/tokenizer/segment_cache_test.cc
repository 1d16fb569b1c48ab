// SPDX-License-Identifier: MIT
// Tests of the persistent segmentation cache (tokenizer/segment_cache.h) and its use by Tokenizer:
// round trip, damaged files (never a wrong segmentation), the tokenizer tie, one writer per file,
// merging shards.
#include "tokenizer/segment_cache.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "tests/support/test_support.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::tokenizer {
namespace {

constexpr uint64_t kCacheTestId = 0x1234abcdULL;

const std::vector<std::string>& cache_runs() {
  static const std::vector<std::string> runs = {"evlerimizde", "okullarda", "çiçekçiler"};
  return runs;
}
const std::vector<std::vector<std::string>>& cache_pieces() {
  static const std::vector<std::vector<std::string>> pieces = {
      {"ev", "ler", "imiz", "de"}, {"okul", "lar", "da"}, {"çiçek", "çi", "ler"}};
  return pieces;
}

// A cache file holding cache_runs() for tokenizer kCacheTestId.
std::string write_cache(const std::string& tag) {
  const std::string path = path_join(testing::make_temp_dir(tag), "seg.cache");
  StatusOr<std::unique_ptr<SegmentCache>> cache = SegmentCache::open(path, kCacheTestId);
  EXPECT_TRUE(cache.ok()) << cache.status().to_string();
  EXPECT_TRUE((*cache)->append(cache_runs(), cache_pieces()).ok());
  return path;
}

TEST(SegmentCacheTest, ReopenedFileAnswersEveryAppendedRun) {
  const std::string path = write_cache("cache_round_trip");
  StatusOr<std::unique_ptr<SegmentCache>> cache = SegmentCache::open(path, kCacheTestId);
  ASSERT_TRUE(cache.ok()) << cache.status().to_string();
  EXPECT_EQ((*cache)->size(), 3u);
  for (size_t i = 0; i < cache_runs().size(); ++i) {
    std::vector<std::string> pieces;
    ASSERT_TRUE((*cache)->lookup(cache_runs()[i], &pieces)) << cache_runs()[i];
    EXPECT_EQ(pieces, cache_pieces()[i]);
  }
  std::vector<std::string> none;
  EXPECT_FALSE((*cache)->lookup("kitap", &none));
}

TEST(SegmentCacheTest, PiecesThatDoNotSpellTheRunAreNeverStored) {
  const std::string path = path_join(testing::make_temp_dir("cache_bad_pieces"), "seg.cache");
  StatusOr<std::unique_ptr<SegmentCache>> cache = SegmentCache::open(path, kCacheTestId);
  ASSERT_TRUE(cache.ok());
  ASSERT_TRUE((*cache)->append({"kitap", "ev"}, {{"kit", "ab"}, {"e", "v"}}).ok());
  std::vector<std::string> pieces;
  EXPECT_FALSE((*cache)->lookup("kitap", &pieces));
  EXPECT_TRUE((*cache)->lookup("ev", &pieces));
}

TEST(SegmentCacheTest, BitFlipInARecordIsDataLossNamingTheOffset) {
  const std::string path = write_cache("cache_bit_flip");
  std::string image = read_file(path).value();
  image[32 + 12 + 3] ^= 0x01;  // a payload byte of the first record
  ASSERT_TRUE(write_file_atomic(path, image).ok());
  CacheRecords records;
  CacheFileInfo info;
  const Status s = read_cache_file(path, kCacheTestId, &records, &info);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("record at byte 32"), std::string::npos) << s.message();
  EXPECT_FALSE(SegmentCache::open(path, kCacheTestId).ok());
}

TEST(SegmentCacheTest, BitFlipInTheHeaderIsDataLoss) {
  const std::string path = write_cache("cache_header_flip");
  std::string image = read_file(path).value();
  image[12] ^= 0x40;
  ASSERT_TRUE(write_file_atomic(path, image).ok());
  const StatusOr<std::unique_ptr<SegmentCache>> cache = SegmentCache::open(path, kCacheTestId);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(cache.status().message().find("header checksum"), std::string::npos);
}

TEST(SegmentCacheTest, TornLastRecordIsDroppedAndCutBeforeAppending) {
  const std::string path = write_cache("cache_torn");
  const std::string image = read_file(path).value();
  ASSERT_TRUE(write_file_atomic(path, image.substr(0, image.size() - 4)).ok());
  {
    StatusOr<std::unique_ptr<SegmentCache>> cache = SegmentCache::open(path, kCacheTestId);
    ASSERT_TRUE(cache.ok()) << cache.status().to_string();
    EXPECT_EQ((*cache)->size(), 2u);
    std::vector<std::string> pieces;
    EXPECT_FALSE((*cache)->lookup(cache_runs()[2], &pieces));
    ASSERT_TRUE((*cache)->append({"kitap"}, {{"kitap"}}).ok());
  }
  CacheRecords records;
  CacheFileInfo info;
  ASSERT_TRUE(read_cache_file(path, kCacheTestId, &records, &info).ok());
  EXPECT_FALSE(info.torn_tail);
  EXPECT_EQ(records.size(), 3u);
  EXPECT_EQ(records.at("kitap"), "kitap");
}

TEST(SegmentCacheTest, CacheOfAnotherTokenizerIsRefused) {
  const std::string path = write_cache("cache_other_tokenizer");
  const StatusOr<std::unique_ptr<SegmentCache>> cache = SegmentCache::open(path, kCacheTestId + 1);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(cache.status().message().find("another tokenizer"), std::string::npos);
}

TEST(SegmentCacheTest, SecondWriterOfOneFileIsRefused) {
  const std::string path = write_cache("cache_two_writers");
  StatusOr<std::unique_ptr<SegmentCache>> first = SegmentCache::open(path, kCacheTestId);
  ASSERT_TRUE(first.ok());
  const StatusOr<std::unique_ptr<SegmentCache>> second = SegmentCache::open(path, kCacheTestId);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("another process"), std::string::npos);
}

TEST(SegmentCacheTest, MergedShardsEqualOneFileOfAllRecords) {
  const std::string dir = testing::make_temp_dir("cache_merge");
  const std::string a = path_join(dir, "a.cache");
  const std::string b = path_join(dir, "b.cache");
  const std::string all = path_join(dir, "all.cache");
  {
    auto ca = SegmentCache::open(a, kCacheTestId);
    auto cb = SegmentCache::open(b, kCacheTestId);
    auto call = SegmentCache::open(all, kCacheTestId);
    ASSERT_TRUE(ca.ok() && cb.ok() && call.ok());
    ASSERT_TRUE(
        (*ca)
            ->append({cache_runs()[0], cache_runs()[1]}, {cache_pieces()[0], cache_pieces()[1]})
            .ok());
    ASSERT_TRUE(
        (*cb)
            ->append({cache_runs()[2], cache_runs()[1]}, {cache_pieces()[2], cache_pieces()[1]})
            .ok());
    ASSERT_TRUE((*call)->append(cache_runs(), cache_pieces()).ok());
  }
  MergeSummary summary;
  ASSERT_TRUE(merge_cache_files({a, b}, kCacheTestId, path_join(dir, "ab.cache"), &summary).ok());
  EXPECT_EQ(summary.records, 3u);
  EXPECT_EQ(summary.conflicts, 0u);
  ASSERT_TRUE(merge_cache_files({all}, kCacheTestId, path_join(dir, "one.cache"), &summary).ok());
  EXPECT_EQ(read_file(path_join(dir, "ab.cache")).value(),
            read_file(path_join(dir, "one.cache")).value());
  EXPECT_EQ(merge_cache_files({a, b}, kCacheTestId + 1, path_join(dir, "x.cache"), &summary).code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace morpheus::tokenizer
