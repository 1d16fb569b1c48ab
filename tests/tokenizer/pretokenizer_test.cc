// SPDX-License-Identifier: MIT
#include "tokenizer/pretokenizer.h"

#include <gtest/gtest.h>

#include <random>

#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

std::vector<std::pair<SpanKind, std::string>> spans_of(std::string_view text) {
  auto spans = pretokenize(text);
  EXPECT_TRUE(spans.ok());
  std::vector<std::pair<SpanKind, std::string>> out;
  if (!spans.ok()) return out;
  for (const Span& s : *spans) out.emplace_back(s.kind, std::string(s.text(text)));
  return out;
}

std::string concat(std::string_view text, const std::vector<Span>& spans) {
  std::string out;
  for (const Span& s : spans) out += s.text(text);
  return out;
}

TEST(PretokenizerTest, ApostropheSplitsProperNounFromSuffix) {
  using K = SpanKind;
  const auto s = spans_of("Ankara'da Türkiye’nin");
  const std::vector<std::pair<SpanKind, std::string>> want = {
      {K::kLetter, "Ankara"},  {K::kApostrophe, "'"}, {K::kLetter, "da"}, {K::kSpace, " "},
      {K::kLetter, "Türkiye"}, {K::kApostrophe, "’"}, {K::kLetter, "nin"}};
  EXPECT_EQ(s, want);
}

TEST(PretokenizerTest, DigitsWhitespaceAndPunctuationAreOwnSpans) {
  using K = SpanKind;
  const auto s = spans_of("1990'larda  2 kişi!\n");
  const std::vector<std::pair<SpanKind, std::string>> want = {
      {K::kDigit, "1990"},  {K::kApostrophe, "'"}, {K::kLetter, "larda"},
      {K::kSpace, "  "},    {K::kDigit, "2"},      {K::kSpace, " "},
      {K::kLetter, "kişi"}, {K::kOther, "!"},      {K::kSpace, "\n"}};
  EXPECT_EQ(s, want);
}

TEST(PretokenizerTest, SeparatorBetweenDigitsJoinsTheNumber) {
  using K = SpanKind;
  const auto s = spans_of("%12.5 1,168 24.11.2026 3. ,5 1..2");
  const std::vector<std::pair<SpanKind, std::string>> want = {
      {K::kOther, "%"}, {K::kDigit, "12.5"},       {K::kSpace, " "},  {K::kDigit, "1,168"},
      {K::kSpace, " "}, {K::kDigit, "24.11.2026"}, {K::kSpace, " "},  {K::kDigit, "3"},
      {K::kOther, "."}, {K::kSpace, " "},          {K::kOther, ","},  {K::kDigit, "5"},
      {K::kSpace, " "}, {K::kDigit, "1"},          {K::kOther, ".."}, {K::kDigit, "2"}};
  EXPECT_EQ(s, want);
}

TEST(PretokenizerTest, CombiningMarkContinuesLetterRun) {
  const auto s = spans_of("i\u0307stanbul \u0301x");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].second, "i\u0307stanbul");
  EXPECT_EQ(s[2].first, SpanKind::kOther);  // a mark after a space is not a letter
}

TEST(PretokenizerTest, InvalidUtf8IsAnErrorUnlessAllowed) {
  const std::string bad = "iyi\xC3 g\xFFn";
  auto strict = pretokenize(bad);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("byte 3"), std::string::npos);
  auto lenient = pretokenize(bad, /*allow_invalid=*/true);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(concat(bad, *lenient), bad);
  int invalid = 0;
  for (const Span& sp : *lenient) invalid += sp.kind == SpanKind::kInvalid ? 1 : 0;
  EXPECT_EQ(invalid, 2);
}

TEST(PretokenizerTest, EmptyInputGivesNoSpans) {
  auto spans = pretokenize("");
  ASSERT_TRUE(spans.ok());
  EXPECT_TRUE(spans->empty());
}

// Property: for random valid text the spans tile the input exactly, adjacent runs of the same
// kind are merged (except apostrophes), and letter spans hold only letters and marks.
TEST(PretokenizerTest, RoundTripPropertyOnRandomText) {
  std::mt19937_64 rng(20261122);
  for (int i = 0; i < 10000; ++i) {
    const std::string text = testing::random_text(rng, 60);
    auto spans = pretokenize(text);
    ASSERT_TRUE(spans.ok()) << text;
    ASSERT_EQ(concat(text, *spans), text);
    size_t expect_begin = 0;
    for (size_t k = 0; k < spans->size(); ++k) {
      const Span& s = (*spans)[k];
      ASSERT_EQ(s.begin, expect_begin);
      ASSERT_LT(s.begin, s.end);
      expect_begin = s.end;
      if (k > 0 && s.kind != SpanKind::kApostrophe) {
        ASSERT_NE((*spans)[k - 1].kind, s.kind) << "unmerged run in: " << text;
      }
      ASSERT_TRUE(utf8::is_valid(s.text(text)));
    }
  }
}

TEST(PretokenizerTest, RoundTripPropertyOnRandomBytes) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 5000; ++i) {
    const std::string bytes = testing::random_bytes(rng);
    std::vector<Span> spans;
    pretokenize_into(bytes, spans);
    ASSERT_EQ(concat(bytes, spans), bytes);
  }
}

}  // namespace
}  // namespace morpheus::tokenizer
