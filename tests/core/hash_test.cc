// SPDX-License-Identifier: MIT
// The checksums (core/hash.h): FNV-1a 64's published vectors, lanes64 over every length and byte,
// and checksum_matches on both tag kinds.
#include "core/hash.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

namespace morpheus {
namespace {

TEST(HashTest, Fnv1a64MatchesItsPublishedVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(checksum_tag("a"), "fnv1a64:af63dc4c8601ec8c");
}

TEST(HashTest, Lanes64DependsOnEveryByteAndTheLength) {
  std::mt19937_64 rng(11);
  std::string base(200, '\0');
  for (char& c : base) c = static_cast<char>(rng());
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= base.size(); ++n) {  // every length: lanes, words and tail bytes
    EXPECT_TRUE(seen.insert(lanes64(base.data(), n)).second) << "length " << n;
  }
  const uint64_t whole = lanes64(base.data(), base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    std::string flipped = base;
    flipped[i] = static_cast<char>(flipped[i] ^ 1);
    EXPECT_NE(lanes64(flipped.data(), flipped.size()), whole) << "byte " << i;
  }
  EXPECT_NE(lanes64("\0", 1), lanes64("", 0));          // a zero byte is not nothing
  EXPECT_EQ(lanes64(base.data(), base.size()), whole);  // and it is a function
}

TEST(HashTest, Lanes64IsStoredSoItsValuesAreFixed) {
  // Files written by export carry these tags: a change here makes every stored tag wrong. The
  // values come from an independent implementation of the definition in core/hash.cc (Python).
  EXPECT_EQ(fast_checksum_tag(""), "lanes64:0f01929718ee27a1");
  EXPECT_EQ(fast_checksum_tag("evlerimizden kitaplar"), "lanes64:2f131da423cb740b");
  std::string long_bytes;  // lanes, whole words and a tail: bytes 0..255 three times, then "abc"
  for (int r = 0; r < 3; ++r) {
    for (int b = 0; b < 256; ++b) long_bytes += static_cast<char>(b);
  }
  long_bytes += "abc";
  EXPECT_EQ(fast_checksum_tag(long_bytes), "lanes64:949c998f0948dc08");
}

TEST(HashTest, ChecksumMatchesEitherKindAndNothingElse) {
  const std::string bytes = "kitap\tev\n";
  EXPECT_TRUE(checksum_matches(bytes, checksum_tag(bytes)));
  EXPECT_TRUE(checksum_matches(bytes, fast_checksum_tag(bytes)));
  EXPECT_FALSE(checksum_matches(bytes + "x", checksum_tag(bytes)));
  EXPECT_FALSE(checksum_matches(bytes + "x", fast_checksum_tag(bytes)));
  EXPECT_FALSE(checksum_matches(bytes, "md5:" + hex16(fnv1a64(bytes))));
  EXPECT_FALSE(checksum_matches(bytes, ""));
}

}  // namespace
}  // namespace morpheus
