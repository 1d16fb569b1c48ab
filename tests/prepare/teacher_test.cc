// SPDX-License-Identifier: MIT
// Tests for prepare/teacher.h: teacher TSV and Morfessor file parsing, and the Morfessor
// subprocess plumbing.
#include "prepare/teacher.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

using morph::Cuts;

TEST(TeacherTest, ReadsTsvLowerCased) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string path = path_join(dir, "t.tsv");
  ASSERT_TRUE(write_file_atomic(path, "evlerde\tev ler de\nIşık\tIşık\n\nİzmir\tİzmir\n").ok());
  StatusOr<TeacherTable> table = read_teacher_tsv(path);
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_EQ(table->size(), 3u);
  EXPECT_EQ(table->at(U"evlerde"), (Cuts{2, 5}));
  EXPECT_EQ(table->count(U"ışık"), 1u);
  EXPECT_EQ(table->count(U"izmir"), 1u);
}

TEST(TeacherTest, MalformedTsvLineIsReportedByLineNumber) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string path = path_join(dir, "t.tsv");
  ASSERT_TRUE(write_file_atomic(path, "ev\tev\nevler\tev ler\nevde ev de\n").ok());
  StatusOr<TeacherTable> table = read_teacher_tsv(path);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("line 3"), std::string::npos) << table.status().message();
  EXPECT_NE(table.status().message().find("t.tsv"), std::string::npos);
}

TEST(TeacherTest, PiecesThatDoNotSpellTheWordAreReportedByLineNumber) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string path = path_join(dir, "t.tsv");
  ASSERT_TRUE(write_file_atomic(path, "evler\tev ler\nevde\tev di\n").ok());
  StatusOr<TeacherTable> table = read_teacher_tsv(path);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("line 2"), std::string::npos) << table.status().message();
}

TEST(TeacherTest, ConflictingDuplicateNamesBothLines) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string path = path_join(dir, "t.tsv");
  ASSERT_TRUE(write_file_atomic(path, "evler\tev ler\nx\tx\nEvler\tEvl er\n").ok());
  StatusOr<TeacherTable> table = read_teacher_tsv(path);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("line 3"), std::string::npos);
  EXPECT_NE(table.status().message().find("line 1"), std::string::npos);
}

TEST(TeacherTest, ReadsMorfessorSegmentationFormat) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string path = path_join(dir, "segm.txt");
  ASSERT_TRUE(write_file_atomic(path, "# Output from Morfessor\n2 kitap + lar + da\n1 ev\n").ok());
  StatusOr<TeacherTable> table = read_morfessor_segmentation(path);
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_EQ(table->at(U"kitaplarda"), (Cuts{5, 8}));
  EXPECT_EQ(table->at(U"ev"), Cuts{});
  ASSERT_TRUE(write_file_atomic(path, "1 ev\nbroken\n").ok());
  StatusOr<TeacherTable> bad = read_morfessor_segmentation(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos);
}

TEST(TeacherTest, WritesTsvThatReadsBack) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string path = path_join(dir, "t.tsv");
  ASSERT_TRUE(write_teacher_tsv(path, {U"evlerde", U"göz"}, {{2, 5}, {}}).ok());
  StatusOr<std::string> text = read_file(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "evlerde\tev ler de\ngöz\tgöz\n");
}

TEST(TeacherTest, SubprocessExitStatusIsChecked) {
  const std::string dir = testing::make_temp_dir("teacher");
  const std::string log = path_join(dir, "log.txt");
  EXPECT_TRUE(run_subprocess({"/bin/sh", "-c", "echo fine"}, log, "t").ok());
  const Status failed = run_subprocess({"/bin/sh", "-c", "echo oops it broke; exit 3"}, log, "t");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("status 3"), std::string::npos) << failed.message();
  EXPECT_NE(failed.message().find("oops it broke"), std::string::npos) << failed.message();
  const Status missing = run_subprocess({"/nonexistent/morfessor"}, log, "t");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
}

TEST(TeacherTest, MissingMorfessorGivesTheInstallHint) {
  MorfessorOptions options;
  options.train_script = "/nonexistent/morfessor-train";
  const Status s = check_morfessor(options);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.hint().find("apt-get install python3-morfessor"), std::string::npos);
}

// A real Morfessor run on a dozen types (about a second).
TEST(TeacherTest, TrainsMorfessorOnATinyInputAndSegmentsEveryType) {
  const MorfessorOptions options;
  MORPHEUS_REQUIRE(check_morfessor(options).ok(), "Morfessor (apt-get install python3-morfessor)");
  const std::string dir = testing::make_temp_dir("morfessor");
  const std::vector<std::u32string> types = {U"evler",    U"evlerde",    U"ev",      U"kitaplar",
                                             U"kitap",    U"kitaplarda", U"ağaçlar", U"ağaç",
                                             U"evlerden", U"kitaplardan"};
  const std::vector<uint64_t> counts = {5, 3, 9, 4, 6, 2, 1, 3, 2, 1};
  StatusOr<TeacherTable> table = train_morfessor(options, types, counts, dir);
  ASSERT_TRUE(table.ok()) << table.status().to_string() << " " << table.status().hint();
  for (const std::u32string& t : types) {
    ASSERT_EQ(table->count(t), 1u) << utf8::encode(t);
    for (uint32_t cut : table->at(t)) {
      EXPECT_GT(cut, 0u);
      EXPECT_LT(cut, t.size());
    }
  }
  // Seeded: a second training on the same counts gives the same segmentation.
  const std::string again = testing::make_temp_dir("morfessor_again");
  StatusOr<TeacherTable> table2 = train_morfessor(options, types, counts, again);
  ASSERT_TRUE(table2.ok());
  EXPECT_EQ(*table2, *table);
  StatusOr<TeacherTable> unseen = segment_with_morfessor(
      options, path_join(dir, "morfessor_model.bin"), {U"evlerimiz", U"ağaçta"}, dir);
  ASSERT_TRUE(unseen.ok()) << unseen.status().to_string();
  EXPECT_EQ(unseen->size(), 2u);
}

}  // namespace
// Semi-supervised Morfessor (-A): the annotated words come back segmented as annotated, even
// where the corpus alone would not cut them so.
TEST(TeacherTest, SemiSupervisedMorfessorFollowsTheAnnotations) {
  MorfessorOptions options;
  MORPHEUS_REQUIRE(check_morfessor(options).ok(), "Morfessor (apt-get install python3-morfessor)");
  const std::string dir = testing::make_temp_dir("morfessor_semi");
  const std::vector<std::u32string> types = {U"evler", U"evlerde", U"ev",      U"kitaplar",
                                             U"kitap", U"okulda",  U"okullar", U"kitaplardan"};
  const std::vector<uint64_t> counts = {5, 3, 9, 4, 6, 2, 2, 1};
  options.annotations = path_join(dir, "annotations.txt");
  ASSERT_TRUE(
      write_file_atomic(options.annotations, "kitaplardan kitap lar dan\nokulda okul da\n").ok());
  options.annotation_weight = 10.0;
  StatusOr<TeacherTable> table = train_morfessor(options, types, counts, dir);
  ASSERT_TRUE(table.ok()) << table.status().to_string() << " " << table.status().hint();
  EXPECT_EQ(table->at(U"kitaplardan"), (Cuts{5, 8}));
  EXPECT_EQ(table->at(U"okulda"), (Cuts{4}));
}

}  // namespace morpheus::train
