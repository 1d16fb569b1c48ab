// SPDX-License-Identifier: MIT
// Tests of the Morpheus tokenizer with its model in process (infer/tokenizer_model.h,
// infer/neural_segmenter.h, exporter/torch/export.h) on tiny randomly initialised models: chunking,
// the LRU cache, export (segment table, lazy model, root snap), the lossless round trip on 100,000
// random strings and on the UD dev sentences, self-test and checksum failures on swapped
// weights/vocabulary, and embeddings.
#include "infer/tokenizer_model.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "engine/directory.h"
#include "exporter/torch/export.h"
#include "model/checkpoint.h"
#include "morph/root_snap.h"
#include "tests/support/test_support.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_file.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::infer {
namespace {

using exporter::export_tokenizer;
using exporter::ExportOptions;
using exporter::upgrade_tokenizer;
using tokenizer::SegmentedWord;
using tokenizer::SegmentTable;

namespace fs = std::filesystem;

const char kAlphabet[] = "abcçdefgğhıijklmnoöprsştuüvyzqwxâîû";

tokenizer::CharVocab tiny_chars() {
  std::unordered_map<char32_t, uint64_t> counts;
  const std::u32string letters = *utf8::decode(kAlphabet);
  uint64_t n = 1000;
  for (char32_t c : letters) counts[c] = n--;
  return tokenizer::CharVocab::build(counts, 1.0, 1, letters);
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
  const tokenizer::CharVocab chars = tiny_chars();
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
  options.writer.words = write_words(root);
  options.writer.out = path_join(root, "tok" + std::to_string(seed));
  options.writer.vocab_size = vocab_size;
  const Status s = export_tokenizer(options);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return options.writer.out;
}

// The model and character vocabulary of the tokenizer directory `dir`.
void load_model(const std::string& dir, model::Morpheus* model, tokenizer::CharVocab* chars) {
  StatusOr<model::Morpheus> m = model::load_inference_checkpoint(path_join(dir, "model"));
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  StatusOr<tokenizer::CharVocab> c = tokenizer::CharVocab::load(path_join(dir, "char_vocab.json"));
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  *model = std::move(*m);
  *chars = std::move(*c);
}

const NeuralSegmenter& model_ok(const tokenizer::Tokenizer& tok) {
  StatusOr<const NeuralSegmenter*> seg = neural_model(tok);
  EXPECT_TRUE(seg.ok()) << seg.status().to_string();
  return **seg;
}

// Sets the checksum of `relative` in dir/morpheus.json to the file's current checksum.
void update_checksum(const std::string& dir, const std::string& relative) {
  nlohmann::json config = nlohmann::json::parse(*read_file(path_join(dir, "morpheus.json")));
  config["files"][relative] = *file_checksum(path_join(dir, relative));
  ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump(2)).ok());
}

// The text of `ids` (empty when they do not decode: the caller compares it).
std::string decoded(const tokenizer::Tokenizer& tok, const std::vector<int32_t>& ids) {
  std::string text;
  EXPECT_TRUE(tok.decode(ids, &text).ok());
  return text;
}

std::unique_ptr<tokenizer::Tokenizer> load_ok(const std::string& dir) {
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok = load_with_model(dir);
  EXPECT_TRUE(tok.ok()) << tok.status().to_string();
  return tok.ok() ? std::move(*tok) : nullptr;
}

class TokenizerModelTest : public ::testing::Test {
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
std::string* TokenizerModelTest::root_ = nullptr;
std::string* TokenizerModelTest::tok_dir_ = nullptr;

TEST_F(TokenizerModelTest, ExportWritesAVersionedDirectory) {
  for (const char* f : {"morpheus.json", "pieces.json", "segments.bin", "char_vocab.json",
                        "words.tsv", "model/model.pt", "model/config.json"}) {
    EXPECT_TRUE(file_exists(path_join(*tok_dir_, f))) << f;
  }
  const std::string config = *read_file(path_join(*tok_dir_, "morpheus.json"));
  EXPECT_NE(config.find("\"format_version\": 4"), std::string::npos);
  EXPECT_NE(config.find("\"model_self_test\""), std::string::npos);
  EXPECT_NE(config.find("\"self_test\""), std::string::npos);
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  EXPECT_LE(tok->vocab_size(), 600);
  EXPECT_GE(tok->piece_to_id("ş"), tokenizer::PieceCodec::kFirstPieceId);  // base letters
  // The default special tokens close the vocabulary, in order.
  EXPECT_EQ(tok->special_tokens(), tokenizer::default_special_tokens());
  EXPECT_EQ(tok->pad_id(), tok->vocab_size() - 4);
  EXPECT_EQ(tok->bos_id(), tok->vocab_size() - 3);
  EXPECT_EQ(tok->eos_id(), tok->vocab_size() - 2);
  EXPECT_EQ(tok->mask_id(), tok->vocab_size() - 1);
}

TEST_F(TokenizerModelTest, ExportOverAnOlderDirectoryLeavesOneConfig) {
  // A directory of an older export (config named tokenizer.json) loads, model included; an
  // export into it replaces the whole directory, so only morpheus.json is left.
  const std::string dir = path_join(*root_, "older");
  fs::copy(*tok_dir_, dir, fs::copy_options::recursive);
  fs::rename(path_join(dir, "morpheus.json"), path_join(dir, "tokenizer.json"));
  std::unique_ptr<tokenizer::Tokenizer> old = load_ok(dir);
  ASSERT_NE(old, nullptr);
  EXPECT_TRUE(neural_model(*old).ok());
  old.reset();
  ExportOptions options;
  options.checkpoint = path_join(*root_, "ckpt7");
  options.writer.words = path_join(*root_, "words.tsv");
  options.writer.out = dir;
  options.writer.vocab_size = 600;
  ASSERT_TRUE(export_tokenizer(options).ok());
  EXPECT_TRUE(file_exists(path_join(dir, "morpheus.json")));
  EXPECT_FALSE(file_exists(path_join(dir, "tokenizer.json")));
  EXPECT_NE(load_ok(dir), nullptr);
}

TEST_F(TokenizerModelTest, SelfTestHasModelDependentSamples) {
  const std::string config = *read_file(path_join(*tok_dir_, "morpheus.json"));
  // More than the fixed multi-script sample: words whose segmentation the model decides.
  size_t samples = 0;
  for (size_t p = config.find("\"text\""); p != std::string::npos;
       p = config.find("\"text\"", p + 1)) {
    ++samples;
  }
  EXPECT_GE(samples, 3u);
}

TEST_F(TokenizerModelTest, LongRunsAreChunkedNeverDropped) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const std::string word = "kitaplarımızdanmışsınızcasınaçekoslovakyalılaştıramadıklarımızdan";
  const std::vector<std::string> pieces = model_ok(*tok).segment(word);
  std::string joined;
  std::vector<size_t> ends;
  for (const std::string& p : pieces) {
    joined += p;
    ends.push_back(utf8::length(joined));
  }
  EXPECT_EQ(joined, word);
  const size_t chunk = static_cast<size_t>(model_ok(*tok).max_chunk_chars());
  for (size_t end = chunk; end < utf8::length(word); end += chunk) {
    EXPECT_NE(std::find(ends.begin(), ends.end(), end), ends.end())
        << "no cut at chunk end " << end;
  }
}

TEST_F(TokenizerModelTest, LruCacheIsBoundedAndHit) {
  model::Morpheus m{nullptr};
  tokenizer::CharVocab chars;
  ASSERT_NO_FATAL_FAILURE(load_model(*tok_dir_, &m, &chars));
  NeuralSegmenterOptions options;
  options.cache_capacity = 2;
  NeuralSegmenter seg(m, chars, options);
  seg.segment_many({"evler", "kediler", "evler"});  // de-duplicated within the request
  EXPECT_EQ(seg.model_chunks(), 2u);
  seg.segment("kediler");
  EXPECT_EQ(seg.cache_hits(), 1u);
  seg.segment("okullar");  // evicts "evler" (least recent)
  seg.segment("evler");
  EXPECT_EQ(seg.model_chunks(), 4u);
}

TEST_F(TokenizerModelTest, BatchedSegmentationMatchesSingleWords) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const std::vector<std::string> words = {"ev", "evlerimizden", "kitaplarımızdan", "göz",
                                          "şehirlerimizdekilerden"};
  const auto batched = model_ok(*tok).segment_many(words);
  for (size_t i = 0; i < words.size(); ++i) {
    // Words far from the threshold must not depend on the batch they ran in.
    if (model_ok(*tok).decision_margin(words[i]) < 1e-3f) continue;
    StatusOr<std::unique_ptr<tokenizer::Tokenizer>> fresh =
        tokenizer::Tokenizer::load(*tok_dir_, false, in_process_model({}));
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(model_ok(**fresh).segment(words[i]), batched[i]) << words[i];
  }
}

TEST_F(TokenizerModelTest, BoundaryProbabilitiesGiveTheSegmentationCuts) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const NeuralSegmenter& seg = model_ok(*tok);
  const std::string long_word = "kitaplarımızdanmışsınızcasınaçekoslovakyalılaştıramadıklarımızdan";
  const std::vector<std::string> words = {"ev", "evlerimizden", "kitaplarımızdan", "a", long_word};
  const std::vector<std::vector<float>> probs = seg.boundary_probabilities(words);
  ASSERT_EQ(probs.size(), words.size());
  const double threshold = seg.config().threshold;
  for (size_t i = 0; i < words.size(); ++i) {
    ASSERT_EQ(probs[i].size(), utf8::length(words[i]) - 1) << words[i];
    if (seg.decision_margin(words[i]) < 1e-3f) continue;
    std::vector<size_t> from_probs, from_pieces;
    for (size_t r = 0; r < probs[i].size(); ++r) {
      EXPECT_GE(probs[i][r], 0.0f);
      EXPECT_LE(probs[i][r], 1.0f);
      if (probs[i][r] > threshold) from_probs.push_back(r + 1);
    }
    std::string joined;
    const std::vector<std::string> pieces = seg.segment(words[i]);
    for (size_t k = 0; k + 1 < pieces.size(); ++k) {
      joined += pieces[k];
      from_pieces.push_back(utf8::length(joined));
    }
    EXPECT_EQ(from_probs, from_pieces) << words[i];
  }
  const size_t chunk = static_cast<size_t>(seg.max_chunk_chars());
  EXPECT_EQ(probs.back()[chunk - 1], 1.0f) << "the gap between two chunks is always a cut";
}

// Cuts a run after every code point whose value is divisible by 3 (cheap, deterministic, and
// mostly pieces outside the vocabulary: exercises the back-off).
class HashSegmenter : public tokenizer::WordSegmenter {
 public:
  std::string name() const override { return "hash"; }
  std::vector<std::string> cut(std::string_view run) const override {
    std::vector<std::string> pieces(1);
    const std::u32string cps = *utf8::decode(run);  // not a range over a temporary StatusOr
    for (char32_t c : cps) {
      utf8::append(c, pieces.back());
      if (c % 3 == 0) pieces.emplace_back();
    }
    if (pieces.back().empty()) pieces.pop_back();
    return pieces;
  }
};

void expect_round_trips(const tokenizer::Tokenizer& tok, size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr size_t kBlock = 5000;
  size_t checked = 0;
  std::vector<int32_t> ids;
  std::string back;
  for (size_t b = 0; b < count; b += kBlock) {
    std::vector<std::string> texts;
    for (size_t i = 0; i < std::min(kBlock, count - b); ++i) {
      texts.push_back(testing::random_text(rng));
    }
    ASSERT_TRUE(tok.prefetch(texts).ok());
    for (const std::string& text : texts) {
      ids.clear();
      const Status s = tok.encode(text, &ids, false);
      ASSERT_TRUE(s.ok()) << s.to_string();
      back.clear();
      ASSERT_TRUE(tok.decode(ids, &back).ok());
      ASSERT_EQ(back, text);
      ++checked;
    }
  }
  EXPECT_EQ(checked, count);
}

TEST_F(TokenizerModelTest, RoundTripOn100000RandomStrings) {
  // The exported table and vocabulary; runs outside the table go to a cheap stand-in segmenter
  // (losslessness does not depend on where the model cuts; the model path is tested below). The
  // stand-in is not the exported model: a copy without the model self-test lets it in.
  const std::string dir = path_join(*root_, "stand_in");
  fs::copy(*tok_dir_, dir, fs::copy_options::recursive);
  StatusOr<nlohmann::json> config = load_json_file(path_join(dir, "morpheus.json"));
  ASSERT_TRUE(config.ok());
  config->erase("model_self_test");
  ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config->dump(2)).ok());
  int created = 0;
  tokenizer::register_segmenter("test-hash", [&created](const tokenizer::SegmenterSpec&) {
    ++created;
    return StatusOr<std::unique_ptr<tokenizer::Segmenter>>(std::make_unique<HashSegmenter>());
  });
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok =
      tokenizer::Tokenizer::load(dir, true, tokenizer::SegmenterSpec{"test-hash", ""});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  expect_round_trips(**tok, 100000, 20261122);
  EXPECT_EQ(created, 1);
  EXPECT_GT((*tok)->model_runs(), 10000u);  // the stand-in really segmented the misses
  EXPECT_GT((*tok)->table_hits(), 0u);      // and the table answered the exported runs
}

TEST_F(TokenizerModelTest, RoundTripOnRandomStringsThroughTheModel) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  expect_round_trips(*tok, 3000, 11);
  EXPECT_GT(model_ok(*tok).model_chunks(), 1000u);  // the model really segmented the runs
}

TEST_F(TokenizerModelTest, ExportedRunsNeedNoModel) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  std::vector<int32_t> ids;
  const std::string text = "Kitaplarımızdan EVLER, okulda: 3,5 çocuk!";
  ASSERT_TRUE(tok->prefetch({text}).ok());
  ASSERT_TRUE(tok->encode(text, &ids, false).ok());
  EXPECT_EQ(decoded(*tok, ids), text);
  EXPECT_FALSE(tok->model_created());
  EXPECT_EQ(tok->model_runs(), 0u);
  ASSERT_TRUE(tok->encode("zzqxw", &ids, false).ok());  // not in the table: loads the model
  EXPECT_TRUE(tok->model_created());
  EXPECT_EQ(tok->model_runs(), 1u);
}

TEST_F(TokenizerModelTest, TableHoldsTheModelSegmentationOfEveryExportedRun) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const SegmentTable& table = tok->table();
  ASSERT_GT(table.size(), 100u);
  std::vector<std::string> runs;
  std::vector<std::vector<std::string>> stored;
  for (size_t i = 0; i < table.size(); ++i) {
    std::string run;
    std::vector<std::string> pieces;
    std::string_view record = table.record(i);
    for (size_t b = 0; b <= record.size();) {
      size_t e = record.find(' ', b);
      if (e == std::string_view::npos) e = record.size();
      pieces.emplace_back(record.substr(b, e - b));
      run += pieces.back();
      b = e + 1;
    }
    runs.push_back(run);
    stored.push_back(pieces);
  }
  const auto fresh = model_ok(*tok).segment_many(runs);
  size_t same = 0;
  for (size_t i = 0; i < runs.size(); ++i) same += fresh[i] == stored[i] ? 1 : 0;
  // Batching can flip gaps within float noise of the threshold; nearly all must agree.
  EXPECT_GE(same * 100, runs.size() * 99) << same << " of " << runs.size();
}

TEST_F(TokenizerModelTest, RootSnapCutsTheTableAndTheModelAlike) {
  const std::string roots = path_join(*root_, "roots.txt");
  const std::string suffixes = path_join(*root_, "suffixes.txt");
  ASSERT_TRUE(write_file_atomic(roots, "kitap NOUN\nçocuk NOUN\nşehir NOUN\nçilingir NOUN\n").ok());
  ASSERT_TRUE(write_file_atomic(suffixes, "lar\nlarımızdan\nlarda\nlerde\n").ok());
  ExportOptions options;
  options.checkpoint = path_join(*root_, "ckpt7");
  options.writer.words = path_join(*root_, "words.tsv");
  options.writer.out = path_join(*root_, "tok7-snap");
  options.writer.vocab_size = 600;
  options.writer.root_snap = true;
  options.writer.root_lexicon = roots;
  options.writer.suffix_lexicon = suffixes;
  ASSERT_TRUE(export_tokenizer(options).ok());
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(options.writer.out);
  ASSERT_NE(tok, nullptr);
  StatusOr<morph::RootLexicon> lexicon = morph::RootLexicon::load(roots, suffixes);
  ASSERT_TRUE(lexicon.ok());
  // Exported words (table) and a word only the model sees, all cut at the root end.
  // Dictionary roots no exported word holds are vocabulary pieces too (no back-off inside them).
  EXPECT_GE(tok->piece_to_id("çilingir"), tokenizer::PieceCodec::kFirstPieceId);
  for (const std::string word :
       {"kitaplar", "çocuklarımızdan", "kitaplarda", "şehirlerde", "çilingirlerde"}) {
    std::vector<std::string> stored;
    const bool in_table = tok->table().lookup(word, &stored);
    EXPECT_EQ(in_table, word == "kitaplar" || word == "çocuklarımızdan") << word;
    StatusOr<std::vector<std::string>> pieces = tok->segment(word);
    ASSERT_TRUE(pieces.ok()) << pieces.status().to_string();
    const std::string root = word.substr(0, std::min(word.rfind("lar"), word.rfind("ler")));
    EXPECT_EQ(pieces->front(), root) << word;
    // The model's pieces (stage 3) get the root end from the snap (stage 4), before back-off.
    EXPECT_EQ(morph::snap_pieces(*lexicon, model_ok(*tok).segment(word)).front(), root) << word;
    if (in_table) {
      EXPECT_EQ(stored, *pieces) << word;
    }
  }
  // A directory exported under another snap rule is refused: its table holds that rule's cuts.
  const std::string config_path = path_join(options.writer.out, "morpheus.json");
  StatusOr<nlohmann::json> config = load_json_file(config_path);
  ASSERT_TRUE(config.ok());
  config->erase("root_snap_rule");  // directories exported before the rule was recorded: rule 1
  ASSERT_TRUE(write_file_atomic(config_path, config->dump(2)).ok());
  const StatusOr<const NeuralSegmenter*> old_rule = neural_model(*load_ok(options.writer.out));
  ASSERT_FALSE(old_rule.ok());
  EXPECT_NE(old_rule.status().to_string().find("root-snap rule 1"), std::string::npos);
  (*config)["root_snap_rule"] = morph::kRootSnapRule;
  ASSERT_TRUE(write_file_atomic(config_path, config->dump(2)).ok());
  EXPECT_TRUE(neural_model(*load_ok(options.writer.out)).ok());
  // The lexicons are part of the checksummed directory.
  ASSERT_TRUE(write_file_atomic(path_join(options.writer.out, "root_snap/roots.txt"), "ev\n").ok());
  std::unique_ptr<tokenizer::Tokenizer> damaged = load_ok(options.writer.out);
  ASSERT_NE(damaged, nullptr);
  EXPECT_FALSE(neural_model(*damaged).ok());
}

TEST_F(TokenizerModelTest, TextGivesTheApostrophePieces) {
  const std::string text = path_join(*root_, "text.txt");
  ASSERT_TRUE(write_file_atomic(text, "Ankara'nın evleri\nANKARA'NIN\n1990'nın 3'ü\n").ok());
  for (const bool with_text : {true, false}) {
    ExportOptions options;
    options.checkpoint = path_join(*root_, "ckpt7");
    options.writer.words = path_join(*root_, "words.tsv");
    options.writer.text = with_text ? text : "";
    options.writer.out = path_join(*root_, with_text ? "tok7-text" : "tok7-notext");
    options.writer.vocab_size = 600;
    ASSERT_TRUE(export_tokenizer(options).ok());
    std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(options.writer.out);
    ASSERT_NE(tok, nullptr);
    const tokenizer::Tokenizer& codec = *tok;
    // Counted once per occurrence: 3 >= min_count 2, "'ü" (1) is not kept.
    EXPECT_EQ(codec.piece_to_id("'nın") >= 0, with_text);
    EXPECT_EQ(codec.piece_to_id("ankara") >= 0, with_text);
    EXPECT_LT(codec.piece_to_id("'ü"), 0);
    // From the word types: İstanbul'da.
    EXPECT_GE(codec.piece_to_id("'da"), 0);
    EXPECT_GE(codec.piece_to_id("istanbul"), 0);
    if (with_text) {
      EXPECT_EQ(tok->segment("Ankara'nın").value(), (std::vector<std::string>{"Ankara", "'nın"}));
    }
    EXPECT_EQ(tok->segment("İstanbul'da").value(), (std::vector<std::string>{"İstanbul", "'da"}));
  }
}

// The [begin, end) byte spans of `pieces`, laid end to end.
std::vector<std::pair<size_t, size_t>> piece_spans(const std::vector<std::string>& pieces) {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t pos = 0;
  for (const std::string& p : pieces) {
    spans.emplace_back(pos, pos + p.size());
    pos += p.size();
  }
  return spans;
}

TEST_F(TokenizerModelTest, OutOfVocabularyPiecesBackOffToVocabularyPieces) {
  // A vocabulary too small for the model's pieces: the ids split them into vocabulary pieces
  // inside the model's piece (never across its boundaries), not into single characters; an id
  // that spans more than one model piece joins whole ones (a merge). segment shows the model's.
  const std::string dir = export_tiny(testing::make_temp_dir("neural_small_vocab"), 7, 259 + 60);
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(dir);
  ASSERT_NE(tok, nullptr);
  size_t backed_off = 0;  // multi-character ids inside model pieces outside the vocabulary
  for (const SegmentedWord& entry : tok->table().entries()) {
    EXPECT_EQ(tok->segment(entry.word).value(), entry.pieces) << entry.word;
    std::vector<int32_t> ids;
    ASSERT_TRUE(tok->encode(entry.word, &ids, false).ok()) << entry.word;
    std::vector<std::string> pieces;  // the ids' pieces: vocabulary pieces (no byte ids)
    for (const int32_t id : ids) {
      EXPECT_GE(id, tokenizer::PieceCodec::kFirstPieceId) << entry.word;
      pieces.push_back(tok->id_to_piece(id));
    }
    if (!pieces.empty() && pieces[0][0] == ' ') pieces[0].erase(0, 1);  // the implicit space
    std::string spelled;
    for (const std::string& p : pieces) spelled += p;
    ASSERT_EQ(spelled, entry.word);
    const auto model = piece_spans(entry.pieces);
    for (const auto& [begin, end] : piece_spans(pieces)) {
      const auto m = std::find_if(model.begin(), model.end(),
                                  [b = begin](const auto& span) { return span.second > b; });
      ASSERT_NE(m, model.end());
      const bool inside = m->first <= begin && end <= m->second;
      const bool whole = m->first == begin &&
                         std::any_of(model.begin(), model.end(),
                                     [e = end](const auto& span) { return span.second == e; });
      EXPECT_TRUE(inside || whole) << entry.word << ": " << begin << "-" << end;
      const std::string model_piece = entry.word.substr(m->first, m->second - m->first);
      if (inside && end - begin < model_piece.size() && utf8::length(model_piece) > 1 &&
          tok->piece_to_id(model_piece) < 0 &&
          utf8::length(entry.word.substr(begin, end - begin)) > 1) {
        ++backed_off;
      }
    }
  }
  EXPECT_FALSE(tok->model_created());
  EXPECT_GT(backed_off, 0u);
}

TEST_F(TokenizerModelTest, RoundTripOnEveryDevSentence) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/dev_ud_sentences.txt");
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  LineReader reader;
  ASSERT_TRUE(reader.open(path).ok());
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(&line)) lines.push_back(line);
  ASSERT_TRUE(reader.status().ok());
  ASSERT_GT(lines.size(), 100u);
  ASSERT_TRUE(tok->prefetch(lines).ok());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<int32_t> ids;
    const Status s = tok->encode(lines[i], &ids, false);
    ASSERT_TRUE(s.ok()) << "line " << i + 1 << ": " << s.to_string();
    ASSERT_EQ(decoded(*tok, ids), lines[i]) << "line " << i + 1;
  }
}

// The distinct lower-cased words of the UD dev sentences (real Turkish word shapes).
std::vector<std::string> dev_words(size_t limit) {
  std::vector<std::string> words;
  LineReader reader;
  if (!reader.open(testing::shared_data_file("corpus/dev_ud_sentences.txt")).ok()) return words;
  std::unordered_set<std::string> seen;
  std::string line;
  while (reader.next(&line) && words.size() < limit) {
    std::vector<tokenizer::Span> spans;
    tokenizer::pretokenize_into(line, spans);
    for (const tokenizer::Span& s : spans) {
      if (s.kind != tokenizer::SpanKind::kLetter) continue;
      std::string w = unicode::to_lower(std::string(s.text(line)));
      if (seen.insert(w).second) words.push_back(std::move(w));
    }
  }
  return words;
}

TEST_F(TokenizerModelTest, Int8SegmentationAgreesWithFloatOnTheDevWords) {
  MORPHEUS_REQUIRE_DATA(testing::shared_data_file("corpus/dev_ud_sentences.txt"),
                        "corpus/dev_ud_sentences.txt");
  const std::vector<std::string> words = dev_words(5000);
  ASSERT_GE(words.size(), 5000u);
  model::Morpheus m{nullptr};
  tokenizer::CharVocab chars;
  ASSERT_NO_FATAL_FAILURE(load_model(*tok_dir_, &m, &chars));
  NeuralSegmenterOptions options;
  options.cache_capacity = 0;
  const NeuralSegmenter float_seg(m, chars, options);
  options.int8 = true;
  const NeuralSegmenter int8_seg(m, chars, options);
  ASSERT_TRUE(int8_seg.int8()) << int8_seg.int8_status().to_string();
  EXPECT_FALSE(float_seg.int8());
  const auto want = float_seg.segment_many(words);
  const auto got = int8_seg.segment_many(words);
  size_t same = 0;
  for (size_t i = 0; i < words.size(); ++i) same += want[i] == got[i] ? 1 : 0;
  EXPECT_GE(static_cast<double>(same), 0.999 * static_cast<double>(words.size()))
      << same << " of " << words.size() << " words segment as in float";
  // The guard sent the close calls back to float, and only those.
  EXPECT_GT(int8_seg.int8_rechecks(), 0u);
  EXPECT_LT(int8_seg.int8_rechecks(), int8_seg.model_chunks() / 2);
  // The float segmenter sharing the model is untouched by the packed layers.
  EXPECT_EQ(float_seg.segment_many(words), want);
}

TEST_F(TokenizerModelTest, InvalidUtf8IsAnErrorWithOffsetOrByteTokens) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const std::string bad = std::string("evler") + '\xC3' + "de";
  std::vector<int32_t> ids;
  const Status s = tok->encode(bad, &ids, false);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("5"), std::string::npos) << s.message();
  ids.clear();
  ASSERT_TRUE(tok->encode(bad, &ids, true).ok());
  EXPECT_EQ(decoded(*tok, ids), bad);
}

TEST_F(TokenizerModelTest, SwappedWeightsFailTheChecksumThenTheSelfTest) {
  const std::string other = export_tiny(*root_, 8);
  const std::string victim = path_join(*root_, "swapped_weights");
  fs::copy(*tok_dir_, victim, fs::copy_options::recursive);
  // With its meta.json (the checkpoint's own model.pt checksum), so that the tokenizer's checksum
  // and then the model self-test, not the checkpoint loader, catch it.
  for (const char* f : {"model/model.pt", "model/meta.json"}) {
    fs::copy_file(path_join(other, f), path_join(victim, f), fs::copy_options::overwrite_existing);
  }
  {
    // The table still serves exported runs; the model fails when first needed.
    std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(victim);
    ASSERT_NE(tok, nullptr);
    const StatusOr<const NeuralSegmenter*> seg = neural_model(*tok);
    ASSERT_FALSE(seg.ok());
    EXPECT_EQ(seg.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(seg.status().message().find("model.pt"), std::string::npos)
        << seg.status().to_string();
    std::vector<int32_t> ids;
    EXPECT_EQ(tok->encode("zzqxw", &ids, false).code(), StatusCode::kDataLoss);
  }
  // With a matching checksum (e.g. edited by hand), the model self-test catches the weights.
  update_checksum(victim, "model/model.pt");
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(victim);
  ASSERT_NE(tok, nullptr);
  const StatusOr<const NeuralSegmenter*> seg = neural_model(*tok);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(seg.status().message().find("model self-test"), std::string::npos)
      << seg.status().to_string();
}

TEST_F(TokenizerModelTest, SwappedVocabularyFailsToLoad) {
  // The vocabulary of another export (pieces.json and its image pieces.bin): caught by the
  // checksums, and with matching checksums by the size check or the table self-test.
  const std::string other = export_tiny(*root_, 9);
  const std::string victim = path_join(*root_, "swapped_vocab");
  fs::copy(*tok_dir_, victim, fs::copy_options::recursive);
  for (const char* f : {tokenizer::kPiecesFile, tokenizer::kPiecesImageFile}) {
    fs::copy_file(path_join(other, f), path_join(victim, f), fs::copy_options::overwrite_existing);
    StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok = load_with_model(victim);
    ASSERT_FALSE(tok.ok()) << f;
    EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss) << tok.status().to_string();
    EXPECT_NE(tok.status().message().find("checksum"), std::string::npos);
    update_checksum(victim, f);
  }
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok = load_with_model(victim);
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss) << tok.status().to_string();
}

TEST_F(TokenizerModelTest, SwappedTableFailsTheChecksum) {
  const std::string other = export_tiny(*root_, 10);
  const std::string victim = path_join(*root_, "swapped_table");
  fs::copy(*tok_dir_, victim, fs::copy_options::recursive);
  fs::copy_file(path_join(other, "segments.bin"), path_join(victim, "segments.bin"),
                fs::copy_options::overwrite_existing);
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok = load_with_model(victim);
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss) << tok.status().to_string();
  EXPECT_NE(tok.status().message().find("segments.bin"), std::string::npos);
}

TEST_F(TokenizerModelTest, EmbeddingsHaveOneFiniteRowPerWord) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_ok(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  const torch::Tensor e = model_ok(*tok).embed(
      {"Evler", "kitaplarımızdanmışsınızcasınaçekoslovakyalılaştıramadıklarımızdan", "", "göz"});
  ASSERT_EQ(e.size(0), 4);
  EXPECT_EQ(e.size(1), 3 * 32);  // export's root-inflection layout: root [D] | inflection [2D]
  EXPECT_TRUE(torch::isfinite(e).all().item<bool>());
  EXPECT_EQ(e[2].abs().sum().item<float>(), 0.0f);
  EXPECT_GT(e[1].abs().sum().item<float>(), 0.0f);
  for (int64_t w : {0, 1, 3}) {  // a unit root block
    EXPECT_NEAR(e[w].narrow(0, 0, 32).norm().item<float>(), 1.0f, 1e-5) << w;
  }
}

}  // namespace
}  // namespace morpheus::infer

namespace morpheus::infer {
namespace {

// The tokenizer at `dir` with its model on the engine (`threads` per call).
std::unique_ptr<tokenizer::Tokenizer> load_engine(const std::string& dir, size_t threads = 1) {
  StatusOr<std::unique_ptr<tokenizer::Tokenizer>> tok =
      tokenizer::Tokenizer::load(dir, true, engine::engine_model_spec(threads));
  EXPECT_TRUE(tok.ok()) << tok.status().to_string();
  return tok.ok() ? std::move(*tok) : nullptr;
}

// The runs of the segment table and their stored pieces.
void table_runs(const SegmentTable& table, std::vector<std::string>* runs,
                std::vector<std::vector<std::string>>* stored) {
  for (SegmentedWord& entry : table.entries()) {
    runs->push_back(std::move(entry.word));
    stored->push_back(std::move(entry.pieces));
  }
}

// Texts of new letter runs (none in the tiny table), some long enough to be chunked.
std::vector<std::string> new_texts() {
  std::vector<std::string> texts;
  std::mt19937_64 rng(5);
  const std::u32string letters = *utf8::decode(kAlphabet);
  for (int i = 0; i < 300; ++i) {
    std::u32string word;
    const size_t n = 2 + rng() % (i % 10 == 0 ? 40 : 12);
    for (size_t k = 0; k < n; ++k) word += letters[rng() % letters.size()];
    texts.push_back((i % 3 == 0 ? "Bu " : "") + utf8::encode(word) + (i % 4 == 0 ? "." : ""));
  }
  return texts;
}

TEST_F(TokenizerModelTest, EngineCutsEveryExportedRunAsTheTableHoldsIt) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_engine(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  std::vector<std::string> runs;
  std::vector<std::vector<std::string>> stored;
  table_runs(tok->table(), &runs, &stored);
  ASSERT_GT(runs.size(), 100u);
  StatusOr<const engine::EngineSegmenter*> model = engine::engine_model(*tok);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const StatusOr<tokenizer::Segmentation> fresh = (*model)->segment(runs);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(*fresh, stored);  // one engine for the table and the new words: no disagreement
}

TEST_F(TokenizerModelTest, EngineTokenizerGivesTheSameIdsAtAnyThreadCountAndOrder) {
  const std::vector<std::string> texts = new_texts();
  std::unique_ptr<tokenizer::Tokenizer> one = load_engine(*tok_dir_, 1);
  std::unique_ptr<tokenizer::Tokenizer> three = load_engine(*tok_dir_, 3);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(three, nullptr);
  std::vector<std::string> reversed(texts.rbegin(), texts.rend());
  ASSERT_TRUE(three->prefetch(reversed).ok());  // one batch of every new run, another order
  for (const std::string& text : texts) {
    std::vector<int32_t> a, b;
    ASSERT_TRUE(one->encode(text, &a, false).ok());
    ASSERT_TRUE(three->encode(text, &b, false).ok());
    EXPECT_EQ(a, b) << text;
    EXPECT_EQ(decoded(*one, a), text);
  }
  EXPECT_GT(one->model_runs(), 200u);
}

TEST_F(TokenizerModelTest, CloseCallsOfTheTorchModelAreTheEngines) {
  std::unique_ptr<tokenizer::Tokenizer> tok = load_engine(*tok_dir_);
  ASSERT_NE(tok, nullptr);
  StatusOr<const engine::EngineSegmenter*> engine_model = engine::engine_model(*tok);
  ASSERT_TRUE(engine_model.ok());
  model::Morpheus m{nullptr};
  tokenizer::CharVocab chars;
  ASSERT_NO_FATAL_FAILURE(load_model(*tok_dir_, &m, &chars));
  const nlohmann::json config = *load_json_file(path_join(*tok_dir_, "morpheus.json"));
  NeuralSegmenterOptions options;
  options.threshold = config.value("threshold", 0.0);
  StatusOr<std::unique_ptr<engine::EngineSegmenter>> close_calls =
      engine::load_directory_model(*tok_dir_, config, {});
  ASSERT_TRUE(close_calls.ok()) << close_calls.status().to_string();
  options.close_calls = std::shared_ptr<const engine::EngineSegmenter>(std::move(*close_calls));
  options.close_call_margin = 1e9;  // every chunk is a close call: the engine cuts them all
  const NeuralSegmenter torch_model(m, chars, options);
  std::vector<std::string> runs;
  for (const std::string& t : new_texts())
    runs.push_back(tokenizer::fold_run(t.substr(t.rfind(' ') + 1)));
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [](const std::string& r) { return r.find('.') != std::string::npos; }),
             runs.end());
  EXPECT_EQ(torch_model.segment_many(runs), *(*engine_model)->segment(runs));
  EXPECT_GT(torch_model.close_calls(), 0u);
}

// A copy of the tiny directory as exported before the engine and the prebuilt images: no
// model.weights, pieces.bin or root_snap/lexicon.bin, and FNV-1a checksums.
std::string older_copy(const std::string& dir, const std::string& root) {
  const std::string copy = path_join(root, "older");
  std::error_code ec;
  fs::remove_all(copy, ec);
  fs::copy(dir, copy, fs::copy_options::recursive);
  nlohmann::json config = *load_json_file(path_join(copy, "morpheus.json"));
  for (const char* f : {"model.weights", tokenizer::kPiecesImageFile, tokenizer::kRootSnapImage}) {
    config["files"].erase(f);
    fs::remove(path_join(copy, f), ec);
  }
  for (auto& [relative, tag] : config["files"].items()) {
    tag = file_checksum(path_join(copy, relative)).value();
  }
  EXPECT_TRUE(write_file_atomic(path_join(copy, "morpheus.json"), config.dump(2)).ok());
  return copy;
}

TEST_F(TokenizerModelTest, UpgradeAddsTheEngineWeightsToAnOlderDirectory) {
  const std::string older = older_copy(*tok_dir_, *root_);
  const std::string text = new_texts()[1];
  {
    std::unique_ptr<tokenizer::Tokenizer> tok = load_engine(older);
    ASSERT_NE(tok, nullptr);  // table words need no model
    std::vector<int32_t> ids;
    const Status s = tok->encode(text, &ids, false);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(s.hint().find("morpheus upgrade --model"), std::string::npos) << s.hint();
  }
  ASSERT_TRUE(upgrade_tokenizer(older).ok());
  const std::string upgraded = *read_file(path_join(older, "morpheus.json"));
  const nlohmann::json files = nlohmann::json::parse(upgraded)["files"];
  const bool snap =
      load_json_file(path_join(*tok_dir_, "morpheus.json"))->value("root_snap", false);
  for (const char* f : {"model.weights", tokenizer::kPiecesImageFile, tokenizer::kRootSnapImage}) {
    if (f == std::string(tokenizer::kRootSnapImage) && !snap) continue;
    EXPECT_TRUE(files.contains(f)) << f;
    EXPECT_EQ(*read_file(path_join(older, f)), *read_file(path_join(*tok_dir_, f))) << f;
  }
  for (const auto& [relative, tag] : files.items()) {  // every file under the faster checksum
    EXPECT_EQ(tag.get<std::string>().rfind("lanes64:", 0), 0u) << relative;
  }
  std::vector<int32_t> want, got;
  ASSERT_TRUE(load_engine(*tok_dir_)->encode(text, &want, false).ok());
  ASSERT_TRUE(load_engine(older)->encode(text, &got, false).ok());
  EXPECT_EQ(got, want);
  ASSERT_TRUE(upgrade_tokenizer(older).ok());  // a current directory is left alone
  EXPECT_EQ(*read_file(path_join(older, "morpheus.json")), upgraded);
}

TEST_F(TokenizerModelTest, UpgradeThatFailsTheSelfTestLeavesTheDirectoryAsItWas) {
  const std::string older = older_copy(*tok_dir_, *root_);
  nlohmann::json config = *load_json_file(path_join(older, "morpheus.json"));
  ASSERT_FALSE(config["model_self_test"].empty());
  // A stored cut the model does not make: the run whole, or in code points when it was whole.
  nlohmann::json& sample = config["model_self_test"][0];
  const std::string run = sample["run"];
  nlohmann::json wrong = nlohmann::json::array({run});
  if (sample["pieces"] == wrong) {
    wrong = nlohmann::json::array();
    const StatusOr<std::u32string> code_points = utf8::decode(run);
    ASSERT_TRUE(code_points.ok());
    for (char32_t c : *code_points) wrong.push_back(utf8::encode(c));
  }
  sample["pieces"] = wrong;
  ASSERT_TRUE(write_file_atomic(path_join(older, "morpheus.json"), config.dump(2)).ok());
  const std::string before = *read_file(path_join(older, "morpheus.json"));
  const Status s = upgrade_tokenizer(older);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("self-test"), std::string::npos) << s.message();
  EXPECT_EQ(*read_file(path_join(older, "morpheus.json")), before);
  EXPECT_FALSE(file_exists(path_join(older, "model.weights")));
}

}  // namespace
}  // namespace morpheus::infer
