// SPDX-License-Identifier: MIT
// EvalConfig: configs/eval.json loads to the values the pipeline has always used; struct defaults
// are the only defaults; {run_dir} and {shared_data} substitution; unknown keys, type changes and
// bad values are clear errors.
#include "eval/eval_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/json_config.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

// The value "{shared_data}" stands for (the config's default unless the environment sets it).
std::string expected_shared() {
  const char* env = std::getenv("MORPHEUS_SHARED_DATA");
  return env != nullptr && *env != '\0' ? env : "../shared/data";
}

StatusOr<EvalConfig> load_with(const std::vector<std::string>& sets) {
  MORPHEUS_ASSIGN_OR_RETURN(
      nlohmann::json resolved,
      resolve_config(section_defaults<EvalConfig>(),
                     {path_join(testing::source_dir(), "configs/eval.json")}, sets));
  return section_from_json<EvalConfig>(resolved, "eval config");
}

TEST(EvalConfigTest, ConfigsEvalJsonLoadsItsValues) {
  auto c = load_with({"run_dir=runs/main"});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  const std::string shared = expected_shared();
  EXPECT_EQ(c->gold.mc2010, shared + "/gold/mc2010_tur_trainset.tsv");
  EXPECT_EQ(c->gold.ud_dir, shared + "/ud");
  EXPECT_EQ(c->gold.sentences, shared + "/corpus/dev_ud_sentences.txt");
  EXPECT_EQ(c->training_text, "runs/main/unsup/prepare/corpus.txt");
  EXPECT_EQ(c->split, "report");
  EXPECT_EQ(c->part(), GoldPart::kReport);
  EXPECT_EQ(c->speed.warm_runs, 3u);
  EXPECT_EQ(c->speed.max_chars, 0u);
  EXPECT_EQ(c->embeddings.min_family_forms, 3u);
  EXPECT_EQ(c->embeddings.max_pairs, 20000u);
  EXPECT_EQ(c->embeddings.probe_iterations, 200u);
  EXPECT_EQ(c->embeddings.pca_max_forms, 30u);
  EXPECT_EQ(c->embeddings.lemma_max_queries, 3000u);
  EXPECT_EQ(c->embeddings.seed, 42u);
  auto fewer = load_with({"run_dir=runs/main", "embeddings.lemma_max_queries=10"});
  ASSERT_TRUE(fewer.ok()) << fewer.status().to_string();
  EXPECT_EQ(fewer->embeddings.lemma_max_queries, 10u);
  EXPECT_EQ(c->published_figures, "eval/published_figures.json");
  ASSERT_EQ(c->systems.size(), 18u);
  EXPECT_EQ(c->systems[0].name, "morpheus");
  EXPECT_EQ(c->systems[0].published, "morpheus");
  EXPECT_EQ(c->systems[0].artifact, "runs/main/tokenizer/morpheus.json");
  EXPECT_EQ(c->systems[0].table_words, "runs/main/types.tsv");
  EXPECT_EQ(c->systems[0].segment,
            "build/dev/tools/morpheus segment --model 'runs/main'/tokenizer {input}");
  EXPECT_FALSE(c->systems[0].supervision.empty());
  for (size_t i : {1, 2}) {  // the shipped vectors' parts, each a system of its own
    EXPECT_EQ(c->systems[i].name, i == 1 ? "morpheus-root" : "morpheus-inflection");
    EXPECT_NE(c->systems[i].embed.find(i == 1 ? "--part root" : "--part inflection"),
              std::string::npos);
  }
  const auto hybrid = std::find_if(c->systems.begin(), c->systems.end(),
                                   [](const SystemSpec& s) { return s.name == "hybrid"; });
  ASSERT_NE(hybrid, c->systems.end());
  EXPECT_EQ(hybrid->published, "turkish-tokenizer");
  // Commands get the shared folder shell-quoted.
  EXPECT_EQ(hybrid->segment, "build/dev/tools/morpheus hybrid segment --lexicon " +
                                 shell_quote(shared) + "/hybrid {input}");
  EXPECT_EQ(c->systems.back().name, "characters");
  EXPECT_EQ(c->systems.back().builtin, "characters");
}

TEST(EvalConfigTest, ConfigsEvalJsonNamesTheArtifactOfEverySystemThatReadsTheRunDir) {
  StatusOr<nlohmann::json> raw =
      load_json_file(path_join(testing::source_dir(), "configs/eval.json"));
  ASSERT_TRUE(raw.ok()) << raw.status().to_string();
  EXPECT_FALSE(raw->contains("tuning"));
  size_t with_artifact = 0;
  for (const nlohmann::json& system : raw->at("systems")) {
    bool reads_run_dir = false;
    for (const char* command : {"segment", "encode", "decode", "embed"}) {
      reads_run_dir |= system.value(command, "").find("{run_dir}") != std::string::npos;
    }
    const std::string artifact = system.value("artifact", "");
    EXPECT_EQ(reads_run_dir, !artifact.empty()) << system.at("name");
    if (reads_run_dir) {
      EXPECT_EQ(artifact.rfind("{run_dir}/", 0), 0u) << system.at("name");
    }
    with_artifact += !artifact.empty();
  }
  // 3 Morpheus exports, the 2 parts of the shipped vectors, 4 teachers, Morfessor, 4 baselines
  EXPECT_EQ(with_artifact, 14u);
}

TEST(EvalConfigTest, RunDirPlaceholderNeedsARunDir) {
  auto c = load_with({});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("uses {run_dir} but no run directory is set"),
            std::string::npos);
  EXPECT_NE(c.status().hint().find("--run-dir"), std::string::npos);
}

TEST(EvalConfigTest, RunDirIsSubstitutedInPathsAndQuotedInCommands) {
  const nlohmann::json j = {
      {"run_dir", "my runs/x"},
      {"training_text", "{run_dir}/corpus.txt"},
      {"gold", {{"penn", "{run_dir}/penn.tsv"}}},
      {"systems",
       {{{"name", "a"},
         {"artifact", "{run_dir}/tok/morpheus.json"},
         {"segment", "seg --model {run_dir}/tok --data {shared_data}/d {input}"}}}}};
  auto c = section_from_json<EvalConfig>(j, "eval config");
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->training_text, "my runs/x/corpus.txt");
  EXPECT_EQ(c->gold.penn, "my runs/x/penn.tsv");
  EXPECT_EQ(c->systems[0].artifact, "my runs/x/tok/morpheus.json");
  EXPECT_EQ(c->systems[0].segment,
            "seg --model 'my runs/x'/tok --data " + shell_quote(expected_shared()) + "/d {input}");
}

TEST(EvalConfigTest, UnknownSystemKeyIsAnError) {
  auto s = parse_system(nlohmann::json{{"name", "x"}, {"segmnet", "cmd"}}, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("systems[2]: unknown key 'segmnet'"), std::string::npos);
  // Eval trains nothing: a setup command is no system key.
  EXPECT_FALSE(parse_system(nlohmann::json{{"name", "x"}, {"setup", "make"}}, 0).ok());
}

TEST(EvalConfigTest, EncodeWithoutDecodeIsAnError) {
  EXPECT_FALSE(parse_system(nlohmann::json{{"name", "x"}, {"encode", "cat"}}, 0).ok());
  EXPECT_FALSE(parse_system(nlohmann::json{{"segment", "cat"}}, 0).ok());
}

TEST(EvalConfigTest, UnknownTopLevelKeyIsRejectedByResolution) {
  auto c = resolve_config(section_defaults<EvalConfig>(), {}, {"gold.bogus=1"});
  EXPECT_FALSE(c.ok());
  auto ok = resolve_config(section_defaults<EvalConfig>(), {}, {"speed.warm_runs=1"});
  EXPECT_TRUE(ok.ok());
}

TEST(EvalConfigTest, DefaultsComeFromTheStructs) {
  const nlohmann::json d = section_defaults<EvalConfig>();
  EXPECT_EQ(d.at("split"), "report");
  EXPECT_EQ(d.at("shared_data"), "../shared/data");
  EXPECT_EQ(d.at("speed").at("warm_runs"), 3);
  EXPECT_EQ(d.at("embeddings").at("probe_folds"), 5);
  EXPECT_EQ(d.at("gold").at("penn"), "{shared_data}/gold/penn_tokens_segmentation.tsv");
  EXPECT_TRUE(d.at("systems").is_array() && d.at("systems").empty());
  // An empty object is the defaults.
  auto c = section_from_json<EvalConfig>(nlohmann::json::object(), "eval config");
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->speed.warm_runs, SpeedOptions{}.warm_runs);
  EXPECT_EQ(c->embeddings.probe_min_class, 20u);
  EXPECT_EQ(c->gold.hybrid_lexicon, expected_shared() + "/hybrid");
}

TEST(EvalConfigTest, MistypedKeysAndValuesAreClearErrors) {
  auto unknown = section_from_json<EvalConfig>(nlohmann::json{{"embeddings", {{"probe_fold", 3}}}},
                                               "eval config");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown config key 'embeddings.probe_fold'"),
            std::string::npos)
      << unknown.status().message();
  auto wrong_type =
      section_from_json<EvalConfig>(nlohmann::json{{"speed", {{"warm_runs", "3"}}}}, "eval config");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.status().message().find("speed.warm_runs"), std::string::npos);
  auto split = load_with({"run_dir=runs/main", "split=tunee"});
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(split.status().message().find("unknown gold part 'tunee'"), std::string::npos);
  auto folds = load_with({"run_dir=runs/main", "embeddings.probe_folds=1"});
  ASSERT_FALSE(folds.ok());
  EXPECT_NE(folds.status().message().find("embeddings.probe_folds must be ≥ 2"), std::string::npos);
  auto system = section_from_json<EvalConfig>(
      nlohmann::json{{"systems", {{{"name", "a"}, {"segmnet", "cat {input}"}}}}}, "eval config");
  ASSERT_FALSE(system.ok());
  EXPECT_NE(system.status().message().find("systems[0]: unknown key 'segmnet'"), std::string::npos);
  auto duplicate = section_from_json<EvalConfig>(
      nlohmann::json{{"systems", {{{"name", "a"}, {"builtin", "whole-word"}}, {{"name", "a"}}}}},
      "eval config");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.status().message().find("duplicate name 'a'"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::eval
