// SPDX-License-Identifier: MIT
#include "core/unicode.h"

#include <gtest/gtest.h>

#include <random>

#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::unicode {
namespace {

TEST(UnicodeTest, TurkishLowerCasesDottedAndDotlessI) {
  EXPECT_EQ(to_lower("İSTANBUL"), "istanbul");
  EXPECT_EQ(to_lower("IĞDIR"), "ığdır");
  EXPECT_EQ(to_lower("ILIK"), "ılık");
  EXPECT_EQ(to_lower("ÇŞĞÜÖ"), "çşğüö");
}

TEST(UnicodeTest, TurkishUpperCasesDottedAndDotlessI) {
  EXPECT_EQ(to_upper("ılık"), "ILIK");
  EXPECT_EQ(to_upper("istanbul"), "İSTANBUL");
  EXPECT_EQ(to_upper("ığdır"), "IĞDIR");
}

TEST(UnicodeTest, CombiningDotAboveAfterIFoldsToPlainI) {
  // "i̇" is what a non-Turkish lower-casing makes of İ.
  EXPECT_EQ(to_lower("i\u0307stanbul"), "istanbul");
  EXPECT_EQ(to_lower("İ"), "i");
  // Without Turkish rules I maps to i and the combining mark stays.
  EXPECT_EQ(to_lower("I", false), "i");
  EXPECT_EQ(to_lower("i\u0307", false), "i\u0307");
}

TEST(UnicodeTest, GenericLatinGreekCyrillicCaseMapping) {
  EXPECT_EQ(to_lower("ÀÉÎÕÜŸ", false), "àéîõüÿ");
  EXPECT_EQ(to_lower("ΑΒΓΣΩΆ"), "αβγσωά");
  EXPECT_EQ(to_upper("αβγσωάς"), "ΑΒΓΣΩΆΣ");
  EXPECT_EQ(to_lower("МОСКВАЁ"), "москваё");
  EXPECT_EQ(to_upper("москваё"), "МОСКВАЁ");
  EXPECT_EQ(to_lower("ĞŁŃŽ"), "ğłńž");
  EXPECT_EQ(to_upper("ğłńž"), "ĞŁŃŽ");
  EXPECT_EQ(to_lower("ẞ"), "ß");
}

TEST(UnicodeTest, ClassifiesLettersDigitsSpacesMarks) {
  EXPECT_TRUE(is_letter(U'ğ'));
  EXPECT_TRUE(is_letter(U'İ'));
  EXPECT_TRUE(is_letter(U'ж'));
  EXPECT_TRUE(is_letter(U'漢'));
  EXPECT_FALSE(is_letter(U'1'));
  EXPECT_FALSE(is_letter(U'€'));
  EXPECT_FALSE(is_letter(U'\u00D7'));  // ×
  EXPECT_TRUE(is_digit(U'7'));
  EXPECT_TRUE(is_digit(U'\u0663'));
  EXPECT_TRUE(is_space(U'\u00A0'));
  EXPECT_TRUE(is_space(U'\n'));
  EXPECT_FALSE(is_space(U'\u200B'));
  EXPECT_TRUE(is_mark(U'\u0307'));
  EXPECT_TRUE(is_apostrophe(U'\u2019'));
  EXPECT_TRUE(is_apostrophe(U'\''));
}

TEST(UnicodeTest, FoldCaseSideChannelRestoresOriginal) {
  const std::u32string word = U"İstanbul'DA Iğdır";
  const CaseFolded f = fold_case(word);
  EXPECT_TRUE(f.restorable);
  EXPECT_EQ(f.lower, U"istanbul'da ığdır");
  EXPECT_TRUE(f.upper[0]);
  EXPECT_FALSE(f.upper[1]);
  EXPECT_EQ(restore_case(f.lower, f.upper), word);
}

TEST(UnicodeTest, FoldCaseFlagsTitlecaseDigraphAsNotRestorable) {
  const CaseFolded f = fold_case(U"ǅemal");
  EXPECT_FALSE(f.restorable);
}

TEST(UnicodeTest, FoldCaseRoundTripsRandomRestorableText) {
  std::mt19937_64 rng(11);
  int restorable = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto cps = utf8::decode(testing::random_text(rng));
    ASSERT_TRUE(cps.ok());
    const CaseFolded f = fold_case(*cps);
    if (!f.restorable) continue;
    ++restorable;
    EXPECT_EQ(restore_case(f.lower, f.upper), *cps);
  }
  EXPECT_GT(restorable, 2000);
}

}  // namespace
}  // namespace morpheus::unicode
