// SPDX-License-Identifier: MIT
// The segment table (tokenizer/segment_table.h): the file image and its lookups, damaged images,
// and TableSegmenter (case folding, first entry wins, whole unknown words, entries written back).
#include "tokenizer/segment_table.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace morpheus::tokenizer {
namespace {

std::vector<std::pair<std::string, std::vector<std::string>>> table_entries() {
  return {{"kitaplarımızdan", {"kitap", "lar", "ımız", "dan"}},
          {"kitap", {"kitap"}},
          {"evlerde", {"ev", "ler", "de"}},
          {"çocuk", {"çocuk"}}};
}

TEST(SegmentTableTest, SerializedTableLooksUpEveryRun) {
  const StatusOr<SegmentTable> table =
      SegmentTable::parse(SegmentTable::serialize(table_entries()), "t.bin");
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_EQ(table->size(), 4u);
  for (const auto& [run, pieces] : table_entries()) {
    std::vector<std::string> got;
    ASSERT_TRUE(table->lookup(run, &got)) << run;
    EXPECT_EQ(got, pieces);
  }
}

TEST(SegmentTableTest, PrefixesAndOtherRunsMiss) {
  const SegmentTable table =
      SegmentTable::parse(SegmentTable::serialize(table_entries()), "t.bin").value();
  std::vector<std::string> got;
  for (const char* run : {"kita", "kitapl", "kitaplar", "", "zzz", "evlerd", "a"}) {
    EXPECT_FALSE(table.lookup(run, &got)) << run;
  }
}

TEST(SegmentTableTest, DamagedImagesAreDataLoss) {
  const std::string image = SegmentTable::serialize(table_entries());
  for (const std::string& bad : {image.substr(0, image.size() - 1),
                                 std::string("XSEGTAB1") + image.substr(8), image.substr(0, 10)}) {
    const StatusOr<SegmentTable> t = SegmentTable::parse(bad, "t.bin");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(t.status().message().find("t.bin"), std::string::npos);
  }
}

TEST(TableSegmenterTest, FoldsCaseAndKeepsTheFirstEntryOfAWord) {
  const TableSegmenter table({{"EVLERDE", {"EV", "LER", "DE"}},
                              {"evlerde", {"evler", "de"}},
                              {"Işık", {"Iş", "ık"}},
                              {"kitap", {"ki", "tab"}}});  // does not spell the word: left out
  EXPECT_EQ(table.cut("evlerde"), (std::vector<std::string>{"ev", "ler", "de"}));
  EXPECT_EQ(table.cut("ışık"), (std::vector<std::string>{"ış", "ık"}));
  EXPECT_EQ(table.cut("kitap"), (std::vector<std::string>{"kitap"}));  // unknown: whole
  EXPECT_EQ(table.table().size(), 2u);
  const std::vector<SegmentedWord> entries = table.table().entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].word, "evlerde");
  EXPECT_EQ(entries[1].pieces, (std::vector<std::string>{"ış", "ık"}));
}

TEST(TableSegmenterTest, WithoutTurkishCaseIFoldsToI) {
  const TableSegmenter table({{"Ibon", {"I", "bon"}}}, false);
  EXPECT_EQ(table.cut("ibon"), (std::vector<std::string>{"i", "bon"}));
}

}  // namespace
}  // namespace morpheus::tokenizer
