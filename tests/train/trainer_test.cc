// SPDX-License-Identifier: MIT
#include "train/trainer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <random>
#include <unordered_map>

#include "config/config_loader.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "model/checkpoint.h"
#include "prepare/cache.h"
#include "prepare/vocab.h"
#include "tests/support/test_support.h"
#include "tokenizer/char_vocab.h"

namespace morpheus::train {
namespace {

using tokenizer::CharVocab;

using nlohmann::json;

// A prepared data directory of synthetic Turkish-like words: stems + suffixes with teacher
// boundaries at the joins, in windows of a few words.
std::string make_data_dir(const std::string& tag) {
  const std::string dir = testing::make_temp_dir(tag);
  const std::vector<std::u32string> stems = {U"ev", U"kitap", U"göz", U"yol", U"kalem", U"çiçek"};
  const std::vector<std::u32string> suffixes = {U"", U"ler", U"de", U"ler de", U"im", U"ımız"};
  std::unordered_map<char32_t, uint64_t> char_counts;
  std::unordered_map<std::u32string, uint64_t> word_counts, root_counts;
  struct Word {
    std::u32string text;
    uint32_t bits = 0;
    std::u32string root;
  };
  std::vector<Word> vocabulary;
  for (const auto& stem : stems) {
    for (const auto& suffix : suffixes) {
      Word w{stem, 0, stem};
      size_t start = 0;
      while (start <= suffix.size() && !suffix.empty()) {
        size_t space = suffix.find(U' ', start);
        if (space == std::u32string::npos) space = suffix.size();
        w.bits |= 1u << w.text.size();
        w.text += suffix.substr(start, space - start);
        start = space + 1;
      }
      vocabulary.push_back(w);
    }
  }
  std::mt19937_64 rng(5);
  std::vector<std::vector<Word>> windows(40);
  for (auto& window : windows) {
    const size_t n = 3 + rng() % 6;
    for (size_t k = 0; k < n; ++k) {
      const Word& w = vocabulary[rng() % vocabulary.size()];
      window.push_back(w);
      for (char32_t c : w.text) ++char_counts[c];
      ++word_counts[w.text];
      ++root_counts[w.root];
    }
  }
  const CharVocab chars = CharVocab::build(char_counts, 1.0, 1, U"");
  const CountVocab words = CountVocab::build(word_counts, 64, 1);
  const CountVocab roots = CountVocab::build(root_counts, 16, 1);
  EXPECT_TRUE(chars.save(dir + "/char_vocab.json").ok());
  EXPECT_TRUE(words.save(dir + "/words.tsv").ok());
  EXPECT_TRUE(roots.save(dir + "/roots.tsv").ok());
  CacheInfo info;
  info.max_word_chars = 30;
  info.max_window_words = 32;
  info.char_vocab_size = chars.size();
  info.word_vocab_size = words.size();
  info.root_vocab_size = roots.size();
  for (const char* split : {"train", "dev"}) {
    CacheWriter writer(info);
    const size_t begin = std::string(split) == "train" ? 0 : 32;
    const size_t end = std::string(split) == "train" ? 32 : 40;
    for (size_t k = begin; k < end; ++k) {
      writer.begin_window();
      for (const Word& w : windows[k]) {
        CacheWord cw;
        for (char32_t c : w.text) cw.char_ids.push_back(static_cast<uint16_t>(chars.id(c)));
        cw.boundary_bits = w.bits;
        cw.word_id = words.id(w.text);
        cw.root_id = roots.id(w.root);
        writer.add_word(cw);
      }
    }
    EXPECT_TRUE(writer.write(dir + "/" + split + ".cache").ok());
  }
  return dir;
}

json tiny_config(const std::vector<std::string>& extra_sets) {
  std::vector<std::string> sets = {"model.char_dim=16",
                                   "model.char_embed_dim=8",
                                   "model.case_embed_dim=4",
                                   "model.n_layers_encoder=1",
                                   "model.n_layers_detector=2",
                                   "model.num_heads=2",
                                   "model.cnn_kernels=[2,3]",
                                   "model.cnn_channels=8",
                                   "model.max_segs=4",
                                   "model.depth_weights=[0.9,1.0]",
                                   "model.mlm_ctx_layers=1",
                                   "model.mlm_dec_layers=1",
                                   "model.dropout=0.1",
                                   "model.sgns_window=2",
                                   "model.sgns_n_negatives=4",
                                   "train.batch_windows=8",
                                   "train.grad_accum=2",
                                   "train.warmup_steps=2",
                                   "train.log_every=1",
                                   "train.threads=1",
                                   "train.epochs=3"};
  sets.insert(sets.end(), extra_sets.begin(), extra_sets.end());
  auto config = morpheus::config::load_config({}, sets);
  EXPECT_TRUE(config.ok()) << config.status().to_string();
  return config.ok() ? *config : json();
}

std::vector<json> read_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> rows;
  std::string line;
  while (std::getline(in, line)) rows.push_back(json::parse(line));
  return rows;
}

void expect_same_parameters(const std::string& a_dir, const std::string& b_dir) {
  auto a = model::load_inference_checkpoint(a_dir);
  auto b = model::load_inference_checkpoint(b_dir);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const auto pa = (*a)->named_parameters();
  const auto pb = (*b)->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& item : pa) {
    EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
  }
}

TEST(TrainerTest, RunDirectoryHoldsConfigMetricsAndCheckpoints) {
  const std::string data = make_data_dir("train_data");
  TrainOptions options;
  options.data_dir = data;
  options.out_dir = testing::make_temp_dir("train_run");
  options.device = "cpu";
  options.config = tiny_config({"train.max_steps=4"});
  auto summary = run_training(options);
  ASSERT_TRUE(summary.ok()) << summary.status().to_string();
  EXPECT_EQ(summary->steps, 4);
  EXPECT_TRUE(file_exists(options.out_dir + "/config.json"));
  EXPECT_TRUE(file_exists(options.out_dir + "/checkpoints/latest"));
  EXPECT_TRUE(file_exists(options.out_dir + "/final/meta.json"));
  EXPECT_TRUE(file_exists(options.out_dir + "/final/model.pt"));
  auto png = read_file(options.out_dir + "/training_curves.png");
  ASSERT_TRUE(png.ok()) << png.status().to_string();
  EXPECT_EQ(png->substr(1, 3), "PNG");
  const auto rows = read_rows(options.out_dir + "/metrics.jsonl");
  int loss_rows = 0;
  for (const auto& row : rows) {
    if (row.contains("loss")) {
      ++loss_rows;
      EXPECT_TRUE(std::isfinite(row["loss"].get<double>()));
      EXPECT_GT(row["lr"].get<double>(), 0);
    }
  }
  EXPECT_EQ(loss_rows, 4);
  ASSERT_TRUE(summary->dev.contains("boundary_f1"));
  EXPECT_GT(summary->dev["interior_gaps"].get<double>(), 0);
}

TEST(TrainerTest, KillAndResumeGivesTheSameWeightsAsAnUninterruptedRun) {
  const std::string data = make_data_dir("resume_data");
  const json config = tiny_config({"train.max_steps=6", "train.checkpoint_every=2"});
  TrainOptions straight;
  straight.data_dir = data;
  straight.out_dir = testing::make_temp_dir("straight");
  straight.device = "cpu";
  straight.config = config;
  ASSERT_TRUE(run_training(straight).ok());

  TrainOptions killed = straight;
  killed.out_dir = testing::make_temp_dir("killed");
  killed.after_step = [](int64_t step) { return step < 3; };  // "killed" after step 3
  auto first = run_training(killed);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ(first->steps, 3);
  EXPECT_FALSE(file_exists(killed.out_dir + "/final/meta.json"));

  TrainOptions resumed = straight;
  resumed.out_dir = killed.out_dir;
  resumed.resume = true;
  auto second = run_training(resumed);
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_EQ(second->steps, 6);
  expect_same_parameters(straight.out_dir + "/final", resumed.out_dir + "/final");
}

TEST(TrainerTest, NanMicroBatchIsSkippedWithoutLosingItsPartner) {
  TrainOptions options;
  options.data_dir = make_data_dir("nan_data");
  options.out_dir = testing::make_temp_dir("nan_run");
  options.device = "cpu";
  options.config = tiny_config({"train.max_steps=2"});
  options.poison_micro_batch = 1;  // the second micro-batch of step 1
  auto summary = run_training(options);
  ASSERT_TRUE(summary.ok()) << summary.status().to_string();
  EXPECT_EQ(summary->skipped_micro_batches, 1);
  const auto rows = read_rows(options.out_dir + "/metrics.jsonl");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0]["step"], 1);
  EXPECT_EQ(rows[0]["micro_batches"], 1);  // the partner micro-batch still counted
  EXPECT_TRUE(std::isfinite(rows[0]["loss"].get<double>()));
  EXPECT_EQ(rows[1]["micro_batches"], 2);
}

TEST(TrainerTest, NanMicroBatchLeavesTheWeightsFinite) {
  TrainOptions options;
  options.data_dir = make_data_dir("nan_finite_data");
  options.out_dir = testing::make_temp_dir("nan_finite_run");
  options.device = "cpu";
  options.config = tiny_config({"train.max_steps=2"});
  options.poison_micro_batch = 0;  // the first micro-batch: its NaN reaches the summed gradient
  ASSERT_TRUE(run_training(options).ok());
  auto model = model::load_inference_checkpoint(options.out_dir + "/final");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  for (const auto& item : (*model)->named_parameters()) {
    EXPECT_TRUE(torch::isfinite(item.value()).all().item<bool>()) << item.key();
  }
  const auto rows = read_rows(options.out_dir + "/metrics.jsonl");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0]["micro_batches"], 1);
  EXPECT_TRUE(std::isfinite(rows[0]["grad_norm"].get<double>()));
}

TEST(TrainerTest, ResumeWithoutCheckpointIsAClearError) {
  TrainOptions options;
  options.data_dir = make_data_dir("noresume_data");
  options.out_dir = testing::make_temp_dir("noresume");
  options.device = "cpu";
  options.config = tiny_config({});
  options.resume = true;
  auto summary = run_training(options);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), StatusCode::kNotFound);
}

TEST(TrainerTest, MissingDataDirectoryNamesTheFileAndHintsAtPrepare) {
  TrainOptions options;
  options.data_dir = testing::make_temp_dir("empty_data");
  options.out_dir = testing::make_temp_dir("nodata");
  options.device = "cpu";
  options.config = tiny_config({});
  auto summary = run_training(options);
  ASSERT_FALSE(summary.ok());
  EXPECT_NE(summary.status().message().find("train.cache"), std::string::npos);
  EXPECT_NE(summary.status().hint().find("morpheus prepare"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::train
