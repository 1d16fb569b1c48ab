// SPDX-License-Identifier: MIT
// The LM trainer and BPC evaluation on a character-level encoding of a small synthetic text:
// the uniform model's BPC, every token and character counted, the bits of each line and of the
// all-upper and other lines, determinism per seed, exact resume, and clear errors on bad input.
#include "lm/lm_trainer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "lm/lm_checkpoint.h"
#include "lm_data/char_codec.h"
#include "lm_data/id_lines.h"
#include "lm_data/text_data.h"
#include "tests/support/test_support.h"

namespace morpheus::lm {
namespace {

using nlohmann::json;

struct Corpus {
  std::string dir, train_text, train_ids, valid_text, valid_ids;
  int64_t vocab = 0;
};

// Sentences of Turkish words (some lines empty) encoded with the character codec.
Corpus make_corpus(const std::string& tag) {
  static constexpr const char* kWords[] = {"ev",    "evler", "kitap",     "kitabı", "göz", "yol",
                                           "çiçek", "güzel", "Ankara'da", "2",      "kış", "."};
  Corpus c;
  c.dir = testing::make_temp_dir(tag);
  std::mt19937_64 rng(9);
  auto text = [&rng](int lines) {
    std::string out;
    for (int i = 0; i < lines; ++i) {
      const int n = static_cast<int>(rng() % 7);
      for (int w = 0; w < n; ++w) out += std::string(w ? " " : "") + kWords[rng() % 12];
      out += "\n";
    }
    return out;
  };
  c.train_text = c.dir + "/train.txt";
  c.valid_text = c.dir + "/valid.txt";
  EXPECT_TRUE(write_file_atomic(c.train_text, text(120)).ok());
  EXPECT_TRUE(write_file_atomic(c.valid_text, text(25)).ok());
  const CharCodec codec = CharCodec::train(c.train_text).value();
  c.vocab = codec.vocab_size();
  for (auto [in, out] : {std::pair{c.train_text, &c.train_ids}, {c.valid_text, &c.valid_ids}}) {
    *out = in + ".ids";
    std::ifstream is(in);
    std::string line, ids;
    std::vector<int32_t> v;
    while (std::getline(is, line)) {
      EXPECT_TRUE(codec.encode(line, &v).ok());
      for (size_t i = 0; i < v.size(); ++i) ids += (i ? " " : "") + std::to_string(v[i]);
      ids += "\n";
    }
    EXPECT_TRUE(write_file_atomic(*out, ids).ok());
  }
  return c;
}

// The id lines of `text` under `codec`.
std::string encode_lines(const CharCodec& codec, const std::string& text) {
  std::istringstream in(text);
  std::string line, ids;
  std::vector<int32_t> v;
  while (std::getline(in, line)) {
    EXPECT_TRUE(codec.encode(line, &v).ok());
    for (size_t i = 0; i < v.size(); ++i) ids += (i ? " " : "") + std::to_string(v[i]);
    ids += "\n";
  }
  return ids;
}

LmConfig tiny_config() {
  LmConfig c;
  c.layers = 1;
  c.heads = 2;
  c.d_model = 16;
  c.equalize_vocab = 0;
  c.context = 16;
  c.batch_size = 4;
  c.steps = 2;
  c.warmup_steps = 1;
  c.lr = 1e-2;
  c.dropout = 0.1;  // exercises the seeded dropout masks
  c.log_every = 1;
  c.eval_every = 1;
  c.checkpoint_every = 1;
  c.eval_batch = 3;
  c.threads = 1;
  return c;
}

LmTrainOptions options_for(const Corpus& c, const std::string& out) {
  LmTrainOptions o;
  o.train_ids = c.train_ids;
  o.valid_ids = c.valid_ids;
  o.valid_text = c.valid_text;
  o.vocab_size = c.vocab;
  o.out_dir = out;
  o.device = "cpu";
  o.config = tiny_config();
  return o;
}

std::vector<torch::Tensor> final_parameters(const std::string& run) {
  auto loaded = load_lm_checkpoint(run + "/final.pt", torch::kCPU);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  return loaded->model->parameters();
}

std::vector<json> metric_rows(const std::string& run) {
  std::ifstream in(run + "/metrics.jsonl");
  std::vector<json> rows;
  std::string line;
  while (std::getline(in, line)) {
    json row = json::parse(line);
    row.erase("tokens_per_s");  // a timing
    rows.push_back(row);
  }
  return rows;
}

TEST(LmTrainerTest, UniformModelBpcIsLog2VocabTimesTokensPerCharacter) {
  const Corpus c = make_corpus("lmuniform");
  Gpt gpt(GptOptions{c.vocab + 1, 16, 1, 2, 16, 0.0});
  torch::NoGradGuard no_grad;
  for (auto& p : gpt->parameters()) p.zero_();  // every logit 0: uniform over vocab + 1 ids
  const IdLines ids = read_id_lines(c.valid_ids, c.vocab).value();
  const TextStats text = count_text(c.valid_text).value();
  const BpcResult r =
      evaluate_stream(*gpt, token_stream(ids), text.characters(), 16, 3, torch::kCPU);
  const auto tokens = static_cast<double>(ids.ids.size() + ids.num_lines());
  EXPECT_EQ(r.tokens, static_cast<int64_t>(tokens));
  const double expected =
      std::log2(static_cast<double>(c.vocab + 1)) * tokens / static_cast<double>(text.characters());
  EXPECT_NEAR(r.bpc(), expected, 1e-6 * expected);  // float32 log-softmax
}

TEST(LmTrainerTest, BpcScoresEveryTokenOnceWhateverTheWindowAndBatch) {
  const Corpus c = make_corpus("lmwindows");
  torch::manual_seed(5);
  Gpt gpt(GptOptions{c.vocab + 1, 16, 1, 2, 16, 0.0});
  const IdLines ids = read_id_lines(c.valid_ids, c.vocab).value();
  const std::vector<int32_t> stream = token_stream(ids);
  const TextStats text = count_text(c.valid_text).value();
  for (auto [window, batch] : {std::pair<int64_t, int64_t>{16, 1}, {5, 3}, {7, 100}, {1, 4}}) {
    const BpcResult r =
        evaluate_stream(*gpt, stream, text.characters(), window, batch, torch::kCPU);
    EXPECT_EQ(r.tokens, static_cast<int64_t>(stream.size()) - 1) << window << "x" << batch;
    EXPECT_EQ(r.characters, text.characters());
    EXPECT_GT(r.bits, 0);
  }
  // The same windows in other batch sizes give the same bits.
  const double a = evaluate_stream(*gpt, stream, 1, 5, 1, torch::kCPU).bits;
  const double b = evaluate_stream(*gpt, stream, 1, 5, 64, torch::kCPU).bits;
  EXPECT_NEAR(a, b, 1e-6 * a);
}

TEST(LmTrainerTest, TwoStepRunIsDeterministicPerSeed) {
  const Corpus c = make_corpus("lmdet");
  const std::string root = testing::make_temp_dir("lmdet_runs");
  ASSERT_TRUE(train_lm(options_for(c, root + "/a")).ok());
  ASSERT_TRUE(train_lm(options_for(c, root + "/b")).ok());
  LmTrainOptions other = options_for(c, root + "/c");
  other.config.seed = 2;
  ASSERT_TRUE(train_lm(other).ok());
  const auto a = final_parameters(root + "/a"), b = final_parameters(root + "/b"),
             d = final_parameters(root + "/c");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << i;
  EXPECT_FALSE(torch::equal(a[0], d[0]));
  EXPECT_EQ(metric_rows(root + "/a"), metric_rows(root + "/b"));
  auto result = load_json_file(root + "/a/result.json");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->at("steps"), 2);
  EXPECT_GT(result->at("valid_bpc").get<double>(), 0);
}

TEST(LmTrainerTest, ResumeGivesTheUninterruptedRun) {
  const Corpus c = make_corpus("lmresume");
  const std::string root = testing::make_temp_dir("lmresume_runs");
  LmTrainOptions straight = options_for(c, root + "/straight");
  straight.config.steps = 5;
  straight.config.checkpoint_every = 2;
  ASSERT_TRUE(train_lm(straight).ok());
  LmTrainOptions killed = straight;
  killed.out_dir = root + "/resumed";
  killed.after_step = [](int64_t step) { return step < 3; };  // dies after step 3
  auto first = train_lm(killed);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->stopped);
  EXPECT_FALSE(file_exists(killed.out_dir + "/final.pt"));
  EXPECT_FALSE(train_lm(killed).ok());  // the directory holds a run: --resume needed
  killed.after_step = nullptr;
  killed.resume = true;  // continues from the step-2 checkpoint
  auto second = train_lm(killed);
  ASSERT_TRUE(second.ok()) << second.status().message();
  const auto a = final_parameters(straight.out_dir), b = final_parameters(killed.out_dir);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << i;
  EXPECT_EQ(metric_rows(straight.out_dir), metric_rows(killed.out_dir));
}

TEST(LmTrainerTest, BadInputsAreClearErrors) {
  const Corpus c = make_corpus("lmbad");
  const std::string root = testing::make_temp_dir("lmbad_runs");
  LmTrainOptions o = options_for(c, root + "/r1");
  o.vocab_size = c.vocab - 1;  // the codec's last id is now out of range
  auto small_vocab = train_lm(o);
  ASSERT_FALSE(small_vocab.ok());
  EXPECT_NE(small_vocab.status().message().find(">= vocabulary size"), std::string::npos);
  o = options_for(c, root + "/r2");
  o.train_ids = c.dir + "/missing.ids";
  EXPECT_EQ(train_lm(o).status().code(), StatusCode::kNotFound);
  o = options_for(c, root + "/r3");
  ASSERT_TRUE(write_file_atomic(c.dir + "/empty.ids", "").ok());
  o.valid_ids = c.dir + "/empty.ids";
  auto empty = train_lm(o);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no lines"), std::string::npos);
  o = options_for(c, root + "/r4");
  o.valid_text = c.train_text;  // another line count than the validation ids
  auto mismatch = train_lm(o);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("lines"), std::string::npos);
  o = options_for(c, root + "/r5");
  o.config.context = 100000;
  EXPECT_FALSE(train_lm(o).ok());
}

TEST(LmTrainerTest, EvalOfTheFinalCheckpointEqualsTheTrainingResult) {
  const Corpus c = make_corpus("lmeval");
  const std::string run = testing::make_temp_dir("lmeval_runs") + "/r";
  auto trained = train_lm(options_for(c, run));
  ASSERT_TRUE(trained.ok());
  auto evaluated = evaluate_lm(run + "/final.pt", c.valid_ids, c.valid_text, "cpu", 3);
  ASSERT_TRUE(evaluated.ok()) << evaluated.status().message();
  EXPECT_NEAR(evaluated->bpc(), trained->valid.bpc(), 1e-9);
  EXPECT_FALSE(evaluate_lm(run + "/final.pt", c.train_ids, c.valid_text, "cpu", 3).ok());
}

TEST(LmTrainerTest, LineBitsAreNonNegativeAndAddUpToTheTotal) {
  const Corpus c = make_corpus("lmlines");
  torch::manual_seed(7);
  Gpt gpt(GptOptions{c.vocab + 1, 16, 1, 2, 16, 0.0});
  const IdLines ids = read_id_lines(c.valid_ids, c.vocab).value();
  const TextStats text = count_text(c.valid_text).value();
  const BpcResult r =
      evaluate_stream(*gpt, token_stream(ids), text.characters(), 16, 3, torch::kCPU);
  ASSERT_EQ(r.line_bits.size(), ids.num_lines());
  double sum = 0;
  for (double bits : r.line_bits) {
    EXPECT_GT(bits, 0);  // every line has at least its end-of-line id
    sum += bits;
  }
  EXPECT_NEAR(sum, r.bits, 1e-12 * r.bits);
}

TEST(LmTrainerTest, LineBitsWithAOneTokenWindowAreThoseOfTheLineAlone) {
  // With one target per window, a token is predicted from the token before it alone, so a line's
  // bits do not depend on the other lines: scoring the line by itself gives the same bits.
  const Corpus c = make_corpus("lmlinealone");
  torch::manual_seed(8);
  Gpt gpt(GptOptions{c.vocab + 1, 16, 1, 2, 16, 0.0});
  const IdLines ids = read_id_lines(c.valid_ids, c.vocab).value();
  const BpcResult all = evaluate_stream(*gpt, token_stream(ids), 1, 1, 8, torch::kCPU);
  ASSERT_EQ(all.line_bits.size(), ids.num_lines());
  for (size_t i = 0; i < ids.num_lines(); ++i) {
    std::vector<int32_t> line = {ids.eol()};  // eol, the line's ids, eol
    line.insert(line.end(), ids.ids.begin() + ids.offsets[i], ids.ids.begin() + ids.offsets[i + 1]);
    line.push_back(ids.eol());
    const BpcResult alone = evaluate_stream(*gpt, line, 1, 1, 8, torch::kCPU);
    ASSERT_EQ(alone.line_bits.size(), 1u);
    EXPECT_NEAR(all.line_bits[i], alone.line_bits[0], 1e-5 * alone.line_bits[0]) << "line " << i;
  }
}

// Lower-case training lines; validation lines lower-case and their upper-case forms, so the
// upper-case lines hold ids the model never saw as targets.
Corpus make_case_corpus(const std::string& tag) {
  Corpus c;
  c.dir = testing::make_temp_dir(tag);
  static constexpr const char* kLines[] = {"ev ve yol", "kitap güzel", "göz ve ev", "yol güzel"};
  std::string train, valid, both;
  for (int i = 0; i < 60; ++i) train += std::string(kLines[i % 4]) + "\n";
  for (const char* line : kLines) {
    valid += std::string(line) + "\n" + unicode::to_upper(line) + "\n";
  }
  c.train_text = c.dir + "/train.txt";
  c.valid_text = c.dir + "/valid.txt";
  EXPECT_TRUE(write_file_atomic(c.train_text, train).ok());
  EXPECT_TRUE(write_file_atomic(c.valid_text, valid).ok());
  EXPECT_TRUE(write_file_atomic(c.dir + "/both.txt", train + valid).ok());
  const CharCodec codec = CharCodec::train(c.dir + "/both.txt").value();  // one id per letter
  c.vocab = codec.vocab_size();
  c.train_ids = c.train_text + ".ids";
  c.valid_ids = c.valid_text + ".ids";
  EXPECT_TRUE(write_file_atomic(c.train_ids, encode_lines(codec, train)).ok());
  EXPECT_TRUE(write_file_atomic(c.valid_ids, encode_lines(codec, valid)).ok());
  return c;
}

TEST(LmTrainerTest, EvalSlicesSplitTheBitsOfAllUpperAndOtherLines) {
  const Corpus c = make_case_corpus("lmslices");
  const std::string run = testing::make_temp_dir("lmslices_runs") + "/r";
  LmTrainOptions o = options_for(c, run);
  o.config.steps = 40;
  o.config.eval_every = 0;
  o.config.checkpoint_every = 0;
  ASSERT_TRUE(train_lm(o).ok());
  auto r = evaluate_lm(run + "/final.pt", c.valid_ids, c.valid_text, "cpu", 3);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto slices = slice_line_bits(c.valid_text, r->line_bits);
  ASSERT_TRUE(slices.ok()) << slices.status().message();
  const json j = eval_json(*r, *slices);
  const json& upper = j["slices"]["all_upper"];
  const json& other = j["slices"]["other"];
  EXPECT_EQ(upper["lines"], 4);
  EXPECT_EQ(other["lines"], 4);
  EXPECT_EQ(upper["characters"].get<int64_t>() + other["characters"].get<int64_t>(),
            j["characters"].get<int64_t>());
  EXPECT_NEAR(upper["bits"].get<double>() + other["bits"].get<double>(), j["bits"].get<double>(),
              1e-9 * j["bits"].get<double>());
  EXPECT_DOUBLE_EQ(j["bpc"].get<double>(), r->bpc());
  // The unseen upper-case ids cost far more than the lines the model was trained on.
  EXPECT_GT(upper["bpc"].get<double>(), 2 * other["bpc"].get<double>());
}

}  // namespace
}  // namespace morpheus::lm
