// SPDX-License-Identifier: MIT
#include "core/flat_string_map.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

namespace morpheus {
namespace {

TEST(FlatStringMapTest, FindsWhatWasInsertedAndNothingElse) {
  FlatStringMap<uint32_t> map;
  EXPECT_TRUE(map.insert("evler", 7).second);
  EXPECT_TRUE(map.insert("", 1).second);
  EXPECT_TRUE(map.insert(std::string("a\0b", 3), 2).second);
  ASSERT_NE(map.find("evler"), nullptr);
  EXPECT_EQ(*map.find("evler"), 7u);
  EXPECT_EQ(*map.find(""), 1u);
  EXPECT_EQ(*map.find(std::string("a\0b", 3)), 2u);
  EXPECT_EQ(map.find("a"), nullptr);
  EXPECT_EQ(map.find("evle"), nullptr);
  EXPECT_EQ(map.find("evlerde"), nullptr);
  EXPECT_EQ(map.size(), 3u);
}

TEST(FlatStringMapTest, InsertKeepsTheFirstValue) {
  FlatStringMap<int> map;
  EXPECT_TRUE(map.insert("kitap", 1).second);
  const auto [value, inserted] = map.insert("kitap", 2);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(*value, 1);
  EXPECT_EQ(map.size(), 1u);
}

TEST(FlatStringMapTest, AgreesWithUnorderedMapThroughGrowthAndClear) {
  std::mt19937_64 rng(5);
  FlatStringMap<uint64_t> map;
  std::unordered_map<std::string, uint64_t> want;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20000; ++i) {
      std::string key(rng() % 20, 'x');
      for (char& c : key) c = static_cast<char>('a' + rng() % 4);
      const uint64_t value = rng();
      EXPECT_EQ(map.insert(key, value).second, want.emplace(key, value).second);
    }
    EXPECT_EQ(map.size(), want.size());
    for (const auto& [key, value] : want) {
      const uint64_t* found = map.find(key);
      ASSERT_NE(found, nullptr) << key;
      EXPECT_EQ(*found, value);
    }
    map.clear();
    want.clear();
    EXPECT_TRUE(map.empty());
    EXPECT_EQ(map.find("a"), nullptr);
  }
}

TEST(FlatStringMapTest, ForEachVisitsEveryEntryOnce) {
  FlatStringMap<int> map;
  std::unordered_map<std::string, int> want;
  for (int i = 0; i < 1000; ++i) {
    map.insert("k" + std::to_string(i), i);
    want.emplace("k" + std::to_string(i), i);
  }
  std::unordered_map<std::string, int> seen;
  map.for_each([&](std::string_view key, int value) {
    EXPECT_TRUE(seen.emplace(std::string(key), value).second) << key;
  });
  EXPECT_EQ(seen, want);
}

TEST(FlatStringMapTest, HashIsNeverZeroAndDependsOnEveryByte) {
  EXPECT_NE(flat_hash(""), 0u);
  const std::string base = "kitaplarımızdan";
  for (size_t i = 0; i < base.size(); ++i) {
    std::string other = base;
    other[i] = static_cast<char>(other[i] ^ 1);
    EXPECT_NE(flat_hash(other), flat_hash(base)) << i;
  }
  EXPECT_NE(flat_hash(std::string("a\0", 2)), flat_hash("a"));
}

}  // namespace
}  // namespace morpheus
