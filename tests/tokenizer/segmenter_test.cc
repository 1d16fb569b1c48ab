// SPDX-License-Identifier: MIT
#include "tokenizer/segmenter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace morpheus::tokenizer {
namespace {

class Whole : public WordSegmenter {
 public:
  std::vector<std::string> cut(std::string_view word) const override { return {std::string(word)}; }
  std::string name() const override { return "whole"; }
};

// Cuts a word after every second character: "evlerde" -> "ev" "le" "rd" "e".
class Pairs : public WordSegmenter {
 public:
  std::vector<std::string> cut(std::string_view word) const override {
    std::vector<std::string> pieces;
    for (size_t i = 0; i < word.size(); i += 2) pieces.emplace_back(word.substr(i, 2));
    return pieces;
  }
  std::string name() const override { return "pairs"; }
};

TEST(SegmenterTest, WordSegmenterAnswersABatchAndOneWordAlike) {
  const Pairs pairs;
  const StatusOr<Segmentation> pieces = pairs.segment({"evlerde", "ok"});
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(*pieces, (Segmentation{{"ev", "le", "rd", "e"}, {"ok"}}));
  EXPECT_EQ(pairs.segment_word("evlerde").value(), pieces->front());
}

TEST(SegmenterTest, UnknownNameIsNotFoundNamingTheRegisteredOnes) {
  register_segmenter("test-pairs", [](const SegmenterSpec&) {
    return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<Pairs>());
  });
  const StatusOr<std::unique_ptr<Segmenter>> seg = create_segmenter({"no-such", "", {}});
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kNotFound);
  EXPECT_NE(seg.status().hint().find("test-pairs"), std::string::npos) << seg.status().hint();
}

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
