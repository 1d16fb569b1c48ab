// SPDX-License-Identifier: MIT
// Loading the hybrid tokenizer's lexicons (file order kept, errors for missing or malformed
// files).
#include "baselines/hybrid/hybrid_lexicon.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer::hybrid {
namespace {

// Writes a small lexicon directory; empty content leaves a file out.
std::string write_lexicon(const std::string& roots, const std::string& suffixes,
                          const std::string& bpe) {
  const std::string dir = testing::make_temp_dir("hybrid_lex");
  if (!roots.empty()) {
    EXPECT_TRUE(write_file_atomic(dir + "/kokler.json", roots).ok());
  }
  if (!suffixes.empty()) {
    EXPECT_TRUE(write_file_atomic(dir + "/ekler.json", suffixes).ok());
  }
  if (!bpe.empty()) {
    EXPECT_TRUE(write_file_atomic(dir + "/bpe_tokenler.json", bpe).ok());
  }
  return dir;
}

constexpr const char* kRoots =
    "{\n  \"<uppercase>\": 0,\n  \"<unknown>\": 1,\n  \" \": 2,\n  \"kitap\": 3,\n"
    "  \"kitab\": 3\n}\n";
constexpr const char* kSuffixes = "{\n  \"lar\": 4,\n  \"ler\": 4\n}\n";
constexpr const char* kBpe = "{\n  \"k\": 5,\n  \"\\\"q\": 6\n}\n";

TEST(HybridLexiconTest, LoadsSmallLexiconKeepingFileOrder) {
  auto lex = HybridLexicon::load(write_lexicon(kRoots, kSuffixes, kBpe));
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_EQ(lex->num_ids(), 7);
  ASSERT_EQ(lex->forms_of(3).size(), 2u);
  EXPECT_EQ(lex->form(lex->forms_of(3)[1]).text, "kitab");
  EXPECT_EQ(lex->form(lex->forms_of(4)[0]).text, "lar");
  EXPECT_EQ(lex->form(lex->forms_of(6)[0]).text, "\"q");  // escapes decoded
  EXPECT_EQ(lex->form(lex->forms_of(4)[1]).table, Table::kSuffix);
  const int32_t v = lex->trie().find("ler");
  ASSERT_GE(v, 0);
  EXPECT_EQ(lex->form(HybridLexicon::trie_form(v)).text, "ler");
  EXPECT_TRUE(HybridLexicon::trie_is_marker(lex->trie().find("<unknown>")));
}

TEST(HybridLexiconTest, MissingDirectoryOrFileIsNotFound) {
  auto no_dir = HybridLexicon::load("/no/such/lexicon_dir");
  ASSERT_FALSE(no_dir.ok());
  EXPECT_EQ(no_dir.status().code(), StatusCode::kNotFound);
  EXPECT_NE(no_dir.status().message().find("/no/such/lexicon_dir"), std::string::npos);
  auto no_file = HybridLexicon::load(write_lexicon(kRoots, kSuffixes, ""));
  ASSERT_FALSE(no_file.ok());
  EXPECT_EQ(no_file.status().code(), StatusCode::kNotFound);
  EXPECT_NE(no_file.status().message().find("bpe_tokenler.json"), std::string::npos);
}

TEST(HybridLexiconTest, MalformedFilesNameFileAndLine) {
  struct Case {
    std::string roots;
    std::string expect;
  };
  const Case cases[] = {
      {"{\n  \"<uppercase>\": 0,\n  \"x\" 1\n}", "line 3"},
      {"{\n  \"<uppercase>\": 0,\n  \"x\": 1.5\n}", "non-integer"},
      {"{\n  \"<uppercase>\": 0,\n  \"x\": -1\n}", "out of range"},
      {"{\n  \"<uppercase>\": 0,\n  \"x\": \"1\"\n}", "string value"},
      {"{\"a\": {\"b\": 1}}", "nested"},
      {"[1, 2]", "array"},
      {"{}", "no {"},
      {"{\"<uppercase>\": 0, \"\": 1}", "empty surface"},
      {"{\"<uppercase>\": 0, \"x\": 1, \"x\": 2}", "appears twice"},
      {"{\"<uppercase>\": 0, \"lar\": 1, \" \": 2}", "appears twice (also in kokler.json)"},
      {"{\"<uppercase>\": 0, \" \": 2, \"z\": 3}", "special id 1"},
  };
  for (const Case& c : cases) {
    auto lex = HybridLexicon::load(write_lexicon(c.roots, kSuffixes, kBpe));
    ASSERT_FALSE(lex.ok()) << c.roots;
    EXPECT_EQ(lex.status().code(), StatusCode::kDataLoss) << c.roots;
    EXPECT_NE(lex.status().message().find(c.expect), std::string::npos) << lex.status().message();
    EXPECT_FALSE(lex.status().hint().empty());
  }
}

TEST(HybridLexiconTest, LoadsTheReleasedLexicons) {
  const std::string dir = testing::shared_data_file("hybrid");
  MORPHEUS_REQUIRE_DATA(dir, "../shared/data/hybrid");
  auto lex = HybridLexicon::load(dir);
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_EQ(lex->num_ids(), 32768);
  EXPECT_EQ(lex->forms().size(), 35104u);
  const auto& dir_forms = lex->forms_of(20032);
  ASSERT_EQ(dir_forms.size(), 8u);
  EXPECT_EQ(lex->form(dir_forms[0]).text, "acak");
  EXPECT_EQ(lex->form(dir_forms[7]).text, "yeceğ");
  EXPECT_EQ(lex->forms_of(20030).size(), 16u);
}

}  // namespace
}  // namespace morpheus::tokenizer::hybrid
