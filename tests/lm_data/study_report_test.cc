// SPDX-License-Identifier: MIT
// The study report: summary statistics, Student t quantiles, paired differences, and a report
// written from a study directory.
#include "lm_data/study_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/plot.h"
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

// One finished run: result.json, a two-point curve, eval_ood.json (NaN bpc: none).
void write_run(const std::string& run, double bpc, double ood, double upper, double other) {
  write_json(run + "/result.json", {{"valid_bpc", bpc},
                                    {"width", 128},
                                    {"parameters", 1000000},
                                    {"valid_tokens_per_char", 0.25},
                                    {"train_tokens_per_s", 5000},
                                    {"peak_memory_mb", 300}});
  ASSERT_TRUE(write_file_atomic(run + "/metrics.jsonl",
                                "{\"step\":10,\"loss\":3}\n{\"step\":10,\"valid_bpc\":2.0}\n"
                                "{\"step\":20,\"valid_bpc\":" +
                                    std::to_string(bpc) + "}\n")
                  .ok());
  if (std::isnan(ood)) return;
  write_json(
      run + "/eval_ood.json",
      {{"bpc", ood}, {"slices", {{"all_upper", {{"bpc", upper}}}, {"other", {{"bpc", other}}}}}});
}

// Per scale and system, per seed: in-distribution BPC, OOD BPC, all-upper slice, other slice.
struct SeedNumbers {
  int seed;
  double bpc, ood, upper, other;
};

// A study of two scales (small: seeds 1–3, medium: seeds 1–2) and four systems: "ref" (the
// reference), "other" (seed 2 of small missing), "chars" (secondary: small only) and "lossy"
// (not reversible, no runs).
std::string make_study() {
  const std::string dir = testing::make_temp_dir("study");
  const json info = {
      {"parameter_budget", 1000000}, {"context", 128}, {"steps", 600}, {"tokens_per_step", 2048}};
  write_json(dir + "/study.json", {{"title", "T"},
                                   {"reference", "ref"},
                                   {"setup", {"setup line"}},
                                   {"notes", {"a note"}},
                                   {"attribution", {"attribution line"}},
                                   {"scales",
                                    {{{"name", "small"},
                                      {"config", "configs/lm_small.json"},
                                      {"info", info},
                                      {"seeds", {1, 2, 3}}},
                                     {{"name", "medium"},
                                      {"config", "configs/lm_medium.json"},
                                      {"info", info},
                                      {"seeds", {1, 2}}}}}});
  const std::map<std::string, std::vector<SeedNumbers>> small = {
      {"ref", {{1, 1.50, 2.00, 3.0, 1.90}, {2, 1.52, 2.04, 3.2, 1.94}, {3, 1.49, 2.02, 3.1, 1.92}}},
      {"other", {{1, 1.60, 2.30, 2.5, 2.20}, {3, 1.61, 2.31, 2.7, 2.23}}}};
  const std::map<std::string, std::vector<SeedNumbers>> medium = {
      {"ref", {{1, 1.30, 1.80, 2.8, 1.70}, {2, 1.34, 1.82, 2.9, 1.72}}},
      {"other", {{1, 1.40, 1.90, 2.6, 1.80}, {2, 1.45, 1.95, 2.65, 1.85}}}};
  const char* names[2] = {"ref", "other"};
  const char* groups[2] = {"morpheus", "control"};
  for (int s = 0; s < 2; ++s) {
    const std::string sys = dir + "/systems/" + names[s];
    write_json(sys + "/system.json", {{"name", names[s]},
                                      {"group", groups[s]},
                                      {"vocab_size", 8192},
                                      {"order", s},
                                      {"tokenizer", "x"}});
    write_json(sys + "/gate.json", {{"reversible", true}, {"failed_lines", 0}});
    for (const auto& [scale, numbers] : {std::pair{"small", &small}, {"medium", &medium}}) {
      for (const SeedNumbers& n : numbers->at(names[s])) {
        write_run(sys + "/" + scale + "/seed-" + std::to_string(n.seed), n.bpc, n.ood, n.upper,
                  n.other);
      }
    }
  }
  write_json(dir + "/systems/chars/system.json", {{"name", "chars"},
                                                  {"group", "secondary"},
                                                  {"vocab_size", 300},
                                                  {"order", 2},
                                                  {"tokenizer", "z"}});
  write_json(dir + "/systems/chars/gate.json", {{"reversible", true}, {"failed_lines", 0}});
  for (int seed = 1; seed <= 3; ++seed) {
    write_run(dir + "/systems/chars/small/seed-" + std::to_string(seed), 1.7, 2.4, 2.4, 2.4);
  }
  write_json(dir + "/systems/ref/small/seed-1/generate-b1.json", {{"tokens_per_s", 100.0}});
  write_json(dir + "/systems/ref/small/seed-1/generate-b32.json", {{"tokens_per_s", 3200.0}});
  write_json(dir + "/systems/lossy/system.json",
             {{"name", "lossy"}, {"group", "off-the-shelf"}, {"order", 9}, {"tokenizer", "y"}});
  write_json(dir + "/systems/lossy/gate.json", {{"reversible", false},
                                                {"failed_lines", 278},
                                                {"first_failed_line", 4},
                                                {"first_failure", "decoded text differs"}});
  return dir;
}

// The row of `system` at scale `scale` of report.json.
json report_row(const json& report, size_t scale, const std::string& system) {
  for (const json& row : report["scales"][scale]["rows"]) {
    if (row["system"] == system) return row;
  }
  ADD_FAILURE() << "no row " << system;
  return nullptr;
}

// A paired difference of two seeds: its mean and 95 % half-width, t(1) = 12.706.
void expect_delta(const json& d, double d1, double d2) {
  ASSERT_TRUE(d.is_object()) << d;
  const double mean = (d1 + d2) / 2, sd = std::fabs(d1 - d2) / std::sqrt(2.0);
  const double half = 12.706 * sd / std::sqrt(2.0);
  EXPECT_EQ(d["n"], 2);
  EXPECT_NEAR(d["mean"].get<double>(), mean, 1e-9);
  EXPECT_NEAR(d["half_width"].get<double>(), half, 1e-9);
  EXPECT_NEAR(d["low"].get<double>(), mean - half, 1e-9);
  EXPECT_NEAR(d["high"].get<double>(), mean + half, 1e-9);
  EXPECT_EQ(d["resolved"].get<bool>(), mean - half > 0 || mean + half < 0);
}

TEST(StudyReportTest, ReportJsonHoldsTheHandComputedStatisticsOfEachScale) {
  const std::string dir = make_study();
  ASSERT_TRUE(write_study_report(dir).ok());
  auto report = load_json_file(dir + "/report.json");
  ASSERT_TRUE(report.ok());
  // small, ref: 1.50, 1.52, 1.49.
  const json ref = report_row(*report, 0, "ref");
  EXPECT_EQ(ref["valid_bpc"]["n"], 3);
  EXPECT_NEAR(ref["valid_bpc"]["mean"].get<double>(), 4.51 / 3, 1e-12);
  EXPECT_NEAR(ref["valid_bpc"]["sd"].get<double>(), std::sqrt(0.00046666666666667 / 2), 1e-9);
  EXPECT_DOUBLE_EQ(ref["valid_bpc"]["min"].get<double>(), 1.49);
  EXPECT_DOUBLE_EQ(ref["valid_bpc"]["max"].get<double>(), 1.52);
  EXPECT_TRUE(ref["reference"].get<bool>());
  EXPECT_TRUE(ref["valid_bpc_delta"].is_null());
  // small, other: seeds 1 and 3 (2 missing), paired with ref's seeds 1 and 3.
  const json other = report_row(*report, 0, "other");
  EXPECT_EQ(other["seeds"], json({1, 3}));
  EXPECT_EQ(other["missing_seeds"], json({2}));
  EXPECT_NEAR(other["valid_bpc"]["mean"].get<double>(), 1.605, 1e-12);
  EXPECT_NEAR(other["valid_bpc"]["sd"].get<double>(), 0.01 / std::sqrt(2.0), 1e-12);
  expect_delta(other["valid_bpc_delta"], 0.10, 0.12);  // ± 0.12706: not resolved
  EXPECT_FALSE(other["valid_bpc_delta"]["resolved"].get<bool>());
  expect_delta(other["ood_bpc_delta"], 0.30, 0.29);  // ± 0.06353: resolved
  EXPECT_TRUE(other["ood_bpc_delta"]["resolved"].get<bool>());
  expect_delta(other["ood_all_upper_bpc_delta"], -0.5, -0.4);
  expect_delta(other["ood_other_bpc_delta"], 0.30, 0.31);
  EXPECT_NEAR(other["ood_bpc"]["mean"].get<double>(), 2.305, 1e-12);
  EXPECT_NEAR(other["ood_all_upper_bpc"]["mean"].get<double>(), 2.6, 1e-12);
  EXPECT_NEAR(other["ood_other_bpc"]["mean"].get<double>(), 2.215, 1e-12);
  EXPECT_DOUBLE_EQ(other["valid_tokens_per_char"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(other["train_tokens_per_s"].get<double>(), 5000);
  EXPECT_DOUBLE_EQ(other["peak_memory_mb"].get<double>(), 300);
  // medium, other against ref over seeds 1 and 2.
  const json medium = report_row(*report, 1, "other");
  expect_delta(medium["valid_bpc_delta"], 0.10, 0.11);  // ± 0.06353: resolved
  EXPECT_TRUE(medium["valid_bpc_delta"]["resolved"].get<bool>());
  expect_delta(medium["ood_bpc_delta"], 0.10, 0.13);  // ± 0.19059: not resolved
  expect_delta(medium["ood_all_upper_bpc_delta"], -0.2, -0.25);
  expect_delta(medium["ood_other_bpc_delta"], 0.10, 0.13);
  // lossy: no numbers, excluded.
  const json lossy = report_row(*report, 1, "lossy");
  EXPECT_TRUE(lossy["valid_bpc"].is_null());
  EXPECT_TRUE(lossy["valid_bpc_delta"].is_null());
  ASSERT_EQ((*report)["excluded"].size(), 1u);
  EXPECT_EQ((*report)["excluded"][0]["system"], "lossy");
  // Generation: small, seed 1: tokens/s ÷ 0.25 tokens per character.
  const json& gen = (*report)["generation"];
  EXPECT_EQ(gen["scale"], "small");
  EXPECT_EQ(gen["seed"], 1);
  ASSERT_EQ(gen["rows"].size(), 1u);
  EXPECT_DOUBLE_EQ(gen["rows"][0]["b1"]["chars_per_s"].get<double>(), 400);
  EXPECT_DOUBLE_EQ(gen["rows"][0]["b32"]["chars_per_s"].get<double>(), 12800);
}

TEST(StudyReportTest, ReportMdTablesShowTheStatisticsPerScale) {
  const std::string dir = make_study();
  ASSERT_TRUE(write_study_report(dir).ok());
  const std::string md = read_file(dir + "/report.md").value();
  const size_t small = md.find("## Scale small (`configs/lm_small.json`)");
  const size_t medium = md.find("## Scale medium (`configs/lm_medium.json`)");
  ASSERT_NE(small, std::string::npos) << md;
  ASSERT_NE(medium, std::string::npos) << md;
  EXPECT_LT(small, medium);
  auto has = [&md](const std::string& s, size_t from) {
    return md.find(s, from) != std::string::npos;
  };
  EXPECT_TRUE(
      has("| ref | morpheus | 8,192 | yes | 3 | 1.5033 ± 0.0153 | 1.4900–1.5200 | "
          "reference | – | 2.0200 ± 0.0200 | 3.1000 | 1.9200 | 0.250 | 5,000 | 300 |",
          small))
      << md;
  EXPECT_TRUE(
      has("| other | control | 8,192 | yes | 2 of 3 | 1.6050 ± 0.0071 | 1.6000–1.6100 | "
          "+0.1100 ± 0.1271 | no | 2.3050 ± 0.0071 | 2.6000 | 2.2150 |",
          small))
      << md;
  EXPECT_TRUE(
      has("| other | 2 | +0.2950 ± 0.0635 | yes | -0.4500 ± 0.6353 | no | "
          "+0.3050 ± 0.0635 | yes |",
          small))
      << md;
  EXPECT_TRUE(
      has("| other | control | 8,192 | yes | 2 | 1.4250 ± 0.0354 | 1.4000–1.4500 | "
          "+0.1050 ± 0.0635 | yes |",
          medium))
      << md;
  EXPECT_TRUE(has("| lossy | off-the-shelf | – | not reversible (278 lines) | – | – |", medium));
  EXPECT_TRUE(has("| chars | secondary | 300 | yes | not run | – |", medium));
  EXPECT_TRUE(has("| ref | 100 | 400 | 3,200 | 12,800 |", 0));
  EXPECT_TRUE(has("setup line", 0));
  EXPECT_LT(md.find("a note"), md.find("attribution line"));
}

TEST(StudyReportTest, ReportMdListsMissingSeedsAndExcludedSystems) {
  const std::string dir = make_study();
  ASSERT_TRUE(write_study_report(dir).ok());
  const std::string md = read_file(dir + "/report.md").value();
  const size_t medium = md.find("## Scale medium");
  const size_t missing = md.find("Missing runs, not in the statistics: other (seed 2).");
  EXPECT_LT(missing, medium) << md;  // in the small scale's section only
  EXPECT_EQ(md.find("Missing runs", medium), std::string::npos);  // chars did not run there
  EXPECT_NE(md.find("- lossy (y): not reversible (278 lines); first at line 4: decoded text "
                    "differs"),
            std::string::npos);
}

// The height of a PNG file (IHDR, big-endian at byte 20).
int png_height(const std::string& path) {
  const std::string png = read_file(path).value();
  int h = 0;
  for (int i = 20; i < 24; ++i)
    h = (h << 8) | static_cast<unsigned char>(png[static_cast<size_t>(i)]);
  return h;
}

TEST(StudyReportTest, FigureHasOnePanelPerScale) {
  const std::string dir = make_study();
  ASSERT_TRUE(write_study_report(dir).ok());
  const int panel = line_chart("t", "step", "BPC", {}).height();
  EXPECT_EQ(png_height(dir + "/bpc_vs_step.png"), 2 * panel);
  EXPECT_NE(read_file(dir + "/report.md").value().find("(bpc_vs_step.png)"), std::string::npos);
}

TEST(StudyReportTest, StudyWithoutScalesIsAnError) {
  const std::string dir = testing::make_temp_dir("study");
  write_json(dir + "/study.json", {{"title", "T"}, {"reference", "ref"}});
  const Status s = write_study_report(dir);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("\"scales\""), std::string::npos);
}

}  // namespace
}  // namespace morpheus::lm
