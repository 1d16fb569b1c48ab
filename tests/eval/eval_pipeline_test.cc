// SPDX-License-Identifier: MIT
// The eval pipeline end to end on tiny gold files with a test-only awk segmenter, a `cat` codec,
// a failing system and a ready segmentation file; the {run_dir} artifacts; the report's notes.
#include "eval/eval_pipeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/json_config.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

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
  auto config =
      resolve_config(section_defaults<EvalConfig>(), {"tests/data/eval/tiny_eval.json"}, {});
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
  // One note points to where the tuning choices are written down.
  size_t tuning_notes = 0;
  for (const auto& note : (*report)["notes"]) {
    tuning_notes += note.get<std::string>().find("docs/results.md") != std::string::npos;
  }
  EXPECT_EQ(tuning_notes, 1u);
}

// Runs the tiny config with extra --set values; returns report.json.
nlohmann::json run_tiny(const std::vector<std::string>& sets,
                        const std::string& first_system_table = "") {
  auto config =
      resolve_config(section_defaults<EvalConfig>(), {"tests/data/eval/tiny_eval.json"}, sets);
  EXPECT_TRUE(config.ok()) << config.status().to_string();
  if (!config.ok()) return nlohmann::json();
  if (!first_system_table.empty()) (*config)["systems"][0]["table_words"] = first_system_table;
  const std::string out = testing::make_temp_dir("eval");
  Status s = run_eval(*config, out);
  EXPECT_TRUE(s.ok()) << s.to_string();
  auto report = load_json_file(path_join(out, "report.json"));
  EXPECT_TRUE(report.ok());
  return report.ok() ? *report : nlohmann::json();
}

TEST_F(EvalPipelineTest, TablesScoreTheConfiguredPartOnly) {
  // A table whose part is empty is left out of the report: n = 0.
  const auto items = [](const nlohmann::json& report, const char* table) -> size_t {
    const nlohmann::json* row = find_row(report, table, "awk-suffix");
    return row == nullptr || (*row)["n"].is_null() ? 0 : (*row)["n"].get<size_t>();
  };
  const nlohmann::json tune = run_tiny({"split=tune"}), report = run_tiny({"split=report"});
  const nlohmann::json all = run_tiny({});
  for (const char* table : {"boundary_mc2010", "boundary_penn", "boundary_ud", "morphscore_ud",
                            "lemma_retrieval", "same_inflection"}) {
    EXPECT_EQ(items(tune, table) + items(report, table), items(all, table)) << table;
    EXPECT_GT(items(all, table), 0u) << table;
  }
}

TEST_F(EvalPipelineTest, SeenAndUnseenColumnsPartitionTheWords) {
  const std::string dir = testing::make_temp_dir("seen");
  const std::string text = path_join(dir, "corpus.txt");
  ASSERT_TRUE(write_file_atomic(text, "Evlerde kitap yok.\n").ok());
  const nlohmann::json report = run_tiny({"training_text=" + text});
  const nlohmann::json* row = find_row(report, "boundary_mc2010", "awk-suffix");
  ASSERT_NE(row, nullptr);
  const nlohmann::json& v = (*row)["values"];
  EXPECT_EQ(v["n_seen"].get<double>(), 1.0);  // evlerde (seen with a capital)
  EXPECT_EQ(v["n_seen"].get<double>() + v["n_unseen"].get<double>(), (*row)["n"].get<double>());
  EXPECT_DOUBLE_EQ(v["F1_seen"].get<double>(), 2.0 / 3);  // "evler de" vs gold "ev ler de"
  // Without a training text the columns are n/a, never 0.
  const nlohmann::json without = run_tiny({});
  const nlohmann::json* plain = find_row(without, "boundary_mc2010", "awk-suffix");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE((*plain)["values"]["F1_seen"].is_null());
}

TEST_F(EvalPipelineTest, CapitalisedGoldWordsScoreAsTheirLowerCaseForms) {
  const std::string dir = testing::make_temp_dir("case");
  const std::string cased = path_join(dir, "cased.tsv"), lower = path_join(dir, "lower.tsv");
  ASSERT_TRUE(write_file_atomic(cased,
                                "word\tsegs\torig\nEvlerde\tEv ler de\tx\n"
                                "KİTAPLAR\tKİTAP LAR\tx\n")
                  .ok());
  ASSERT_TRUE(write_file_atomic(lower,
                                "word\tsegs\torig\nevlerde\tev ler de\tx\n"
                                "kitaplar\tkitap lar\tx\n")
                  .ok());
  const nlohmann::json a = run_tiny({"gold.mc2010=" + cased});
  const nlohmann::json b = run_tiny({"gold.mc2010=" + lower});
  for (const char* system : {"awk-suffix", "ready-file"}) {
    const nlohmann::json* ra = find_row(a, "boundary_mc2010", system);
    const nlohmann::json* rb = find_row(b, "boundary_mc2010", system);
    ASSERT_NE(ra, nullptr);
    ASSERT_NE(rb, nullptr);
    EXPECT_EQ((*ra)["values"], (*rb)["values"]) << system;
    EXPECT_EQ((*ra)["n"], 2) << system;
  }
}

TEST_F(EvalPipelineTest, SpeedTableReportsTheShareOfTheTextInTheSystemTable) {
  const std::string dir = testing::make_temp_dir("table");
  const std::string table = path_join(dir, "types.tsv");
  // Letter runs of sentences.txt: evlerde kitaplar var geldiler; the table holds two of four.
  ASSERT_TRUE(write_file_atomic(table, "evlerde\t3\nkitaplar\t1\nev\t9\n").ok());
  const nlohmann::json report = run_tiny({}, table);
  const nlohmann::json* row = find_row(report, "speed", "awk-suffix");
  ASSERT_NE(row, nullptr);
  EXPECT_DOUBLE_EQ((*row)["values"]["in_table"].get<double>(), 0.5);
  EXPECT_TRUE((*find_row(report, "speed", "broken"))["values"]["in_table"].is_null());
}

TEST_F(EvalPipelineTest, PaperColumnComesFromThePublishedFiguresFile) {
  const std::string dir = testing::make_temp_dir("figures");
  const std::string figures = path_join(dir, "figures.json");
  ASSERT_TRUE(
      write_file_atomic(figures, R"({"tables": {"sigmorphon": {"ours": 0.25}, "speed": {}}})")
          .ok());
  auto config = resolve_config(section_defaults<EvalConfig>(), {"tests/data/eval/tiny_eval.json"},
                               {"published_figures=" + figures});
  ASSERT_TRUE(config.ok()) << config.status().to_string();
  (*config)["systems"][0]["published"] = "ours";
  (*config)["systems"][1]["published"] = "ours";  // its n/a rows keep the paper figure
  const std::string out = testing::make_temp_dir("eval");
  Status s = run_eval(*config, out);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto report = load_json_file(path_join(out, "report.json"));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ((*find_row(*report, "sigmorphon", "awk-suffix"))["published"], 0.25);
  EXPECT_EQ((*find_row(*report, "sigmorphon", "broken"))["published"], 0.25);
  EXPECT_TRUE((*find_row(*report, "sigmorphon", "ready-file"))["published"].is_null());
  EXPECT_TRUE((*find_row(*report, "speed", "awk-suffix"))["published"].is_null());
  // The repo's file: the paper's MorphScore of Morpheus.
  auto repo =
      resolve_config(section_defaults<EvalConfig>(), {"tests/data/eval/tiny_eval.json"}, {});
  ASSERT_TRUE(repo.ok());
  (*repo)["systems"][0]["published"] = "morpheus";
  const std::string out2 = testing::make_temp_dir("eval");
  ASSERT_TRUE(run_eval(*repo, out2).ok());
  auto report2 = load_json_file(path_join(out2, "report.json"));
  ASSERT_TRUE(report2.ok());
  EXPECT_EQ((*find_row(*report2, "morphscore_ud", "awk-suffix"))["published"], 0.6081);
}

TEST_F(EvalPipelineTest, MissingPublishedFiguresFileIsAnErrorNamingIt) {
  auto config = resolve_config(section_defaults<EvalConfig>(), {"tests/data/eval/tiny_eval.json"},
                               {"published_figures=tests/data/eval/no_figures.json"});
  ASSERT_TRUE(config.ok());
  Status s = run_eval(*config, testing::make_temp_dir("eval"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("tests/data/eval/no_figures.json"), std::string::npos);
}

// A run directory with a ready segmentation file as its one artifact, and a training text.
std::string make_run_dir() {
  const std::string dir = testing::make_temp_dir("run_dir");
  EXPECT_TRUE(make_dirs(path_join(dir, "unsup/prepare")).ok());
  EXPECT_TRUE(
      write_file_atomic(path_join(dir, "unsup/prepare/corpus.txt"), "Evlerde kitap.\n").ok());
  EXPECT_TRUE(write_file_atomic(path_join(dir, "seg.tsv"), "evlerde\tev lerde\n").ok());
  return dir;
}

// The tiny config's gold with one system reading its segmentations from {run_dir}.
nlohmann::json run_dir_config() {
  auto config =
      resolve_config(section_defaults<EvalConfig>(), {"tests/data/eval/tiny_eval.json"}, {});
  EXPECT_TRUE(config.ok()) << config.status().to_string();
  if (!config.ok()) return nlohmann::json();
  (*config)["training_text"] = "{run_dir}/unsup/prepare/corpus.txt";
  (*config)["systems"] = nlohmann::json::array();
  (*config)["systems"].push_back({{"name", "from-run"},
                                  {"artifact", "{run_dir}/seg.tsv"},
                                  {"segment", "cat {run_dir}/seg.tsv"}});
  return *config;
}

TEST_F(EvalPipelineTest, SystemsReadTheirArtifactsFromTheRunDir) {
  const std::string run_dir = make_run_dir();
  nlohmann::json config = run_dir_config();
  config["run_dir"] = run_dir;
  const std::string out = testing::make_temp_dir("eval");
  Status s = run_eval(config, out);
  ASSERT_TRUE(s.ok()) << s.to_string();
  auto report = load_json_file(path_join(out, "report.json"));
  ASSERT_TRUE(report.ok());
  const nlohmann::json* row = find_row(*report, "boundary_mc2010", "from-run");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ((*row)["n"], 1);                   // evlerde, the one word its file segments
  EXPECT_EQ((*row)["values"]["n_seen"], 1.0);  // seen in {run_dir}'s training text
}

TEST_F(EvalPipelineTest, MissingArtifactStopsBeforeAnySystemRuns) {
  const std::string run_dir = make_run_dir();
  nlohmann::json config = run_dir_config();
  config["run_dir"] = run_dir;
  config["systems"][0]["artifact"] = "{run_dir}/tokenizer/morpheus.json";
  const std::string out = path_join(testing::make_temp_dir("eval"), "eval");
  Status s = run_eval(config, out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("from-run needs " + path_join(run_dir, "tokenizer/morpheus.json")),
            std::string::npos);
  EXPECT_NE(s.hint().find("scripts/main.sh"), std::string::npos);
  EXPECT_FALSE(file_exists(out));  // nothing ran, nothing was written
  config.erase("run_dir");
  Status unset = run_eval(config, out);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.message().find("uses {run_dir}"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::eval
