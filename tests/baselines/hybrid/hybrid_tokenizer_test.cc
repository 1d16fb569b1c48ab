// SPDX-License-Identifier: MIT
// The hybrid tokenizer against the Python reference's golden output (ids and decoded text for
// every line), and the lossless mode's round trip on the golden text and on random strings.
#include "baselines/hybrid/hybrid_tokenizer.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer::hybrid {
namespace {

class HybridTokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::shared_data_file("hybrid");
    MORPHEUS_REQUIRE_DATA(dir_, "../shared/data/hybrid (lexicons and golden files)");
    if (!lexicon_) {
      auto lex = HybridLexicon::load(dir_);
      ASSERT_TRUE(lex.ok()) << lex.status().to_string();
      lexicon_ = std::make_shared<const HybridLexicon>(std::move(lex).value());
    }
  }
  HybridTokenizer reference() const { return HybridTokenizer(lexicon_, HybridMode::kReference); }
  HybridTokenizer lossless() const { return HybridTokenizer(lexicon_, HybridMode::kLossless); }

  static std::vector<std::string> lines_of(const std::string& path) {
    std::vector<std::string> lines;
    LineReader reader;
    EXPECT_TRUE(reader.open(path).ok()) << path;
    std::string line;
    while (reader.next(&line)) lines.push_back(line);
    EXPECT_TRUE(reader.status().ok()) << reader.status().to_string();
    return lines;
  }

  std::string dir_;
  static std::shared_ptr<const HybridLexicon> lexicon_;
};
std::shared_ptr<const HybridLexicon> HybridTokenizerTest::lexicon_;

TEST_F(HybridTokenizerTest, ReferenceModeMatchesEveryGoldenLine) {
  const HybridTokenizer tok = reference();
  size_t total = 0;
  for (const char* name : {"paper_sentences", "edge_cases", "kenet_dev"}) {
    const std::string path = dir_ + "/golden/" + name + ".jsonl";
    size_t id_mismatches = 0;
    size_t text_mismatches = 0;
    size_t n = 0;
    for (const std::string& line : lines_of(path)) {
      const nlohmann::json row = nlohmann::json::parse(line);
      const std::string text = row.at("text").get<std::string>();
      const auto want_ids = row.at("ids").get<std::vector<int32_t>>();
      const std::vector<int32_t> ids = tok.encode(text);
      if (ids != want_ids && ++id_mismatches <= 5) {
        ADD_FAILURE() << name << " line " << n + 1 << ": ids differ for \"" << text << "\"";
      }
      auto decoded = tok.decode(want_ids);
      ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
      if (*decoded != row.at("decoded").get<std::string>() && ++text_mismatches <= 5) {
        ADD_FAILURE() << name << " line " << n + 1 << ": decoded \"" << *decoded << "\" != \""
                      << row.at("decoded").get<std::string>() << "\"";
      }
      ++n;
    }
    EXPECT_EQ(id_mismatches, 0u) << name;
    EXPECT_EQ(text_mismatches, 0u) << name;
    EXPECT_GT(n, 0u) << name;
    total += n;
  }
  EXPECT_EQ(total, 1646u + 47u + 4u);
}

TEST_F(HybridTokenizerTest, ReferenceModeKeepsTheDocumentedQuirks) {
  const HybridTokenizer tok = reference();
  EXPECT_EQ(tok.encode("Kitabı"), (std::vector<int32_t>{0, 227, 20034}));
  EXPECT_EQ(*tok.decode({0, 227, 20034}), "Kitapı");
  EXPECT_EQ(tok.encode("a \n b"), (std::vector<int32_t>{20037, 2, 2, 32276}));  // blank part
  EXPECT_EQ(*tok.decode({1}), "\xE2\x96\x81u\xE2\x96\x81");
  EXPECT_EQ(*tok.decode({99999}), "\xE2\x96\x81");
  EXPECT_EQ(*tok.decode({0}), "<uppercase>");
}

TEST_F(HybridTokenizerTest, ReferenceDecodeFailsWhereThePythonRaisesKeyError) {
  const HybridTokenizer tok = reference();
  auto after_marker = tok.decode({0, 99999});
  ASSERT_FALSE(after_marker.ok());
  EXPECT_NE(after_marker.status().message().find("99999"), std::string::npos);
  EXPECT_FALSE(tok.decode({227, 99999}).ok());
  EXPECT_FALSE(tok.decode({20029, 99999}).ok());
  EXPECT_TRUE(tok.decode({20029}).ok());
}

TEST_F(HybridTokenizerTest, LosslessRoundTripsEveryGoldenTextLine) {
  const HybridTokenizer tok = lossless();
  size_t n = 0;
  for (const char* name : {"paper_sentences", "edge_cases", "kenet_dev"}) {
    for (const std::string& line : lines_of(dir_ + "/golden/" + name + ".txt")) {
      auto back = tok.decode(tok.encode(line));
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      EXPECT_EQ(*back, line) << name;
      ++n;
    }
  }
  EXPECT_EQ(n, 1646u + 47u + 4u);
}

TEST_F(HybridTokenizerTest, LosslessRoundTripsRandomStrings) {
  const HybridTokenizer tok = lossless();
  std::mt19937_64 rng(20240531);
  for (int i = 0; i < 12000; ++i) {
    const std::string s = testing::random_text(rng, i % 3 == 0 ? 200 : 40);
    const std::vector<int32_t> ids = tok.encode(s);
    for (int32_t id : ids) ASSERT_LT(id, tok.vocab_size());
    auto back = tok.decode(ids);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    ASSERT_EQ(*back, s) << "case " << i;
  }
}

TEST_F(HybridTokenizerTest, LosslessRoundTripsInvalidUtf8Bytes) {
  const HybridTokenizer tok = lossless();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = testing::random_bytes(rng);
    auto back = tok.decode(tok.encode(s));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    ASSERT_EQ(*back, s) << "case " << i;
  }
}

TEST_F(HybridTokenizerTest, LosslessKeepsTheReferenceIdsForLexicalUnits) {
  const HybridTokenizer ref = reference();
  const HybridTokenizer tok = lossless();
  // Words the reference already decodes exactly need no extra ids.
  for (const char* word : {"kitabı", "güzellik var", "okudum", "geliyorum", "merhaba dünya"}) {
    EXPECT_EQ(tok.encode(word), ref.encode(word)) << word;
  }
  EXPECT_EQ(tok.vocab_size(), 32768 + 272);
}

TEST_F(HybridTokenizerTest, LosslessFixesTheReferenceFailures) {
  const HybridTokenizer ref = reference();
  const HybridTokenizer tok = lossless();
  for (const char* s : {"Kitabı", "İstanbul", "harflerle", "saatlerde", "gerekir", "güzellik",
                        "a \r\n b", "<uppercase>kitap", "👍 ǅ K", "Aldırma", "adınızı"}) {
    EXPECT_EQ(*tok.decode(tok.encode(s)), s);
  }
  EXPECT_NE(*ref.decode(ref.encode("harflerle")), "harflerle");
  // harflerle needs one form id (ler after harf); le then follows ler. güzellik needs none.
  EXPECT_EQ(tok.encode("harflerle"), (std::vector<int32_t>{3101, tok.form_id(1), 20000, 20023}));
  EXPECT_EQ(tok.encode("güzellik"), (std::vector<int32_t>{2623, 20029}));
}

TEST_F(HybridTokenizerTest, LosslessDecodeRejectsBadIds) {
  const HybridTokenizer tok = lossless();
  EXPECT_FALSE(tok.decode({tok.vocab_size()}).ok());
  EXPECT_FALSE(tok.decode({-1}).ok());
  EXPECT_FALSE(tok.decode({227, 0}).ok());               // dangling <uppercase>
  EXPECT_FALSE(tok.decode({tok.form_id(5), 227}).ok());  // kitap has 2 forms
  EXPECT_FALSE(tok.decode({0, tok.byte_id(65)}).ok());   // marker before a byte
  EXPECT_EQ(*tok.decode({tok.form_id(1), 227}), "kitab");
}

TEST_F(HybridTokenizerTest, SegmentPiecesSpellTheWord) {
  const HybridTokenizer ref = reference();
  const HybridTokenizer tok = lossless();
  EXPECT_EQ(ref.cut("Kitabı"), (std::vector<std::string>{"Kitab", "ı"}));
  EXPECT_EQ(ref.cut("HTTPServer"), (std::vector<std::string>{"H", "T", "T", "P", "Server"}));
  EXPECT_EQ(ref.cut("İstanbul"), (std::vector<std::string>{"İstanbul"}));
  std::mt19937_64 rng(99);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = testing::random_text(rng);
    for (const HybridTokenizer* t : {&ref, &tok}) {
      std::string joined;
      for (const std::string& p : t->cut(s)) {
        EXPECT_FALSE(p.empty());
        joined += p;
      }
      ASSERT_EQ(joined, s) << t->name();
    }
  }
}

}  // namespace
}  // namespace morpheus::tokenizer::hybrid
