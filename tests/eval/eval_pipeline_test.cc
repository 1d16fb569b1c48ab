// SPDX-License-Identifier: MIT
// The eval pipeline end to end on tiny gold files with a test-only awk segmenter, a `cat` codec,
// a failing system and a ready segmentation file; plus config and command-template validation.
#include "eval/eval_pipeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/file_util.h"
#include "core/json_config.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

TEST(EvalConfigTest, UnknownSystemKeyIsAnError) {
  auto s = parse_system(nlohmann::json{{"name", "x"}, {"segmnet", "cmd"}}, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("systems[2]: unknown key 'segmnet'"), std::string::npos);
}

TEST(EvalConfigTest, EncodeWithoutDecodeIsAnError) {
  EXPECT_FALSE(parse_system(nlohmann::json{{"name", "x"}, {"encode", "cat"}}, 0).ok());
  EXPECT_FALSE(parse_system(nlohmann::json{{"segment", "cat"}}, 0).ok());
}

TEST(EvalConfigTest, UnknownTopLevelKeyIsRejectedByResolution) {
  auto c = resolve_config(eval_config_defaults(), {}, {"gold.bogus=1"});
  EXPECT_FALSE(c.ok());
  auto ok = resolve_config(eval_config_defaults(), {}, {"speed.warm_runs=1"});
  EXPECT_TRUE(ok.ok());
}

TEST(ExpandCommandTest, QuotesValuesAndRejectsUnknownPlaceholders) {
  auto cmd = expand_command("seg {input} -o {output}", {{"input", "a b.txt"}, {"output", "it's"}});
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(*cmd, "seg 'a b.txt' -o 'it'\\''s'");
  auto bad = expand_command("seg {inptu}", {{"input", "x"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("{inptu}"), std::string::npos);
}

// Runs the tiny config from the source directory (its paths are relative to the repo root).
class EvalPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char buf[4096];
    ASSERT_NE(getcwd(buf, sizeof buf), nullptr);
    old_cwd_ = buf;
    ASSERT_EQ(chdir(testing::source_dir().c_str()), 0);
  }
  void TearDown() override { ASSERT_EQ(chdir(old_cwd_.c_str()), 0); }
  std::string old_cwd_;
};

const nlohmann::json* find_row(const nlohmann::json& report, const std::string& table,
                               const std::string& system) {
  for (const auto& t : report["tables"]) {
    if (t["id"] != table) continue;
    for (const auto& r : t["rows"]) {
      if (r["system"] == system) return &r;
    }
  }
  return nullptr;
}

TEST_F(EvalPipelineTest, TinyConfigProducesEveryTableWithNaRowsForFailures) {
  auto config = resolve_config(eval_config_defaults(), {"tests/data/eval/tiny_eval.json"}, {});
  ASSERT_TRUE(config.ok()) << config.status().to_string();
  const std::string out = testing::make_temp_dir("eval");
  Status s = run_eval(*config, out);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto report = load_json_file(path_join(out, "report.json"));
  ASSERT_TRUE(report.ok()) << report.status().to_string();

  // MorphScore on ud_stem: evlerde → "evler de" (0, 0), kitaplar → "kitap lar" (1, 1).
  const nlohmann::json* ms = find_row(*report, "morphscore_ud", "awk-suffix");
  ASSERT_NE(ms, nullptr);
  EXPECT_DOUBLE_EQ((*ms)["values"]["macro_f1"].get<double>(), 0.5);
  EXPECT_EQ((*ms)["n"], 2);
  const nlohmann::json* broken = find_row(*report, "morphscore_ud", "broken");
  ASSERT_NE(broken, nullptr);
  EXPECT_TRUE((*broken)["values"]["macro_f1"].is_null());
  EXPECT_NE((*broken)["note"].get<std::string>().find("segment failed (exit 3)"),
            std::string::npos);
  const nlohmann::json* ready = find_row(*report, "boundary_mc2010", "ready-file");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["n"], 3);  // evlerde, kitaplar, gözlük
  // `cat` is a perfect codec.
  const nlohmann::json* rt = find_row(*report, "roundtrip", "awk-suffix");
  ASSERT_NE(rt, nullptr);
  EXPECT_DOUBLE_EQ((*rt)["values"]["sentences"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ((*rt)["values"]["words"].get<double>(), 1.0);
  const nlohmann::json* speed = find_row(*report, "speed", "awk-suffix");
  ASSERT_NE(speed, nullptr);
  EXPECT_GT((*speed)["values"]["enc_chars_s_warm"].get<double>(), 0.0);
  EXPECT_TRUE((*find_row(*report, "speed", "broken"))["values"]["enc_chars_s_cold"].is_null());
  // Three well-separated families of four forms: perfect retrieval with the query excluded,
  // and the reference's query-counted MAP below 1.
  const nlohmann::json* ret = find_row(*report, "retrieval", "awk-suffix");
  ASSERT_NE(ret, nullptr);
  EXPECT_DOUBLE_EQ((*ret)["values"]["MAP"].get<double>(), 1.0);
  EXPECT_LT((*ret)["values"]["MAP_ref"].get<double>(), 1.0);
  EXPECT_EQ((*ret)["n"], 12);
  EXPECT_TRUE(file_exists(path_join(out, "report.md")));
  EXPECT_TRUE(file_exists(path_join(out, "figures/morphscore_ud.png")));
  EXPECT_TRUE(file_exists(path_join(out, "figures/pca_awk-suffix.png")));
}

TEST_F(EvalPipelineTest, MissingGoldFileIsAnErrorNamingIt) {
  auto config = resolve_config(eval_config_defaults(), {"tests/data/eval/tiny_eval.json"},
                               {"gold.mc2010=tests/data/eval/no_such.tsv"});
  ASSERT_TRUE(config.ok());
  Status s = run_eval(*config, testing::make_temp_dir("eval"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no_such.tsv"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::eval
