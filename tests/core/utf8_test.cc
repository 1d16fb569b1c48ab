// SPDX-License-Identifier: MIT
#include "core/utf8.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/support/test_support.h"

namespace morpheus::utf8 {
namespace {

TEST(Utf8Test, DecodesEveryEncodedLength) {
  const std::string s = "a\u00E7\u20AC\U0001F600";  // 1, 2, 3, 4 bytes
  Decoded d = decode_one(s, 0);
  EXPECT_TRUE(d.valid);
  EXPECT_EQ(d.code_point, U'a');
  EXPECT_EQ(d.length, 1u);
  d = decode_one(s, 1);
  EXPECT_EQ(d.code_point, U'\u00E7');
  EXPECT_EQ(d.length, 2u);
  d = decode_one(s, 3);
  EXPECT_EQ(d.code_point, U'\u20AC');
  EXPECT_EQ(d.length, 3u);
  d = decode_one(s, 6);
  EXPECT_EQ(d.code_point, U'\U0001F600');
  EXPECT_EQ(d.length, 4u);
}

TEST(Utf8Test, EncodeDecodeRoundTripsAllScalarBoundaries) {
  for (char32_t cp :
       {0x0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xD7FFu, 0xE000u, 0xFFFFu, 0x10000u, 0x10FFFFu}) {
    const std::string enc = encode(cp);
    const Decoded d = decode_one(enc, 0);
    EXPECT_TRUE(d.valid) << std::hex << cp;
    EXPECT_EQ(d.code_point, cp);
    EXPECT_EQ(d.length, enc.size());
  }
}

TEST(Utf8Test, RejectsOverlongSurrogatesTruncatedAndStray) {
  EXPECT_EQ(find_invalid("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(find_invalid("\xE0\x80\xAF"), 0u);      // overlong 3-byte
  EXPECT_EQ(find_invalid("\xF0\x80\x80\xAF"), 0u);  // overlong 4-byte
  EXPECT_EQ(find_invalid("ok\xED\xA0\x80"), 2u);    // surrogate U+D800
  EXPECT_EQ(find_invalid("ab\xC3"), 2u);            // truncated 2-byte
  EXPECT_EQ(find_invalid("x\xE2\x82"), 1u);         // truncated 3-byte
  EXPECT_EQ(find_invalid("\x80"), 0u);              // stray continuation
  EXPECT_EQ(find_invalid("\xF4\x90\x80\x80"), 0u);  // > U+10FFFF
  EXPECT_EQ(find_invalid("\xFF"), 0u);
  EXPECT_EQ(find_invalid("ğüşiöç"), std::string::npos);
}

TEST(Utf8Test, ValidateNamesByteOffset) {
  const Status s = validate("abc\xFFz");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("byte 3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("0xFF"), std::string::npos) << s.message();
}

TEST(Utf8Test, DecodeReturnsCodePointsOrError) {
  auto ok = decode("İğ");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, U"İğ");
  EXPECT_FALSE(decode("a\xC3").ok());
}

TEST(Utf8Test, LengthCountsCodePoints) {
  EXPECT_EQ(length("kitaplarımız"), 12u);
  EXPECT_EQ(length(""), 0u);
  EXPECT_EQ(length("\xFF\xFE"), 2u);
}

TEST(Utf8Test, RandomTextIsValidAndRoundTrips) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = testing::random_text(rng);
    auto cps = decode(s);
    ASSERT_TRUE(cps.ok()) << s;
    EXPECT_EQ(encode(*cps), s);
  }
}

}  // namespace
}  // namespace morpheus::utf8
