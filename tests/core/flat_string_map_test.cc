// SPDX-License-Identifier: MIT
#include "core/flat_string_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

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

// An image held in 8-byte aligned memory, as a mapped file is.
std::vector<uint64_t> aligned_copy(const std::string& image) {
  std::vector<uint64_t> words((image.size() + 7) / 8);
  std::memcpy(words.data(), image.data(), image.size());
  return words;
}

TEST(FlatStringMapTest, ViewOfAnImageFindsWhatTheMapFinds) {
  std::mt19937_64 rng(9);
  FlatStringMap<int32_t> map;
  std::unordered_map<std::string, int32_t> want;
  for (int i = 0; i < 3000; ++i) {
    const std::string key = "k" + std::to_string(rng() % 100000);
    if (map.insert(key, i).second) want[key] = i;
  }
  const std::string image = map.image();
  EXPECT_EQ(image, map.image());  // the same bytes every time (no padding garbage)
  const std::vector<uint64_t> words = aligned_copy(image);
  std::string error;
  const FlatStringMap<int32_t> view = FlatStringMap<int32_t>::view(
      {reinterpret_cast<const char*>(words.data()), image.size()}, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(view.size(), want.size());
  for (const auto& [key, value] : want) {
    ASSERT_NE(view.find(key), nullptr) << key;
    EXPECT_EQ(*view.find(key), value);
  }
  EXPECT_EQ(view.find("k-1"), nullptr);
  size_t visited = 0;
  view.for_each([&](std::string_view key, int32_t value) {
    EXPECT_EQ(want.at(std::string(key)), value);
    ++visited;
  });
  EXPECT_EQ(visited, want.size());
  EXPECT_EQ(view.image(), image);
}

TEST(FlatStringMapTest, AViewCopiesItselfAtTheFirstInsertAndLeavesTheImageAlone) {
  FlatStringMap<uint8_t> map;
  map.insert("ev", 1);
  map.insert("kitap", 2);
  const std::string image = map.image();
  const std::vector<uint64_t> words = aligned_copy(image);
  const std::string_view bytes(reinterpret_cast<const char*>(words.data()), image.size());
  std::string error;
  FlatStringMap<uint8_t> view = FlatStringMap<uint8_t>::view(bytes, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_FALSE(view.insert("ev", 9).second);  // present: the first value stays
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(view.insert("w" + std::to_string(i), 3).second);
  EXPECT_EQ(view.size(), 102u);
  EXPECT_EQ(*view.find("kitap"), 2);
  EXPECT_EQ(std::string(bytes), image);  // the image was not written to
  FlatStringMap<uint8_t> again = FlatStringMap<uint8_t>::view(bytes, &error);
  ASSERT_TRUE(error.empty()) << error;
  again.clear();
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(std::string(bytes), image);
}

TEST(FlatStringMapTest, ViewRejectsADamagedImage) {
  FlatStringMap<uint8_t> map;
  for (int i = 0; i < 20; ++i) map.insert("root" + std::to_string(i), 1);
  const std::string image = map.image();
  const auto error_of = [](std::string bytes) {
    const std::vector<uint64_t> words = aligned_copy(bytes);
    std::string error;
    const FlatStringMap<uint8_t> view = FlatStringMap<uint8_t>::view(
        {reinterpret_cast<const char*>(words.data()), bytes.size()}, &error);
    if (!error.empty()) {
      EXPECT_TRUE(view.empty());
    }
    return error;
  };
  EXPECT_EQ(error_of(image), "");
  EXPECT_NE(error_of(image.substr(0, image.size() - 1)), "");  // truncated keys
  EXPECT_NE(error_of(image.substr(0, 40)), "");                // truncated header
  std::string magic = image;
  magic[0] = 'X';
  EXPECT_NE(error_of(magic), "");
  std::string wide = image;  // the image of another value type
  wide[16] = 4;
  EXPECT_NE(error_of(wide), "");
  std::string outside = image;  // a slot whose key offset points past the keys
  for (size_t at = kFlatMapImageHeader;; at += 24) {
    uint64_t hash = 0;
    std::memcpy(&hash, &outside[at], 8);
    if (hash == 0) continue;
    const uint32_t far = 1u << 30;
    std::memcpy(&outside[at + 8], &far, 4);
    break;
  }
  EXPECT_EQ(error_of(outside),
            "a flat map image slot points outside its keys (or its entry count is wrong)");
}

}  // namespace
}  // namespace morpheus
