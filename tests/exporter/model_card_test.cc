// SPDX-License-Identifier: MIT
// The provenance and model card of an exported tokenizer directory (exporter/model_card.h).
#include "exporter/model_card.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/version.h"
#include "tests/support/test_support.h"

namespace morpheus::exporter {
namespace {

using nlohmann::json;

// A checkpoint directory with config.json and meta.json, and a words file, under `dir`.
ProvenanceInputs write_inputs(const std::string& dir) {
  EXPECT_TRUE(make_dirs(path_join(dir, "ckpt")).ok());
  EXPECT_TRUE(write_file_atomic(path_join(dir, "ckpt/config.json"),
                                R"({"model": {"d_model": 64}, "train": {"max_steps": 2}})")
                  .ok());
  EXPECT_TRUE(write_file_atomic(path_join(dir, "ckpt/meta.json"),
                                R"({"kind": "training", "model_pt_fnv1a64": "fnv1a64:00ff"})")
                  .ok());
  EXPECT_TRUE(write_file_atomic(path_join(dir, "words.tsv"), "ev\t3\nkitap\t2\n").ok());
  ProvenanceInputs inputs;
  inputs.checkpoint = path_join(dir, "ckpt");
  inputs.inputs = {{"words", path_join(dir, "words.tsv")}, {"text", ""}};
  inputs.export_options = json{{"checkpoint", inputs.checkpoint}, {"vocab_size", 2000}};
  return inputs;
}

TEST(ModelCardTest, ProvenanceRecordsVersionInputChecksumsAndTrainOptions) {
  const std::string dir = testing::make_temp_dir("provenance");
  StatusOr<json> p = export_provenance(write_inputs(dir));
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ((*p)["tool"], "morpheus");
  EXPECT_EQ((*p)["version"], std::string(version()));
  EXPECT_EQ((*p)["git_describe"], std::string(git_describe()));
  EXPECT_EQ((*p)["inputs"]["words"]["checksum"], checksum_tag("ev\t3\nkitap\t2\n"));
  EXPECT_FALSE((*p)["inputs"].contains("text"));  // not given
  EXPECT_EQ((*p)["train"]["config"]["train"]["max_steps"], 2);
  EXPECT_EQ((*p)["train"]["meta"]["kind"], "training");
  EXPECT_EQ((*p)["export"]["vocab_size"], 2000);
}

TEST(ModelCardTest, ProvenanceOfAMissingInputIsAnErrorNamingIt) {
  const std::string dir = testing::make_temp_dir("provenance_missing");
  ProvenanceInputs inputs = write_inputs(dir);
  inputs.inputs.emplace_back("text", path_join(dir, "no_corpus.txt"));
  StatusOr<json> p = export_provenance(inputs);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("no_corpus.txt"), std::string::npos);
}

TEST(ModelCardTest, ProvenanceOfACheckpointWithoutMetaRecordsNull) {
  const std::string dir = testing::make_temp_dir("provenance_no_meta");
  ProvenanceInputs inputs = write_inputs(dir);
  ASSERT_TRUE(std::filesystem::remove(path_join(dir, "ckpt/meta.json")));
  StatusOr<json> p = export_provenance(inputs);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_TRUE((*p)["train"]["meta"].is_null());
}

json card_config(const std::string& dir) {
  StatusOr<json> p = export_provenance(write_inputs(dir));
  EXPECT_TRUE(p.ok());
  return json{{"vocab_size", 2000},
              {"byte_tokens", 256},
              {"case_tokens", {"<cap>", "<upper>", "<upper_word>"}},
              {"num_pieces", 1741},
              {"table_runs", 812},
              {"word_types", 950},
              {"threshold", 0.5},
              {"root_snap", false},
              {"provenance", *p}};
}

TEST(ModelCardTest, CardStatesVocabularyTrainingEvaluationLicenceAndLoading) {
  const std::string dir = testing::make_temp_dir("card");
  const std::string card =
      model_card(card_config(dir), "# Report\n\n| metric | score |\n| F1 | 0.812 |\n");
  EXPECT_EQ(card.rfind("# Morpheus tokenizer, 2000 ids\n", 0), 0u) << card;
  EXPECT_NE(card.find("2000 ids: 256 byte tokens, 3 case tokens, 1741 pieces"), std::string::npos);
  EXPECT_NE(card.find(std::string(version())), std::string::npos);
  EXPECT_NE(card.find(checksum_tag("ev\t3\nkitap\t2\n")), std::string::npos);
  EXPECT_NE(card.find("\"max_steps\": 2"), std::string::npos);
  EXPECT_NE(card.find("## Evaluation\n\n## Report\n"), std::string::npos) << card;
  EXPECT_NE(card.find("| F1 | 0.812 |"), std::string::npos);
  EXPECT_NE(card.find("## Licence\n\nMIT"), std::string::npos);
  EXPECT_NE(card.find("morpheus.Tokenizer(\"TOKDIR\")"), std::string::npos);
  EXPECT_NE(card.find("morpheus encode --model TOKDIR"), std::string::npos);
}

TEST(ModelCardTest, CardListsSpecialTokensAndUserSymbols) {
  const std::string dir = testing::make_temp_dir("card_specials");
  json config = card_config(dir);
  config["special_tokens"] = {"<pad>", "<s>"};
  config["user_symbols"] = {"@user"};
  const std::string card = model_card(config, "");
  EXPECT_NE(card.find("1741 pieces, 2 special tokens (`<pad>` `<s>`), 1 user symbols (`@user`)"),
            std::string::npos)
      << card;
}

TEST(ModelCardTest, CardStatesTheIdStreamLayout) {
  const std::string dir = testing::make_temp_dir("card_stream");
  json config = card_config(dir);
  EXPECT_NE(model_card(config, "").find("- id stream: every space is an id of its own\n"),
            std::string::npos);  // a directory of format 3
  config["stream"] = {{"word_initial", true},
                      {"merge_pieces", true},
                      {"word_initial_pieces", 412},
                      {"merged_pieces", 90}};
  const std::string card = model_card(config, "");
  EXPECT_NE(card.find("inside the word's first id (412 word-initial pieces)"), std::string::npos)
      << card;
  EXPECT_NE(card.find("; 90 pieces join whole morphemes"), std::string::npos) << card;
}

TEST(ModelCardTest, CardWithoutAReportSaysNoneWasAttached) {
  const std::string dir = testing::make_temp_dir("card_no_eval");
  const std::string card = model_card(card_config(dir), "");
  EXPECT_NE(card.find("No evaluation report was attached"), std::string::npos) << card;
}

}  // namespace
}  // namespace morpheus::exporter
