// SPDX-License-Identifier: MIT
// The study report: summary statistics, Student t quantiles, paired differences, and a report
// written from a study directory.
#include "lm/study_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::lm {
namespace {

using nlohmann::json;

TEST(StudyReportTest, SummaryIsMeanSampleSdAndRange) {
  const Summary s = summarize({1.0, 2.0, 4.0});
  EXPECT_EQ(s.n, 3);
  EXPECT_DOUBLE_EQ(s.mean, 7.0 / 3);
  EXPECT_NEAR(s.sd, std::sqrt((16.0 / 9 + 1.0 / 9 + 25.0 / 9) / 2), 1e-12);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 4.0);
  EXPECT_EQ(summarize({5.0}).sd, 0.0);
}

TEST(StudyReportTest, TQuantilesMatchTheTableAndApproachTheNormal) {
  EXPECT_NEAR(t_quantile_975(1), 12.706, 1e-3);
  EXPECT_NEAR(t_quantile_975(4), 2.776, 1e-3);
  EXPECT_NEAR(t_quantile_975(40), 2.021, 1e-3);
  EXPECT_NEAR(t_quantile_975(120), 1.980, 1e-3);
  EXPECT_NEAR(t_quantile_975(100000), 1.960, 1e-3);
}

TEST(StudyReportTest, PairedDifferenceUsesCommonSeedsOnly) {
  // Seeds 1–3 in both; seed 9 only in a. Differences 0.10, 0.12, 0.11.
  const PairedDifference d =
      paired_difference({1, 2, 3, 9}, {1.10, 1.22, 1.31, 5.0}, {3, 2, 1}, {1.20, 1.10, 1.00});
  EXPECT_EQ(d.n, 3);
  EXPECT_NEAR(d.mean, 0.11, 1e-12);
  EXPECT_NEAR(d.half_width, 4.303 * 0.01 / std::sqrt(3.0), 1e-6);
  EXPECT_TRUE(d.resolved());
  const PairedDifference noisy = paired_difference({1, 2}, {1.0, 1.2}, {1, 2}, {1.1, 1.0});
  EXPECT_FALSE(noisy.resolved());
  EXPECT_FALSE(paired_difference({1}, {1.0}, {1}, {2.0}).resolved());
}

void write_json(const std::string& path, const json& j) {
  ASSERT_TRUE(make_dirs(path.substr(0, path.rfind('/'))).ok());
  ASSERT_TRUE(write_file_atomic(path, j.dump()).ok());
}

TEST(StudyReportTest, WritesTheTableTheExclusionsAndTheFigure) {
  const std::string dir = testing::make_temp_dir("study");
  write_json(
      dir + "/study.json",
      {{"title", "T"}, {"reference", "ref"}, {"setup", {"setup line"}}, {"notes", {"a note"}}});
  const double bpc[2][3] = {{1.50, 1.52, 1.49}, {1.60, 1.63, 1.61}};
  const char* names[2] = {"ref", "other"};
  for (int s = 0; s < 2; ++s) {
    const std::string sys = dir + "/systems/" + names[s];
    write_json(sys + "/system.json", {{"name", names[s]},
                                      {"role", "primary"},
                                      {"vocab_size", 8192},
                                      {"order", s},
                                      {"tokenizer", "x"}});
    write_json(sys + "/gate.json", {{"reversible", true}, {"failed_lines", 0}});
    for (int seed = 1; seed <= 3; ++seed) {
      const std::string run = sys + "/seed-" + std::to_string(seed);
      write_json(run + "/result.json", {{"valid_bpc", bpc[s][seed - 1]},
                                        {"width", 128},
                                        {"parameters", 1000000},
                                        {"valid_tokens_per_char", 0.25},
                                        {"train_tokens_per_s", 5000},
                                        {"peak_memory_mb", 300}});
      ASSERT_TRUE(write_file_atomic(run + "/metrics.jsonl",
                                    "{\"step\":10,\"loss\":3}\n{\"step\":10,\"valid_bpc\":2.0}\n"
                                    "{\"step\":20,\"valid_bpc\":" +
                                        std::to_string(bpc[s][seed - 1]) + "}\n")
                      .ok());
      write_json(run + "/generate-b1.json", {{"tokens_per_s", 100.0}});
    }
  }
  write_json(dir + "/systems/lossy/system.json",
             {{"name", "lossy"}, {"role", "primary"}, {"order", 9}, {"tokenizer", "y"}});
  write_json(dir + "/systems/lossy/gate.json", {{"reversible", false},
                                                {"failed_lines", 278},
                                                {"first_failed_line", 4},
                                                {"first_failure", "decoded text differs"}});
  ASSERT_TRUE(write_study_report(dir).ok());
  auto md = read_file(dir + "/report.md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("| ref | primary | 8,192 | yes | 0.250 | 128 | 1,000,000 | 3 | 1.5033 ± "),
            std::string::npos)
      << *md;
  EXPECT_NE(md->find("| other |"), std::string::npos);
  EXPECT_NE(md->find("+0.1100 ± "), std::string::npos);             // paired difference to ref
  EXPECT_NE(md->find("| yes | 5,000 | 400 |"), std::string::npos);  // 100 tokens/s ÷ 0.25
  EXPECT_NE(md->find("lossy (y): not reversible (278 lines); first at line 4"), std::string::npos);
  EXPECT_NE(md->find("setup line"), std::string::npos);
  EXPECT_NE(md->find("a note"), std::string::npos);
  EXPECT_TRUE(file_exists(dir + "/bpc_vs_step.png"));
}

}  // namespace
}  // namespace morpheus::lm
