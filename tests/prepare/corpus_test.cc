// SPDX-License-Identifier: MIT
// Tests for prepare/corpus.h: what a word is, case side channel, treebank sentences.
#include "prepare/corpus.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::vector<FoldedWord> words;
  extract_words(line, &words);
  std::vector<std::string> out;
  for (const FoldedWord& w : words) out.push_back(utf8::encode(w.lower));
  return out;
}

TEST(CorpusTest, ApostrophesSplitProperNounsFromSuffixes) {
  EXPECT_EQ(words_of("Türkiye'nin başkenti"),
            (std::vector<std::string>{"türkiye", "nin", "başkenti"}));
  EXPECT_EQ(words_of("Ankara’da"), (std::vector<std::string>{"ankara", "da"}));
}

TEST(CorpusTest, DigitsArePunctuationNotWordParts) {
  EXPECT_EQ(words_of("1990'larda 3 kişi, 2.5 kg!"),
            (std::vector<std::string>{"larda", "kişi", "kg"}));
}

TEST(CorpusTest, SingleLetterWordsAreKept) {
  EXPECT_EQ(words_of("o da bir a"), (std::vector<std::string>{"o", "da", "bir", "a"}));
}

TEST(CorpusTest, TurkishCaseFoldingKeepsTheCaseChannel) {
  std::vector<FoldedWord> words;
  extract_words("İSTANBUL Işık", &words);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(utf8::encode(words[0].lower), "istanbul");
  EXPECT_EQ(words[0].upper, std::vector<bool>(8, true));
  EXPECT_EQ(utf8::encode(words[1].lower), "ışık");
  EXPECT_EQ(words[1].upper, (std::vector<bool>{true, false, false, false}));
}

TEST(CorpusTest, CountsTypesAndKeepsCaseOnlyWhenUpper) {
  Corpus corpus;
  corpus.add_sentence("Ev evde ev");
  corpus.add_sentence("123 !!");
  ASSERT_EQ(corpus.types().size(), 2u);
  EXPECT_EQ(corpus.counts()[0], 2u);  // ev
  EXPECT_EQ(corpus.counts()[1], 1u);  // evde
  ASSERT_EQ(corpus.sentences().size(), 1u);
  EXPECT_EQ(corpus.num_empty_sentences(), 1u);
  EXPECT_EQ(corpus.sentences()[0][0].upper, (std::vector<bool>{true, false}));
  EXPECT_TRUE(corpus.sentences()[0][1].upper.empty());
}

TEST(CorpusTest, ReadsTreebankSentences) {
  const std::string dir = testing::make_temp_dir("corpus");
  const std::string path = path_join(dir, "tb.txt");
  ASSERT_TRUE(write_file_atomic(path,
                                "<DOC>\t<DOC>+BDTag\n<S>\t<S>+BSTag\nBüyük\tbüyük+ADJ\n"
                                "yasada\tyasa+NOUN\n.\t.+PUNC\n</S>\t</S>+ESTag\n"
                                "<S>\t<S>+BSTag\nHayır\thayır+ADV\n</S>\t</S>+ESTag\n")
                  .ok());
  StatusOr<CorpusFormat> format = detect_corpus_format(path);
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, CorpusFormat::kTreebank);
  Corpus corpus;
  ASSERT_TRUE(corpus.add_file(path, *format).ok());
  ASSERT_EQ(corpus.sentences().size(), 2u);
  EXPECT_EQ(corpus.sentences()[0].size(), 2u);
  EXPECT_EQ(utf8::encode(corpus.types()[0]), "büyük");
}

TEST(CorpusTest, TruncatedTreebankIsAnErrorWithLine) {
  const std::string dir = testing::make_temp_dir("corpus");
  const std::string path = path_join(dir, "tb.txt");
  ASSERT_TRUE(write_file_atomic(path, "<S>\t<S>+BSTag\nev\tev+NOUN\n").ok());
  Corpus corpus;
  const Status s = corpus.add_file(path, CorpusFormat::kTreebank);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("line 2"), std::string::npos) << s.message();
}

TEST(CorpusTest, PlainTextWithInvalidUtf8NamesTheLine) {
  const std::string dir = testing::make_temp_dir("corpus");
  const std::string path = path_join(dir, "c.txt");
  ASSERT_TRUE(write_file_atomic(path, "ev\nbad \xff byte\n").ok());
  Corpus corpus;
  const Status s = corpus.add_file(path, CorpusFormat::kPlainText);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("line 2"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace morpheus::train
