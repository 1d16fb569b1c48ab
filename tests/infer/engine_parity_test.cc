// SPDX-License-Identifier: MIT
// The engine (engine/) against LibTorch on the same model, written by
// exporter/torch/engine_weights.h: every stage of the forward pass, the packed boundary logits of
// the segmenter, the pieces of infer::NeuralSegmenter on real Turkish words (different only where
// LibTorch's logit lies within kCloseCallMargin of the threshold) and its embeddings. Models:
// random weights at configs/tiny.json and configs/paper.json, and a tiny model trained for a few
// seconds. Each test prints the largest relative error it measured ("[ measured ]").
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "engine/forward.h"
#include "engine/segmenter.h"
#include "engine/weight_file.h"
#include "exporter/torch/engine_weights.h"
#include "infer/neural_segmenter.h"
#include "model/packed_inference.h"
#include "tests/support/test_support.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/directory_format.h"

namespace morpheus::infer {
namespace {

using engine::kCloseCallMargin;

constexpr double kTolerance = 1e-5;  // largest relative error allowed at any stage

const char kAlphabet[] = "abcçdefgğhıijklmnoöprsştuüvyzqwxâîû";

// Words of the layer tests: mixed case, 1 to 30 letters.
const std::vector<std::string> kWords = {"ev",
                                         "Evlerimizden",
                                         "kitap",
                                         "KİTAPLAR",
                                         "çocuklarımızın",
                                         "a",
                                         "İstanbul'da",
                                         "gözlükçüler",
                                         "şehirlerarası",
                                         "ağaçlandırma",
                                         "okullarda",
                                         "Ankara",
                                         "yol",
                                         "değerlendirme",
                                         "katılmıyorum",
                                         "ÖĞRETMENLER",
                                         "masamızdaki",
                                         "bilgisayarlar",
                                         "kapı",
                                         "güneşlenmek",
                                         "muvaffakiyetsizleştiricileş",
                                         "o",
                                         "su",
                                         "Türkiye",
                                         "çekoslovakyalılaştıramadık"};

tokenizer::CharVocab turkish_chars() {
  std::unordered_map<char32_t, uint64_t> counts;
  const std::u32string letters = *utf8::decode(kAlphabet);
  uint64_t n = 1000;
  for (char32_t c : letters) counts[c] = n--;
  return tokenizer::CharVocab::build(counts, 1.0, 1, letters);
}

model::ModelConfig config_file(const std::string& name, int64_t vocab_size) {
  StatusOr<nlohmann::json> j = load_json_file(testing::source_dir() + "/configs/" + name);
  EXPECT_TRUE(j.ok()) << j.status().to_string();
  model::ModelConfig config;
  config.char_vocab_size = vocab_size;
  if (j.ok()) from_json(j->at("model"), config);
  config.char_vocab_size = vocab_size;
  return config;
}

model::Morpheus random_model(const model::ModelConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  model::Morpheus m(config);
  m->eval();
  return m;
}

std::shared_ptr<const engine::Model> engine_of(const model::Morpheus& m) {
  const std::string path = path_join(testing::make_temp_dir("parity"), tokenizer::kWeightsFile);
  const Status written = exporter::write_engine_weights(m, path);
  EXPECT_TRUE(written.ok()) << written.to_string();
  StatusOr<std::shared_ptr<const engine::Model>> loaded = engine::Model::load(path);
  EXPECT_TRUE(loaded.ok()) << loaded.status().to_string();
  return loaded.ok() ? *loaded : nullptr;
}

// Letters of `word` (code points; apostrophes and others dropped), lower-cased, with case flags.
struct Letters {
  std::u32string lower;
  std::vector<uint8_t> upper;
};
Letters letters_of(const std::string& word) {
  Letters out;
  const std::u32string cps = utf8::decode(word).value();
  for (char32_t c : cps) {
    if (!unicode::is_letter(c)) continue;
    out.lower.push_back(unicode::to_lower(c));
    out.upper.push_back(out.lower.back() != c ? 1 : 0);
  }
  return out;
}

// Padded LibTorch inputs and the engine's words of the same letters.
struct Batch {
  torch::Tensor ids, cases;  // [N,T] int64
  std::vector<engine::WordIds> words;
  std::vector<const engine::WordIds*> pointers() const {
    std::vector<const engine::WordIds*> out;
    for (const engine::WordIds& w : words) out.push_back(&w);
    return out;
  }
};
Batch make_batch(const std::vector<std::string>& texts, const tokenizer::CharVocab& chars,
                 bool keep_case) {
  std::vector<Letters> letters;
  int64_t t = 0;
  for (const std::string& w : texts) {
    letters.push_back(letters_of(w));
    if (!keep_case) std::fill(letters.back().upper.begin(), letters.back().upper.end(), 0);
    t = std::max<int64_t>(t, static_cast<int64_t>(letters.back().lower.size()) + 2);
  }
  Batch b;
  const int64_t n = static_cast<int64_t>(texts.size());
  b.ids = torch::zeros({n, t}, torch::kLong);
  b.cases = torch::zeros({n, t}, torch::kLong);
  for (int64_t i = 0; i < n; ++i) {
    const Letters& l = letters[static_cast<size_t>(i)];
    engine::WordIds w;
    w.ids.push_back(engine::kBosId);
    w.cases.push_back(0);
    for (size_t j = 0; j < l.lower.size(); ++j) {
      w.ids.push_back(static_cast<int32_t>(chars.id(l.lower[j])));
      w.cases.push_back(l.upper[j]);
    }
    w.ids.push_back(engine::kEosId);
    w.cases.push_back(0);
    for (size_t j = 0; j < w.ids.size(); ++j) {
      b.ids[i][static_cast<int64_t>(j)] = w.ids[j];
      b.cases[i][static_cast<int64_t>(j)] = w.cases[j];
    }
    b.words.push_back(std::move(w));
  }
  return b;
}

// Stages of the LibTorch modules, as engine::Trace names them: [N,T,D] (logits [N,T−1]).
std::map<std::string, torch::Tensor> torch_stages(model::Morpheus& m, const Batch& b) {
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> out;
  model::CharEncoderImpl& enc = *m->char_encoder;
  const torch::Tensor mask = b.ids.ne(model::kPadId);
  const torch::Tensor maskf = mask.unsqueeze(-1).to(torch::kFloat);
  const model::ValidRows rows(mask);
  torch::Tensor h =
      enc.embed_proj(torch::cat({enc.char_embedding(b.ids), enc.case_embedding(b.cases)}, -1)) *
      maskf;
  out["embed_proj"] = h;
  h = out["cnn"] = enc.cnn(h, mask);
  auto run_ffn = [&](torch::nn::SequentialImpl& ffn, const torch::Tensor& x) {
    return (x + rows.apply(x, [&](const torch::Tensor& r) { return ffn.forward(r); })) * maskf;
  };
  for (size_t l = 0; l < enc.attn_layers->size(); ++l) {
    h = enc.attn_layers[l]->as<model::RopeSelfAttention>()->forward(h, mask, rows);
    h = out["encoder." + std::to_string(l)] = run_ffn(*enc.ffns[l]->as<torch::nn::Sequential>(), h);
  }
  h = out["final_norm"] = enc.final_norm(h) * maskf;
  model::BoundaryDetectorImpl& det = *m->boundary_detector;
  out["logits"] = det.forward(h, mask).logits;
  for (size_t l = 0; l < det.layers->size(); ++l) {
    h = det.layers[l]->as<model::DetectorLayer>()->forward(h, mask, rows);
    h = out["detector." + std::to_string(l)] =
        run_ffn(*det.ffns[l]->as<torch::nn::Sequential>(), h);
  }
  out["embeddings"] = m->forward(b.ids, b.cases, true).word_embeddings;
  return out;
}

// max |engine − torch| / max |torch| over the valid rows of every word; reference [N,T,D], or
// [N,T−1] gap logits when `gaps`.
double stage_error(const engine::Trace::Stage& stage, const torch::Tensor& reference,
                   const Batch& b, bool gaps) {
  const torch::Tensor ref = (gaps ? reference.unsqueeze(-1) : reference).contiguous();
  const auto acc = ref.accessor<float, 3>();
  double worst = 0, scale = 0;
  size_t row = 0;
  for (size_t i = 0; i < b.words.size(); ++i) {
    const size_t n = b.words[i].positions() - (gaps ? 1 : 0);
    for (size_t r = 0; r < n; ++r, ++row) {
      for (size_t c = 0; c < stage.cols; ++c) {
        const double x =
            acc[static_cast<int64_t>(i)][static_cast<int64_t>(r)][static_cast<int64_t>(c)];
        worst = std::max(worst, std::fabs(x - stage.values[row * stage.cols + c]));
        scale = std::max(scale, std::fabs(x));
      }
    }
  }
  EXPECT_EQ(row, stage.rows) << stage.name;
  return worst / std::max(scale, 1e-30);
}

// Whether LibTorch's logit of some gap of word i lies within the margin of the threshold's.
bool close_call(const torch::Tensor& logits, const Batch& b, size_t i, double logit_threshold,
                size_t first_gap, size_t end_trim) {
  const size_t gaps = b.words[i].positions() - 1;
  for (size_t g = first_gap; g + end_trim < gaps; ++g) {
    const double x = logits[static_cast<int64_t>(i)][static_cast<int64_t>(g)].item<float>();
    if (std::fabs(x - logit_threshold) < kCloseCallMargin) return true;
  }
  return false;
}

void report(const std::string& what, double value) {
  std::printf("[ measured ] %s: %.3g\n", what.c_str(), value);
  ::testing::Test::RecordProperty(what, std::to_string(value));
}

// Every stage, the packed logits and the embeddings of kWords equal LibTorch's.
void expect_layers_match(model::Morpheus m, const std::string& label) {
  const tokenizer::CharVocab chars = turkish_chars();
  const std::shared_ptr<const engine::Model> e = engine_of(m);
  ASSERT_NE(e, nullptr);
  const Batch b = make_batch(kWords, chars, true);
  const std::map<std::string, torch::Tensor> reference = torch_stages(m, b);
  engine::Forward forward(*e);
  engine::Trace trace;
  const double logit_threshold = engine::logit_of(m->config.threshold);
  std::vector<float> emb(kWords.size() * e->dim);
  forward.embeddings(b.pointers(), logit_threshold, engine::EmbeddingPooling::kMean, emb.data(),
                     &trace);
  for (const auto& [name, tensor] : reference) {
    if (name == "embeddings") continue;
    const engine::Trace::Stage* stage = trace.find(name);
    ASSERT_NE(stage, nullptr) << name;
    const double err = stage_error(*stage, tensor, b, name == "logits");
    report(label + " " + name, err);
    EXPECT_LE(err, kTolerance) << name;
  }
  // Embeddings of the words LibTorch decides clearly (a close call may flip a boundary).
  const torch::Tensor& ref = reference.at("embeddings");
  double worst = 0;
  size_t compared = 0;
  for (size_t i = 0; i < kWords.size(); ++i) {
    if (close_call(reference.at("logits"), b, i, logit_threshold, 0, 0)) continue;
    ++compared;
    for (size_t c = 0; c < e->dim; ++c) {
      const float x = ref[static_cast<int64_t>(i)][static_cast<int64_t>(c)].item<float>();
      worst = std::max(worst, static_cast<double>(std::fabs(x - emb[i * e->dim + c])));
    }
  }
  report(label + " embeddings (" + std::to_string(compared) + " words)", worst);
  EXPECT_GE(compared * 2, kWords.size());
  EXPECT_LE(worst, kTolerance);
  // The segmenter's packed path on lower-cased words.
  const Batch lower = make_batch(kWords, chars, false);
  torch::Tensor packed;
  {
    c10::InferenceMode inference;
    packed = model::boundary_logits(m, lower.ids, lower.ids.ne(model::kPadId)).clone();
  }
  std::vector<float> logits;
  engine::Trace packed_trace;
  forward.gap_logits(lower.pointers(), &logits, &packed_trace);
  const double err = stage_error(*packed_trace.find("logits"), packed, lower, true);
  report(label + " packed boundary logits", err);
  EXPECT_LE(err, kTolerance);
}

TEST(EngineParityTest, EveryStageMatchesLibTorchAtTheTinyConfig) {
  expect_layers_match(random_model(config_file("tiny.json", turkish_chars().size()), 1), "tiny");
}

TEST(EngineParityTest, EveryStageMatchesLibTorchAtThePaperConfig) {
  expect_layers_match(random_model(config_file("paper.json", turkish_chars().size()), 2), "paper");
}

TEST(EngineParityTest, WriterKeepsEveryTensorBitExact) {
  model::Morpheus m = random_model(config_file("tiny.json", turkish_chars().size()), 3);
  const std::string path = path_join(testing::make_temp_dir("parity"), tokenizer::kWeightsFile);
  ASSERT_TRUE(exporter::write_engine_weights(m, path).ok());
  StatusOr<std::unique_ptr<engine::WeightFile>> file = engine::WeightFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  size_t checked = 0;
  for (const auto& p : m->named_parameters()) {
    const engine::TensorView& view = (*file)->tensor(p.key());
    const torch::Tensor stored =
        torch::from_blob(const_cast<float*>(view.data), view.shape, torch::kFloat);
    EXPECT_TRUE(torch::equal(stored, p.value())) << p.key();
    ++checked;
  }
  // Besides the parameters, each attention layer has its two RoPE tables.
  const auto layers = static_cast<size_t>(m->config.n_layers_encoder + m->config.n_layers_detector);
  EXPECT_EQ(checked + 2 * layers, engine::expected_tensors((*file)->config()).size());
}

// Distinct letter runs of the UD dev sentences (lower-cased, or as written), in text order.
std::vector<std::string> ud_words(bool lower, size_t limit) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  std::vector<std::string> out;
  if (path.empty()) return out;
  StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return out;
  std::unordered_set<std::string> seen;
  std::string run;
  auto flush = [&] {
    if (!run.empty() && seen.insert(run).second && out.size() < limit) out.push_back(run);
    run.clear();
  };
  const std::u32string cps = utf8::decode(*text).value();
  for (char32_t c : cps) {
    if (unicode::is_letter(c)) {
      utf8::append(lower ? unicode::to_lower(c) : c, run);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

// Pieces of EngineSegmenter and NeuralSegmenter on `words` differ only on close calls.
void expect_same_segmentation(model::Morpheus m, const std::vector<std::string>& words,
                              const std::string& label) {
  const tokenizer::CharVocab chars = turkish_chars();
  NeuralSegmenterOptions options;
  options.cache_capacity = 0;
  const NeuralSegmenter torch_segmenter(m, chars, options);
  engine::EngineSegmenterOptions engine_options;
  engine_options.threads = 2;
  const engine::EngineSegmenter engine_segmenter(engine_of(m), chars, engine_options);
  const std::vector<std::vector<std::string>> expected = torch_segmenter.segment_many(words);
  const StatusOr<tokenizer::Segmentation> pieces = engine_segmenter.segment(words);
  ASSERT_TRUE(pieces.ok()) << pieces.status().to_string();
  size_t differ = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    if ((*pieces)[i] == expected[i]) continue;
    ++differ;
    EXPECT_LT(torch_segmenter.decision_margin(words[i]), kCloseCallMargin) << words[i];
  }
  report(label + " words segmented differently (all close calls)", static_cast<double>(differ));
  report(label + " words recomputed in double precision",
         static_cast<double>(engine_segmenter.counters().rechecked));
  EXPECT_LE(differ * 100, words.size());
}

TEST(EngineParityTest, SegmentationEqualsNeuralSegmenterAtTheTinyConfig) {
  const std::vector<std::string> words = ud_words(true, 2500);
  MORPHEUS_REQUIRE_DATA(words, "corpus/dev_ud_sentences.txt");
  ASSERT_GE(words.size(), 2000u);
  expect_same_segmentation(random_model(config_file("tiny.json", turkish_chars().size()), 4), words,
                           "tiny");
}

TEST(EngineParityTest, SegmentationEqualsNeuralSegmenterAtThePaperConfig) {
  const std::vector<std::string> words = ud_words(true, 2000);
  MORPHEUS_REQUIRE_DATA(words, "corpus/dev_ud_sentences.txt");
  ASSERT_GE(words.size(), 2000u);
  expect_same_segmentation(random_model(config_file("paper.json", turkish_chars().size()), 5),
                           words, "paper");
}

// A tiny model trained for 60 steps to cut before common suffixes: decisive logits, as a
// trained tokenizer's.
model::Morpheus trained_model(const std::vector<std::string>& words) {
  const tokenizer::CharVocab chars = turkish_chars();
  model::Morpheus m = random_model(config_file("tiny.json", chars.size()), 6);
  const std::vector<std::u32string> suffixes = {
      U"ler", U"lar", U"de",  U"da",   U"den",  U"dan", U"ın", U"in",  U"ım",  U"im", U"dı", U"di",
      U"yor", U"mış", U"miş", U"acak", U"ecek", U"lı",  U"li", U"sız", U"siz", U"ki", U"la", U"le"};
  m->train();
  torch::optim::Adam adam(m->parameters(), torch::optim::AdamOptions(3e-3));
  std::mt19937_64 rng(9);
  for (int step = 0; step < 60; ++step) {
    std::vector<std::string> batch;
    for (int i = 0; i < 96; ++i) batch.push_back(words[rng() % words.size()]);
    const Batch b = make_batch(batch, chars, false);
    torch::Tensor labels = torch::zeros({b.ids.size(0), b.ids.size(1) - 1});
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::u32string w = letters_of(batch[i]).lower;
      for (size_t r = 2; r < w.size(); ++r) {
        for (const std::u32string& s : suffixes) {
          if (w.compare(r, s.size(), s) == 0)
            labels[static_cast<int64_t>(i)][static_cast<int64_t>(r)] = 1.0f;
        }
      }
    }
    const torch::Tensor mask = b.ids.ne(model::kPadId);
    const model::DetectorOutput out =
        m->boundary_detector(m->char_encoder(b.ids, b.cases, mask), mask);
    const torch::Tensor weight = model::gap_mask(mask).to(torch::kFloat);
    torch::Tensor loss = torch::zeros({});
    for (const torch::Tensor& logits : out.layer_logits) {
      loss = loss + torch::binary_cross_entropy_with_logits(logits, labels, weight);
    }
    adam.zero_grad();
    loss.backward();
    adam.step();
  }
  m->eval();
  return m;
}

TEST(EngineParityTest, TrainedModelMatchesAtEveryStageAndSegmentation) {
  const std::vector<std::string> words = ud_words(true, 2500);
  MORPHEUS_REQUIRE_DATA(words, "corpus/dev_ud_sentences.txt");
  ASSERT_GE(words.size(), 2000u);
  model::Morpheus m = trained_model(words);
  expect_layers_match(m, "trained");
  expect_same_segmentation(m, words, "trained");
}

// The engine's word vectors in `pooling` equal NeuralSegmenter::embed's (LibTorch) within
// kTolerance, part by part.
void expect_same_embeddings(engine::EmbeddingPooling pooling) {
  std::vector<std::string> words = ud_words(false, 600);
  MORPHEUS_REQUIRE_DATA(words, "corpus/dev_ud_sentences.txt");
  words.push_back("Muvaffakiyetsizleştiricileştiriveremeyebileceklerimizdenmişsinizcesine");
  words.push_back("");
  const tokenizer::CharVocab chars = turkish_chars();
  model::Morpheus m = trained_model(ud_words(true, 2500));
  NeuralSegmenterOptions options;
  options.embedding = pooling;
  const NeuralSegmenter torch_segmenter(m, chars, options);
  engine::EngineSegmenter engine_segmenter(engine_of(m), chars);
  ASSERT_TRUE(engine_segmenter.set_embedding_layout(torch_segmenter.embedding_layout()).ok());
  const torch::Tensor expected = torch_segmenter.embed(words);
  const std::vector<float> rows = engine_segmenter.embed(words);
  const size_t d = engine_segmenter.embedding_dim(), chunk = engine_segmenter.max_chunk_chars();
  ASSERT_EQ(expected.size(1), static_cast<int64_t>(d));
  // Words with a close call in some chunk are left out (a boundary may flip there).
  const double logit_threshold = engine::logit_of(m->config.threshold);
  std::vector<bool> compare(words.size(), false);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::u32string cps = *utf8::decode(words[i]);
    bool close = false;
    for (size_t begin = 0; begin < cps.size(); begin += chunk) {
      const Batch b = make_batch({utf8::encode(cps.substr(begin, chunk))}, chars, true);
      torch::NoGradGuard no_grad;
      const torch::Tensor mask = b.ids.ne(model::kPadId);
      const torch::Tensor logits =
          m->boundary_detector(m->char_encoder(b.ids, b.cases, mask), mask).logits;
      close = close || close_call(logits, b, 0, logit_threshold, 0, 0);
    }
    compare[i] = !close;
  }
  const size_t compared = static_cast<size_t>(std::count(compare.begin(), compare.end(), true));
  EXPECT_GE(compared * 10, words.size() * 9);
  for (const engine::EmbeddingPart& part : engine_segmenter.embedding_layout().parts()) {
    double worst = 0;
    for (size_t i = 0; i < words.size(); ++i) {
      for (size_t c = part.offset; compare[i] && c < part.offset + part.dim; ++c) {
        const float x = expected[static_cast<int64_t>(i)][static_cast<int64_t>(c)].item<float>();
        worst = std::max(worst, static_cast<double>(std::fabs(x - rows[i * d + c])));
      }
    }
    report("trained embeddings, part " + part.name + " (" + std::to_string(compared) + " words)",
           worst);
    EXPECT_LE(worst, kTolerance) << part.name;
  }
}

TEST(EngineParityTest, EmbeddingsEqualNeuralSegmenterEmbed) {
  expect_same_embeddings(engine::EmbeddingPooling::kMean);
}

TEST(EngineParityTest, RootInflectionPartsEqualNeuralSegmenterEmbed) {
  expect_same_embeddings(engine::EmbeddingPooling::kRootInflection);
}

}  // namespace
}  // namespace morpheus::infer
