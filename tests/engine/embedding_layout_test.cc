// SPDX-License-Identifier: MIT
// EmbeddingLayout (engine/embedding_layout.h): the parts of each pooling, the "embedding" entry
// of morpheus.json read back and checked against the model, slicing and finishing rows.
#include "engine/embedding_layout.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace morpheus::engine {
namespace {

using nlohmann::json;

TEST(EmbeddingLayoutTest, RootInflectionHasRootThenInflectionColumns) {
  const EmbeddingLayout layout(EmbeddingPooling::kRootInflection, 64);
  ASSERT_EQ(layout.parts().size(), 2u);
  EXPECT_EQ(layout.parts()[0].name, "root");
  EXPECT_EQ(layout.parts()[0].offset, 0u);
  EXPECT_EQ(layout.parts()[0].dim, 64u);
  EXPECT_EQ(layout.parts()[1].name, "inflection");
  EXPECT_EQ(layout.parts()[1].offset, 64u);
  EXPECT_EQ(layout.parts()[1].dim, 128u);
  EXPECT_EQ(layout.dim(), 192u);
  EXPECT_EQ(layout.part_names(), "full, root, inflection");
  const StatusOr<EmbeddingPart> full = layout.part("full");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->dim, 192u);
}

TEST(EmbeddingLayoutTest, DirectoryWithoutEntryHasOneFullPart) {
  const StatusOr<EmbeddingLayout> layout = EmbeddingLayout::from_config(json::object(), 32);
  ASSERT_TRUE(layout.ok()) << layout.status().to_string();
  EXPECT_EQ(layout->pooling(), EmbeddingPooling::kMean);
  ASSERT_EQ(layout->parts().size(), 1u);
  EXPECT_EQ(layout->parts()[0].name, "full");
  EXPECT_EQ(layout->dim(), 32u);
  EXPECT_EQ(layout->part_names(), "full");
  EXPECT_FALSE(layout->part("root").ok());
}

TEST(EmbeddingLayoutTest, EntryReadsBackAndMustMatchTheModel) {
  const EmbeddingLayout layout(EmbeddingPooling::kRootInflection, 64, 0.3);
  const json config = {{"embedding", layout.to_json()}};
  const StatusOr<EmbeddingLayout> back =
      EmbeddingLayout::from_config(json::parse(config.dump()), 64);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->to_json(), layout.to_json());
  EXPECT_DOUBLE_EQ(back->inflection_weight(), 0.3);
  const StatusOr<EmbeddingLayout> other_width = EmbeddingLayout::from_config(config, 32);
  EXPECT_EQ(other_width.status().code(), StatusCode::kDataLoss);
  json bad = config;
  bad["embedding"]["pooling"] = "max";
  EXPECT_EQ(EmbeddingLayout::from_config(bad, 64).status().code(), StatusCode::kDataLoss);
  EXPECT_FALSE(parse_embedding_pooling("max").ok());
}

TEST(EmbeddingLayoutTest, TakePartCopiesItsColumns) {
  const EmbeddingLayout layout(EmbeddingPooling::kRootInflection, 2);
  const std::vector<float> rows = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // 2 rows of 6
  const StatusOr<EmbeddingPart> inflection = layout.part("inflection");
  ASSERT_TRUE(inflection.ok());
  EXPECT_EQ(take_part(rows, 2, 6, *inflection), (std::vector<float>{3, 4, 5, 6, 9, 10, 11, 12}));
}

TEST(EmbeddingLayoutTest, FinishScalesEachBlockAndKeepsZeroRows) {
  const EmbeddingLayout layout(EmbeddingPooling::kRootInflection, 2, 0.5);
  std::vector<float> rows = {3, 4, 0, 2, 6, 8, 0, 0, 0, 0, 0, 0};
  layout.finish(rows.data(), 2);
  const std::vector<float> want = {0.6f, 0.8f, 0, 0.5f, 0.3f, 0.4f, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_NEAR(rows[i], want[i], 1e-6) << i;
  std::vector<float> mean = {3, 4};
  EmbeddingLayout(EmbeddingPooling::kMean, 2).finish(mean.data(), 1);
  EXPECT_EQ(mean, (std::vector<float>{3, 4}));
}

}  // namespace
}  // namespace morpheus::engine
