// SPDX-License-Identifier: MIT
#include "tokenizer/segmenter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_support.h"
#include "tokenizer/segmentation_file.h"

namespace morpheus::tokenizer {
namespace {

TEST(SegmenterTest, FileSystemSegmentsABatchThroughTheFactory) {
  const std::string path = testing::make_temp_dir("segmenter_file") + "/s.tsv";
  ASSERT_TRUE(write_segmentation_file(path, {{"evlerde", {"ev", "ler", "de"}}}).ok());
  SegmenterSpec spec;
  spec.name = "file";
  spec.path = path;
  StatusOr<std::unique_ptr<Segmenter>> seg = create_segmenter(spec);
  ASSERT_TRUE(seg.ok()) << seg.status().to_string();
  const StatusOr<Segmentation> pieces = (*seg)->segment({"evlerde", "kitap"});
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(*pieces, (Segmentation{{"ev", "ler", "de"}, {"kitap"}}));
  EXPECT_EQ((*seg)->segment_word("evlerde").value(), (std::vector<std::string>{"ev", "ler", "de"}));
}

TEST(SegmenterTest, UnknownNameIsNotFoundNamingTheRegisteredOnes) {
  const StatusOr<std::unique_ptr<Segmenter>> seg = create_segmenter({"no-such", "", {}});
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kNotFound);
  EXPECT_NE(seg.status().hint().find("cbpe, file, hybrid"), std::string::npos);
}

class Whole : public WordSegmenter {
 public:
  std::vector<std::string> cut(std::string_view word) const override { return {std::string(word)}; }
  std::string name() const override { return "whole"; }
};

TEST(SegmenterTest, RegisteredSystemsAreCreatedByNameAndSendReceiveDefaultsToSegment) {
  register_segmenter("test-whole", [](const SegmenterSpec& spec) {
    EXPECT_EQ(spec.options.value("k", 0), 7);
    return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<Whole>());
  });
  StatusOr<std::unique_ptr<Segmenter>> seg = create_segmenter({"test-whole", "", {{"k", 7}}});
  ASSERT_TRUE(seg.ok());
  ASSERT_TRUE((*seg)->send({"ab", "c"}).ok());
  EXPECT_EQ((*seg)->receive().value(), (Segmentation{{"ab"}, {"c"}}));
}

}  // namespace
}  // namespace morpheus::tokenizer
