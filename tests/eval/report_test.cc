// SPDX-License-Identifier: MIT
// Report writer: markdown tables (n/a cells, n column, reference column), JSON, figure files.
#include "eval/report.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "core/json_config.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

Report sample_report() {
  Report r;
  r.title = "Evaluation";
  r.notes = {"speed is cold and warm"};
  ReportTable t;
  t.id = "morphscore_ud";
  t.title = "MorphScore";
  t.columns = {"macro_f1", "mean_R"};
  t.published_label = "paper §5.1";
  t.rows.push_back({"morpheus", {0.61234, 0.7}, 25990, 0.6081, ""});
  t.rows.push_back({"bpe", {std::nullopt, std::nullopt}, std::nullopt, std::nullopt, "no output"});
  r.tables.push_back(t);
  return r;
}

TEST(ReportTest, FormatsValues) {
  EXPECT_EQ(format_value(0.123456, 4), "0.1235");
  EXPECT_EQ(format_value(1234567.8, 4), "1,234,568");
  EXPECT_EQ(format_value(std::nullopt, 4), "n/a");
}

TEST(ReportTest, MarkdownHasOneRowPerSystemWithNAndReference) {
  const std::string md = render_markdown(sample_report());
  EXPECT_NE(md.find("| system | macro_f1 | mean_R | n | paper §5.1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| morpheus | 0.6123 | 0.7000 | 25,990 | 0.6081 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| bpe * | n/a | n/a | n/a | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("* bpe: no output\n"), std::string::npos) << md;
  EXPECT_NE(md.find("figures/morphscore_ud.png"), std::string::npos);
}

TEST(ReportTest, WritesMarkdownJsonAndFigures) {
  const std::string dir = testing::make_temp_dir("report");
  ASSERT_TRUE(write_report(sample_report(), dir).ok());
  EXPECT_TRUE(file_exists(path_join(dir, "report.md")));
  EXPECT_TRUE(file_exists(path_join(dir, "figures/morphscore_ud.png")));
  auto j = load_json_file(path_join(dir, "report.json"));
  ASSERT_TRUE(j.ok()) << j.status().to_string();
  const auto& row = (*j)["tables"][0]["rows"][0];
  EXPECT_EQ(row["system"], "morpheus");
  EXPECT_EQ(row["n"], 25990);
  EXPECT_DOUBLE_EQ(row["values"]["macro_f1"].get<double>(), 0.61234);
  EXPECT_TRUE((*j)["tables"][0]["rows"][1]["values"]["mean_R"].is_null());
}

}  // namespace
}  // namespace morpheus::eval
