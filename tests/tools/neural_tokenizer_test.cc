// SPDX-License-Identifier: MIT
// Tests of the Morpheus tokenizer (tools/neural_segmenter.h, tools/neural_tokenizer.h) on tiny
// randomly initialised models: chunking, the LRU cache, export, the lossless round trip on
// random text and on the UD dev sentences, self-test failures on swapped weights/vocabulary,
// and embeddings.
#include "tools/neural_tokenizer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/file_util.h"
#include "core/utf8.h"
#include "model/checkpoint.h"
#include "tests/support/test_support.h"
#include "train/vocab.h"

namespace morpheus::tools {
namespace {

namespace fs = std::filesystem;

const char kAlphabet[] = "abcçdefgğhıijklmnoöprsştuüvyzqwxâîû";

train::CharVocab tiny_chars() {
  std::unordered_map<char32_t, uint64_t> counts;
  const std::u32string letters = *utf8::decode(kAlphabet);
  uint64_t n = 1000;
  for (char32_t c : letters) counts[c] = n--;
  return train::CharVocab::build(counts, 1.0, 1, letters);
}

model::ModelConfig tiny_config(int64_t char_vocab_size) {
  model::ModelConfig config;
  config.char_vocab_size = char_vocab_size;
  config.char_dim = 32;
  config.char_embed_dim = 16;
  config.case_embed_dim = 4;
  config.n_layers_encoder = 1;
  config.n_layers_detector = 1;
  config.num_heads = 2;
  config.ffn_mult = 2;
  config.max_word_len = 16;  // 14 characters per chunk: long runs are chunked
  config.max_segs = 6;
  config.cnn_kernels = {2, 3};
  config.cnn_channels = 16;
  config.depth_weights = {1.0};
  return config;
}

// A random tiny checkpoint (inference kind) with char_vocab.json in `dir`.
void make_checkpoint(const std::string& dir, uint64_t seed) {
  torch::manual_seed(seed);
  const train::CharVocab chars = tiny_chars();
  model::Morpheus m(tiny_config(chars.size()));
  {
    // Scale the weights up so that the random model takes decisive, varied boundary decisions.
    torch::NoGradGuard no_grad;
    for (torch::Tensor& p : m->parameters()) {
      if (p.dim() >= 2) p.mul_(3.0);
    }
  }
  ASSERT_TRUE(model::save_inference_checkpoint(dir, m).ok());
  ASSERT_TRUE(chars.save(path_join(dir, "char_vocab.json")).ok());
}

std::string write_words(const std::string& dir) {
  const std::vector<std::string> roots = {"ev",    "kitap", "göz",  "yol", "kedi", "okul",
                                          "çocuk", "şehir", "ağaç", "gün", "masa", "kapı"};
  const std::vector<std::string> suffixes = {"",    "ler",  "lar",  "de",         "da",
                                             "den", "in",   "imiz", "lerimizden", "siz",
                                             "e",   "leri", "ında", "larımızdan"};
  std::string text = "<unk>\t0\n";
  uint64_t count = 5000;
  for (const std::string& s : suffixes) {
    for (const std::string& r : roots) {
      text += r + s + "\t" + std::to_string(count) + "\n";
      count = count > 40 ? count - 29 : 3;
    }
  }
  text += "İstanbul'da\t77\n3,5\t12\n";
  const std::string path = path_join(dir, "words.tsv");
  EXPECT_TRUE(write_file_atomic(path, text).ok());
  return path;
}

// Exports a tokenizer from a fresh random model with `seed`; returns its directory.
std::string export_tiny(const std::string& root, uint64_t seed, size_t vocab_size = 600) {
  const std::string ckpt = path_join(root, "ckpt" + std::to_string(seed));
  make_checkpoint(ckpt, seed);
  ExportOptions options;
  options.checkpoint = ckpt;
  options.words = write_words(root);
  options.out = path_join(root, "tok" + std::to_string(seed));
  options.vocab_size = vocab_size;
  const Status s = export_tokenizer(options);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return options.out;
}

std::unique_ptr<NeuralTokenizer> load_ok(const std::string& dir) {
  StatusOr<std::unique_ptr<NeuralTokenizer>> tok = NeuralTokenizer::load(dir);
  EXPECT_TRUE(tok.ok()) << tok.status().to_string();
  return tok.ok() ? std::move(*tok) : nullptr;
}

class NeuralTokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    torch::set_num_threads(1);
    root_ = new std::string(testing::make_temp_dir("neural_tok"));
    tok_dir_ = new std::string(export_tiny(*root_, 7));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*root_, ec);
    delete root_;
    delete tok_dir_;
  }
  static std::string* root_;
  static std::string* tok_dir_;
};
std::string* NeuralTokenizerTest::root_ = nullptr;
std::string* NeuralTokenizerTest::tok_dir_ = nullptr;

TEST_F(NeuralTokenizerTest, ExportWritesAVersionedDirectory) {
  for (const char* f : {"tokenizer.json", "pieces.json", "char_vocab.json", "words.tsv",
                        "model/model.pt", "model/config.json"}) {
    EXPECT_TRUE(file_exists(path_join(*tok_dir_, f))) << f;
  }
  const std::string config = *read_file(path_join(*tok_dir_, "tokenizer.json"));
  EXPECT_NE(config.find("\"format_version\": 1"), std::string::npos);
  EXPECT_NE(config.find("\"self_test\""), std::string::npos);
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  EXPECT_LE(tok->codec().vocab_size(), 600);
  EXPECT_GE(tok->codec().piece_id("ş"), tokenizer::PieceCodec::kFirstPieceId);  // base letters
}

TEST_F(NeuralTokenizerTest, SelfTestHasModelDependentSamples) {
  const std::string config = *read_file(path_join(*tok_dir_, "tokenizer.json"));
  // More than the fixed multi-script sample: words whose segmentation the model decides.
  size_t samples = 0;
  for (size_t p = config.find("\"text\""); p != std::string::npos;
       p = config.find("\"text\"", p + 1)) {
    ++samples;
  }
  EXPECT_GE(samples, 3u);
}

TEST_F(NeuralTokenizerTest, LongRunsAreChunkedNeverDropped) {
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const std::string word = "kitaplarımızdanmışsınızcasınaçekoslovakyalılaştıramadıklarımızdan";
  const std::vector<std::string> pieces = tok->segmenter().segment(word);
  std::string joined;
  std::vector<size_t> ends;
  for (const std::string& p : pieces) {
    joined += p;
    ends.push_back(utf8::length(joined));
  }
  EXPECT_EQ(joined, word);
  const size_t chunk = static_cast<size_t>(tok->segmenter().max_chunk_chars());
  for (size_t end = chunk; end < utf8::length(word); end += chunk) {
    EXPECT_NE(std::find(ends.begin(), ends.end(), end), ends.end())
        << "no cut at chunk end " << end;
  }
}

TEST_F(NeuralTokenizerTest, LruCacheIsBoundedAndHit) {
  StatusOr<model::Morpheus> m = model::load_inference_checkpoint(path_join(*tok_dir_, "model"));
  ASSERT_TRUE(m.ok());
  StatusOr<train::CharVocab> chars =
      train::CharVocab::load(path_join(*tok_dir_, "char_vocab.json"));
  ASSERT_TRUE(chars.ok());
  NeuralSegmenterOptions options;
  options.cache_capacity = 2;
  NeuralSegmenter seg(*m, *chars, options);
  seg.segment_many({"evler", "kediler", "evler"});  // de-duplicated within the request
  EXPECT_EQ(seg.model_chunks(), 2u);
  seg.segment("kediler");
  EXPECT_EQ(seg.cache_hits(), 1u);
  seg.segment("okullar");  // evicts "evler" (least recent)
  seg.segment("evler");
  EXPECT_EQ(seg.model_chunks(), 4u);
}

TEST_F(NeuralTokenizerTest, BatchedSegmentationMatchesSingleWords) {
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const std::vector<std::string> words = {"ev", "evlerimizden", "kitaplarımızdan", "göz",
                                          "şehirlerimizdekilerden"};
  const auto batched = tok->segmenter().segment_many(words);
  for (size_t i = 0; i < words.size(); ++i) {
    // Words far from the threshold must not depend on the batch they ran in.
    if (tok->segmenter().decision_margin(words[i]) < 1e-3f) continue;
    StatusOr<std::unique_ptr<NeuralTokenizer>> fresh = NeuralTokenizer::load(*tok_dir_, false);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ((*fresh)->segmenter().segment(words[i]), batched[i]) << words[i];
  }
}

TEST_F(NeuralTokenizerTest, RoundTripOnRandomText) {
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  std::mt19937_64 rng(20261122);
  constexpr size_t kStrings = 100000;
  constexpr size_t kBlock = 5000;
  size_t checked = 0;
  for (size_t b = 0; b < kStrings; b += kBlock) {
    std::vector<std::string> texts;
    for (size_t i = 0; i < kBlock; ++i) texts.push_back(testing::random_text(rng));
    tok->prefetch(texts);
    for (const std::string& text : texts) {
      StatusOr<std::vector<int32_t>> ids = tok->codec().encode(text);
      ASSERT_TRUE(ids.ok()) << ids.status().to_string();
      StatusOr<std::string> back = tok->codec().decode(*ids);
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      ASSERT_EQ(*back, text);
      ++checked;
    }
  }
  EXPECT_EQ(checked, kStrings);
  EXPECT_GT(tok->segmenter().model_chunks(), 1000u);  // the model really segmented the runs
}

TEST_F(NeuralTokenizerTest, RoundTripOnEveryDevSentence) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/dev_ud_sentences.txt");
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  LineReader reader;
  ASSERT_TRUE(reader.open(path).ok());
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(&line)) lines.push_back(line);
  ASSERT_TRUE(reader.status().ok());
  ASSERT_GT(lines.size(), 100u);
  tok->prefetch(lines);
  for (size_t i = 0; i < lines.size(); ++i) {
    StatusOr<std::vector<int32_t>> ids = tok->codec().encode(lines[i]);
    ASSERT_TRUE(ids.ok()) << "line " << i + 1 << ": " << ids.status().to_string();
    StatusOr<std::string> back = tok->codec().decode(*ids);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(*back, lines[i]) << "line " << i + 1;
  }
}

TEST_F(NeuralTokenizerTest, InvalidUtf8IsAnErrorWithOffsetOrByteTokens) {
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const std::string bad = std::string("evler") + '\xC3' + "de";
  std::vector<int32_t> ids;
  const Status s = tok->codec().encode(bad, &ids);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("5"), std::string::npos) << s.message();
  ids.clear();
  ASSERT_TRUE(tok->codec().encode(bad, &ids, nullptr, true).ok());
  EXPECT_EQ(*tok->codec().decode(ids), bad);
}

TEST_F(NeuralTokenizerTest, SwappedWeightsFailTheSelfTest) {
  const std::string other = export_tiny(*root_, 8);
  const std::string victim = path_join(*root_, "swapped_weights");
  fs::copy(*tok_dir_, victim, fs::copy_options::recursive);
  // With its meta.json (model.pt checksum), so that the self-test, not the checksum, catches it.
  for (const char* f : {"model/model.pt", "model/meta.json"}) {
    fs::copy_file(path_join(other, f), path_join(victim, f), fs::copy_options::overwrite_existing);
  }
  StatusOr<std::unique_ptr<NeuralTokenizer>> tok = NeuralTokenizer::load(victim);
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(tok.status().message().find("self-test"), std::string::npos)
      << tok.status().to_string();
}

TEST_F(NeuralTokenizerTest, SwappedVocabularyFailsToLoad) {
  // pieces.json of another export: caught by the size check or by the self-test.
  const std::string other = export_tiny(*root_, 9);
  const std::string victim = path_join(*root_, "swapped_vocab");
  fs::copy(*tok_dir_, victim, fs::copy_options::recursive);
  fs::copy_file(path_join(other, "pieces.json"), path_join(victim, "pieces.json"),
                fs::copy_options::overwrite_existing);
  StatusOr<std::unique_ptr<NeuralTokenizer>> tok = NeuralTokenizer::load(victim);
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss) << tok.status().to_string();
}

TEST_F(NeuralTokenizerTest, EmbeddingsHaveOneFiniteRowPerWord) {
  std::unique_ptr<NeuralTokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const torch::Tensor e = tok->segmenter().embed(
      {"Evler", "kitaplarımızdanmışsınızcasınaçekoslovakyalılaştıramadıklarımızdan", "", "göz"});
  ASSERT_EQ(e.size(0), 4);
  EXPECT_EQ(e.size(1), 32);
  EXPECT_TRUE(torch::isfinite(e).all().item<bool>());
  EXPECT_EQ(e[2].abs().sum().item<float>(), 0.0f);
  EXPECT_GT(e[1].abs().sum().item<float>(), 0.0f);
}

}  // namespace
}  // namespace morpheus::tools
