// SPDX-License-Identifier: MIT
#include "tokenizer/segment_file.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

TEST(SegmentationFileTest, ParsesWordAndPieces) {
  auto w = parse_segment_line("evlerimizde\tev ler imiz de");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->word, "evlerimizde");
  EXPECT_EQ(w->pieces, (std::vector<std::string>{"ev", "ler", "imiz", "de"}));
}

TEST(SegmentationFileTest, RejectsPiecesThatDoNotSpellTheWord) {
  EXPECT_FALSE(parse_segment_line("evler\tev lar").ok());
  EXPECT_FALSE(parse_segment_line("evler").ok());
  EXPECT_FALSE(parse_segment_line("evler\t").ok());
  EXPECT_FALSE(parse_segment_line("\tev").ok());
}

TEST(SegmentationFileTest, WriteReadRoundTripAndLineNumbersInErrors) {
  const std::string dir = testing::make_temp_dir("segfile");
  const std::vector<SegmentedWord> words = {{"kitaplar", {"kitap", "lar"}}, {"çiçek", {"çiçek"}}};
  ASSERT_TRUE(write_segment_file(dir + "/a.tsv", words).ok());
  auto back = read_segment_file(dir + "/a.tsv");
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].pieces, words[0].pieces);
  EXPECT_EQ((*back)[1].word, "çiçek");

  ASSERT_TRUE(write_file_atomic(dir + "/bad.tsv", "ev\tev\nkalem\tka lem\nx\ty\n").ok());
  auto bad = read_segment_file(dir + "/bad.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 3"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace morpheus::tokenizer
