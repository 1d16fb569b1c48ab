// SPDX-License-Identifier: MIT
// The "lm" config section and the reference's parameter equalization.
#include "lm_data/lm_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config_section.h"
#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::lm {
namespace {

TEST(LmConfigTest, DefaultsAreTheReferenceBudget) {
  const LmConfig c;
  // 64,000·512 + 12·8·512² + 512·512.
  EXPECT_DOUBLE_EQ(parameter_budget(c), 58195968.0);
}

TEST(LmConfigTest, EqualizationReproducesTheReferenceWidths) {
  const LmConfig c;  // 8 layers, 8 heads, context 512, d 512 at 64,000
  EXPECT_EQ(model_width(c, 64000), 512);
  EXPECT_EQ(model_width(c, 50000), 560);
  EXPECT_EQ(model_width(c, 32768), 624);
}

TEST(LmConfigTest, EqualizedWidthKeepsTheBudgetWithinRounding) {
  LmConfig c;
  c.layers = 4;
  c.heads = 4;
  c.d_model = 128;
  c.equalize_vocab = 8192;
  c.context = 128;
  for (int64_t v : {300, 4096, 8192, 16384, 50000}) {
    const auto d = static_cast<double>(model_width(c, v));
    const double params = static_cast<double>(v) * d + 48.0 * d * d + 128.0 * d;
    // Rounding moves d by at most heads/2 = 2: params change by at most (V + T)·2 + 48·(4d + 4).
    const double step = static_cast<double>(v + 128) * 2 + 48.0 * (4 * d + 4);
    EXPECT_LE(std::abs(params - parameter_budget(c)), step) << "vocab " << v;
    EXPECT_EQ(model_width(c, v) % c.heads, 0);
  }
  EXPECT_EQ(model_width(c, 8192), 128);
}

TEST(LmConfigTest, EqualizationOffKeepsTheWidth) {
  LmConfig c;
  c.equalize_vocab = 0;
  EXPECT_EQ(model_width(c, 300), 512);
  EXPECT_EQ(model_width(c, 100000), 512);
}

TEST(LmConfigTest, FilesAndSetsResolveAndUnknownKeysFail) {
  const std::string dir = testing::make_temp_dir("lmcfg");
  ASSERT_TRUE(write_file_atomic(dir + "/a.json", R"({"lm": {"layers": 2, "steps": 7}})").ok());
  auto c = load_section<LmConfig>({dir + "/a.json"}, {"lm.steps=9"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->layers, 2);
  EXPECT_EQ(c->steps, 9);
  EXPECT_FALSE(load_section<LmConfig>({}, {"lm.bogus=1"}).ok());
  EXPECT_FALSE(load_section<LmConfig>({}, {"model.char_dim=8"}).ok());
  const auto bad = load_section<LmConfig>({}, {"lm.heads=3"});  // 512 is not a multiple of 3
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("d_model"), std::string::npos);
}

TEST(LmConfigTest, ShippedConfigsResolve) {
  for (const char* name : {"lm_small.json", "lm_paper.json"}) {
    const std::string path = testing::source_dir() + "/configs/" + name;
    auto c = load_section<LmConfig>({path}, {});
    ASSERT_TRUE(c.ok()) << name << ": " << c.status().message();
  }
  auto paper = load_section<LmConfig>({testing::source_dir() + "/configs/lm_paper.json"}, {});
  ASSERT_TRUE(paper.ok());
  EXPECT_DOUBLE_EQ(parameter_budget(*paper), 58195968.0);
  EXPECT_EQ(paper->steps, 10000);
  EXPECT_EQ(paper->batch_size * paper->context, 32 * 512);
}

}  // namespace
}  // namespace morpheus::lm
