// SPDX-License-Identifier: MIT
// The byte-level double-array trie of the hybrid tokenizer: exact lookups against a std::map,
// longest-prefix walks with step()/value() against brute force, arbitrary bytes (NUL, 0xFF) in
// keys, no transitions outside the keys, the empty trie (built from no keys, or never built), and
// the build contract.
#include "baselines/hybrid/double_array.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/check.h"

namespace morpheus::tokenizer::hybrid {
namespace {

DoubleArray da_build(const std::map<std::string, int32_t>& keys) {
  DoubleArray da;
  da.build({keys.begin(), keys.end()});
  return da;
}

std::string da_random_string(std::mt19937_64& rng, int max_len, int alphabet) {
  const int n = 1 + static_cast<int>(rng() % static_cast<uint64_t>(max_len));
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + rng() % alphabet));
  return s;
}

TEST(DoubleArrayTest, FindsEveryKeyAndNothingElse) {
  std::mt19937_64 rng(3);
  std::map<std::string, int32_t> keys;
  std::uniform_int_distribution<int> len(1, 12);
  std::uniform_int_distribution<int> byte(0, 255);
  while (keys.size() < 5000) {
    std::string k;
    const int n = len(rng);
    for (int i = 0; i < n; ++i)
      k.push_back(static_cast<char>(byte(rng) % 7 == 0 ? byte(rng) : 'a' + byte(rng) % 4));
    keys.emplace(k, static_cast<int32_t>(keys.size()));
  }
  DoubleArray da;
  da.build({keys.begin(), keys.end()});
  for (const auto& [k, v] : keys) EXPECT_EQ(da.find(k), v) << k;
  for (int i = 0; i < 5000; ++i) {
    std::string k;
    const int n = len(rng);
    for (int j = 0; j < n; ++j) k.push_back(static_cast<char>('a' + byte(rng) % 5));
    const auto it = keys.find(k);
    EXPECT_EQ(da.find(k), it == keys.end() ? DoubleArray::kNoValue : it->second) << k;
  }
}

TEST(DoubleArrayTest, PrefixesAndExtensionsOfKeysAreNotKeys) {
  const DoubleArray da = da_build({{"ab", 1}, {"abcd", 2}, {"b", 0}});
  EXPECT_EQ(da.find("ab"), 1);
  EXPECT_EQ(da.find("abcd"), 2);
  EXPECT_EQ(da.find("b"), 0);  // value 0 is a value, not "absent"
  EXPECT_EQ(da.find("a"), DoubleArray::kNoValue);
  EXPECT_EQ(da.find("abc"), DoubleArray::kNoValue);
  EXPECT_EQ(da.find("abcde"), DoubleArray::kNoValue);
  EXPECT_EQ(da.find("ba"), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(""), DoubleArray::kNoValue);
}

TEST(DoubleArrayTest, StepWalkFindsTheLongestKeyPrefixLikeBruteForce) {
  // The hybrid encoder's scan: walk from the root byte by byte, remember the last state with a
  // value, stop at the first missing transition.
  std::mt19937_64 rng(17);
  std::map<std::string, int32_t> keys;
  while (keys.size() < 400) {
    keys.emplace(da_random_string(rng, 6, 3), static_cast<int32_t>(keys.size()));
  }
  const DoubleArray da = da_build(keys);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::string text = da_random_string(rng, 10, 4);  // 'd' is in no key
    size_t walk_len = 0;
    int32_t walk_value = DoubleArray::kNoValue;
    int32_t state = DoubleArray::root();
    for (size_t p = 0; p < text.size(); ++p) {
      state = da.step(state, static_cast<unsigned char>(text[p]));
      if (state < 0) break;
      if (da.value(state) != DoubleArray::kNoValue) {
        walk_len = p + 1;
        walk_value = da.value(state);
      }
    }
    size_t brute_len = 0;
    int32_t brute_value = DoubleArray::kNoValue;
    for (size_t n = 1; n <= text.size(); ++n) {
      const auto it = keys.find(text.substr(0, n));
      if (it != keys.end()) {
        brute_len = n;
        brute_value = it->second;
      }
    }
    EXPECT_EQ(walk_len, brute_len) << text;
    EXPECT_EQ(walk_value, brute_value) << text;
  }
}

TEST(DoubleArrayTest, KeysMayHoldAnyByteIncludingNulAndFf) {
  std::map<std::string, int32_t> keys;
  for (int b = 0; b < 256; ++b) keys.emplace(std::string(1, static_cast<char>(b)), b);
  keys.emplace(std::string("a\0b", 3), 1000);
  keys.emplace(std::string("\xff\xff", 2), 1001);
  keys.emplace(std::string("\0\0", 2), 1002);
  const DoubleArray da = da_build(keys);
  for (const auto& [k, v] : keys) EXPECT_EQ(da.find(k), v) << k.size();
  EXPECT_EQ(da.find(std::string("a\0", 2)), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(std::string("\0\0\0", 3)), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(std::string("\xff\xff\xff", 3)), DoubleArray::kNoValue);
}

TEST(DoubleArrayTest, OnlyKeyBytesHaveTransitions) {
  const DoubleArray da = da_build({{"abc", 5}, {"ax", 6}});
  const int32_t a = da.step(DoubleArray::root(), 'a');
  ASSERT_GE(a, 0);
  for (int c = 0; c < 256; ++c) {
    const auto byte = static_cast<unsigned char>(c);
    if (c != 'a') {
      EXPECT_LT(da.step(DoubleArray::root(), byte), 0) << "root --" << c;
    }
    if (c != 'b' && c != 'x') {
      EXPECT_LT(da.step(a, byte), 0) << "a --" << c;
    }
  }
  // A key's last state has no transitions at all.
  const int32_t leaf = da.step(a, 'x');
  ASSERT_GE(leaf, 0);
  EXPECT_EQ(da.value(leaf), 6);
  for (int c = 0; c < 256; ++c) {
    EXPECT_LT(da.step(leaf, static_cast<unsigned char>(c)), 0) << "ax --" << c;
  }
}

TEST(DoubleArrayTest, EmptyKeySetHasNoTransitionsAndNoValues) {
  DoubleArray da;
  da.build({});
  for (int c = 0; c < 256; ++c) {
    EXPECT_LT(da.step(DoubleArray::root(), static_cast<unsigned char>(c)), 0) << "root --" << c;
  }
  EXPECT_EQ(da.value(DoubleArray::root()), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(""), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(std::string(1, '\0')), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(std::string(3, '\0')), DoubleArray::kNoValue);
  EXPECT_EQ(da.find("ab"), DoubleArray::kNoValue);
}

TEST(DoubleArrayTest, UnbuiltTrieHasNoTransitionsAndNoValues) {
  const DoubleArray da;
  for (int c = 0; c < 256; ++c) {
    EXPECT_LT(da.step(DoubleArray::root(), static_cast<unsigned char>(c)), 0) << "root --" << c;
  }
  EXPECT_EQ(da.value(DoubleArray::root()), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(""), DoubleArray::kNoValue);
  EXPECT_EQ(da.find(std::string(1, '\0')), DoubleArray::kNoValue);
  EXPECT_EQ(da.find("ab"), DoubleArray::kNoValue);
  EXPECT_EQ(da.num_units(), 0u);
}

TEST(DoubleArrayTest, EmptyKeyDuplicateKeyAndNegativeValueAreContractErrors) {
  DoubleArray da;
  EXPECT_THROW(da.build({{"", 1}}), InternalError);
  EXPECT_THROW(da.build({{"ab", 1}, {"ab", 2}}), InternalError);
  EXPECT_THROW(da.build({{"ab", -1}}), InternalError);
  EXPECT_NO_THROW(da.build({{"ab", 0}}));
  EXPECT_EQ(da.find("ab"), 0);
}

}  // namespace
}  // namespace morpheus::tokenizer::hybrid
