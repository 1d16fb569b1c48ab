// SPDX-License-Identifier: MIT
// `morpheus-spm unigram-pieces` (baselines/spm/spm_unigram_pieces.h): TYPES.tsv checks, the trained
// pieces, the UnigramSegmenter's parity with SentencePiece's own Encode on real Turkish word
// types, and the command end to end (MORPHEUS_SPM_EXE). Linked with libsentencepiece only.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "baselines/plain/unigram_segmenter.h"
#include "baselines/spm/spm_unigram_pieces.h"
#include "core/file_util.h"
#include "core/subprocess.h"
#include "core/utf8.h"
#include "tests/support/test_support.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_table.h"

namespace morpheus::tokenizer::spm_unigram_test {
namespace {

using Pieces = std::vector<std::string>;

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = testing::make_temp_dir("spm_unigram") + "/" + name;
  EXPECT_TRUE(write_file_atomic(path, content).ok());
  return path;
}

// Folded letter runs of the lines of `path` (every `stride`-th line from `first`) with their
// counts, most frequent first.
std::vector<WordType> folded_types(const std::string& path, size_t first = 0, size_t stride = 1) {
  LineReader reader;
  EXPECT_TRUE(reader.open(path).ok());
  std::map<std::string, uint64_t> counts;
  std::vector<Span> spans;
  std::string line;
  for (size_t n = 0; reader.next(&line); ++n) {
    if (n < first || (n - first) % stride != 0) continue;
    spans.clear();
    pretokenize_into(line, spans);
    for (const Span& span : spans) {
      if (span.kind == SpanKind::kLetter) ++counts[fold_run(span.text(line))];
    }
  }
  std::vector<WordType> types;
  for (const auto& [word, count] : counts) types.push_back({word, count});
  std::stable_sort(types.begin(), types.end(),
                   [](const WordType& a, const WordType& b) { return a.count > b.count; });
  return types;
}

std::string types_tsv(const std::vector<WordType>& types) {
  std::string out;
  for (const WordType& t : types) out += t.word + "\t" + std::to_string(t.count) + "\n";
  return out;
}

const std::vector<WordType> kSmallTypes = {
    {"kitap", 40},      {"kitaplar", 12},       {"kitaplarımızdan", 3},
    {"ev", 55},         {"evler", 20},          {"evlerde", 9},
    {"evlerimizde", 4}, {"çocuk", 30},          {"çocuklar", 14},
    {"çocukların", 6},  {"gözlük", 5},          {"gözlükçü", 2},
    {"öğretmen", 11},   {"öğretmenler", 7},     {"ağaç", 8},
    {"ağaçlar", 3},     {"şehir", 16},          {"şehirde", 5},
    {"ılık", 2},        {"okuyorum", 9},        {"okuyorlar", 4},
    {"geldiler", 6},    {"yazdıklarımızdan", 1}};

UnigramTraining train_model(const std::vector<WordType>& types, int vocab_size) {
  UnigramTrainOptions options;
  options.vocab_size = vocab_size;
  StatusOr<UnigramTraining> trained = train_unigram_pieces(types, options);
  EXPECT_TRUE(trained.ok()) << trained.status().to_string();
  return std::move(trained).value();
}

// A trained model with SentencePiece's processor and the UnigramSegmenter of its pieces.
struct BothModels {
  UnigramTraining training;
  sentencepiece::SentencePieceProcessor sp;
  std::shared_ptr<const UnigramSegmenter> ours;
};

std::unique_ptr<BothModels> both(const std::vector<WordType>& types, int vocab_size) {
  auto models = std::make_unique<BothModels>();
  models->training = train_model(types, vocab_size);
  EXPECT_TRUE(models->sp.LoadFromSerializedProto(models->training.model_proto).ok());
  models->ours = UnigramSegmenter::create(models->training.pieces).value();
  return models;
}

std::string dev_sentences() { return testing::shared_data_file("corpus/dev_ud_sentences.txt"); }

// The model of the dev types (trained once for the tests that share it).
const BothModels& dev_model() {
  static const std::unique_ptr<BothModels> models = both(folded_types(dev_sentences()), 2000);
  return *models;
}

// Our cut with runs of unknown pieces joined, as SentencePiece's Encode reports them.
Pieces as_spm_reports(const std::unordered_set<std::string>& known, const Pieces& cut) {
  Pieces out;
  bool previous_unknown = false;
  for (const std::string& p : cut) {
    const bool unknown = known.count(p) == 0;
    if (unknown && previous_unknown) {
      out.back() += p;
    } else {
      out.push_back(p);
    }
    previous_unknown = unknown;
  }
  return out;
}

struct Parity {
  size_t words = 0;
  size_t equal = 0;
  size_t with_unknown = 0;
  std::string first_difference;
};

Parity compare(const BothModels& models, const std::vector<WordType>& types) {
  Parity parity;
  const std::unordered_set<std::string> known(models.ours->pieces().begin(),
                                              models.ours->pieces().end());
  for (const WordType& t : types) {
    Pieces theirs;
    EXPECT_TRUE(models.sp.Encode(t.word, &theirs).ok());
    const Pieces cut = models.ours->cut(t.word);
    const Pieces ours = as_spm_reports(known, cut);
    ++parity.words;
    parity.with_unknown += std::any_of(cut.begin(), cut.end(),
                                       [&known](const std::string& p) { return !known.count(p); });
    if (ours == theirs) {
      ++parity.equal;
    } else if (parity.first_difference.empty()) {
      parity.first_difference = t.word;
    }
  }
  ::testing::Test::RecordProperty("words", std::to_string(parity.words));
  ::testing::Test::RecordProperty("equal", std::to_string(parity.equal));
  ::testing::Test::RecordProperty("with_unknown", std::to_string(parity.with_unknown));
  return parity;
}

TEST(SpmUnigramPiecesTest, ReadsWordTypesWithCrlf) {
  StatusOr<std::vector<WordType>> types =
      read_word_types(write_temp("types.tsv", "kitap\t3\r\nçocuk\t18446744073\n"));
  ASSERT_TRUE(types.ok()) << types.status().to_string();
  ASSERT_EQ(types->size(), 2u);
  EXPECT_EQ((*types)[0].word, "kitap");
  EXPECT_EQ((*types)[0].count, 3u);
  EXPECT_EQ((*types)[1].word, "çocuk");
  EXPECT_EQ((*types)[1].count, 18446744073u);
}

TEST(SpmUnigramPiecesTest, BadTypesLinesNameTheLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kitap 3", "found no tab"},
      {"", "found no tab"},
      {"kitap\t3\t4", "more than one tab"},
      {"\t3", "empty word"},
      {"ki tap\t3", "U+0020 at byte 2, whitespace"},
      {"ki\u00a0tap\t3", "U+00A0 at byte 2, whitespace"},
      {"kitap\t0", "count \"0\""},
      {"kitap\t-2", "count \"-2\""},
      {"kitap\t3x", "count \"3x\""},
      {"kitap\t", "count \"\""},
      {"kitap\t9223372036854775808", "count \"9223372036854775808\""},
      {"a\u2581b\t1", "U+2581"},
      {"ev\t2", "word \"ev\" repeats line 1"},
      {"k\xffx\t1", "invalid UTF-8"},
  };
  for (const auto& [line, what] : cases) {
    const std::string path = write_temp("types.tsv", "ev\t1\n" + line + "\nkitap\t2\n");
    StatusOr<std::vector<WordType>> types = read_word_types(path);
    ASSERT_FALSE(types.ok()) << line;
    EXPECT_EQ(types.status().code(), StatusCode::kInvalidArgument) << line;
    EXPECT_NE(types.status().message().find(path + ": line 2"), std::string::npos)
        << types.status().message();
    EXPECT_NE(types.status().message().find(what), std::string::npos) << types.status().message();
  }
}

TEST(SpmUnigramPiecesTest, EmptyTypesFileIsAnError) {
  StatusOr<std::vector<WordType>> types = read_word_types(write_temp("types.tsv", ""));
  ASSERT_FALSE(types.ok());
  EXPECT_NE(types.status().message().find("no word types"), std::string::npos);
}

TEST(SpmUnigramPiecesTest, TrainedPiecesCoverEveryCharacterWithoutMarkers) {
  const UnigramTraining trained = train_model(kSmallTypes, 35);
  const UnigramPieces& p = trained.pieces;
  EXPECT_EQ(p.pieces.size(), 35u);
  EXPECT_EQ(p.log_probs.size(), p.pieces.size());
  EXPECT_EQ(p.vocab_size, 35);
  EXPECT_EQ(p.trained_on_types, kSmallTypes.size());
  uint64_t tokens = 0;
  for (const WordType& t : kSmallTypes) tokens += t.count;
  EXPECT_EQ(p.trained_on_tokens, tokens);
  const std::unordered_set<std::string> pieces(p.pieces.begin(), p.pieces.end());
  EXPECT_EQ(pieces.size(), p.pieces.size());
  for (const WordType& t : kSmallTypes) {
    for (size_t pos = 0; pos < t.word.size();) {
      const size_t length = utf8::decode_one(t.word, pos).length;
      EXPECT_TRUE(pieces.count(t.word.substr(pos, length))) << t.word.substr(pos, length);
      pos += length;
    }
  }
  for (size_t i = 0; i < p.pieces.size(); ++i) {
    EXPECT_EQ(p.pieces[i].find("\u2581"), std::string::npos) << p.pieces[i];
    EXPECT_NE(p.pieces[i], "<unk>");
    EXPECT_LT(p.log_probs[i], 0.0f);
  }
  EXPECT_TRUE(UnigramSegmenter::create(p).ok());
}

TEST(SpmUnigramPiecesTest, FewerPiecesWhenTheTypesAllowNoMore) {
  const UnigramTraining trained = train_model({{"ab", 3}, {"ba", 2}, {"abc", 1}}, 500);
  EXPECT_GE(trained.pieces.pieces.size(), 3u);
  EXPECT_LT(trained.pieces.pieces.size(), 500u);
  EXPECT_EQ(trained.pieces.vocab_size, 500);
}

TEST(SpmUnigramPiecesTest, VocabSizeBelowTheAlphabetIsInvalidArgument) {
  UnigramTrainOptions options;
  options.vocab_size = 5;
  StatusOr<UnigramTraining> trained = train_unigram_pieces(kSmallTypes, options);
  ASSERT_FALSE(trained.ok());
  EXPECT_EQ(trained.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(trained.status().message().find("distinct characters"), std::string::npos);
  options.vocab_size = 100;
  options.threads = 0;
  EXPECT_FALSE(train_unigram_pieces(kSmallTypes, options).ok());
}

TEST(SpmUnigramPiecesTest, GivesExactlyTheVocabSizeOnRealTypes) {
  MORPHEUS_REQUIRE_DATA(dev_sentences(), "corpus/dev_ud_sentences.txt");
  EXPECT_EQ(dev_model().training.pieces.pieces.size(), 2000u);
}

TEST(SpmUnigramPiecesTest, SegmenterMatchesSentencePieceOnEveryTrainingType) {
  MORPHEUS_REQUIRE_DATA(dev_sentences(), "corpus/dev_ud_sentences.txt");
  const std::vector<WordType> types = folded_types(dev_sentences());
  const Parity parity = compare(dev_model(), types);
  EXPECT_GE(parity.words, 2000u);
  EXPECT_EQ(parity.equal, parity.words) << "first difference: " << parity.first_difference;
  EXPECT_EQ(parity.with_unknown, 0u);  // character coverage 1.0
}

TEST(SpmUnigramPiecesTest, SegmenterMatchesSentencePieceOnUnseenWordsAndCharacters) {
  MORPHEUS_REQUIRE_DATA(dev_sentences(), "corpus/dev_ud_sentences.txt");
  const auto models = both(folded_types(dev_sentences(), 0, 4), 1000);  // a quarter of the lines
  std::vector<WordType> words = folded_types(dev_sentences());
  for (const std::string w : {"zürih", "ñandú", "αβγδ", "москва", "ǆungla", "çayxq", "ßwqq"}) {
    words.push_back({w, 1});
  }
  const Parity parity = compare(*models, words);
  EXPECT_GE(parity.words, 2000u);
  EXPECT_GT(parity.with_unknown, 0u);
  EXPECT_EQ(parity.equal, parity.words) << "first difference: " << parity.first_difference;
}

struct CliRun {
  ExitStatus status;
  std::string out;
  std::string err;
};

CliRun run_spm(const std::vector<std::string>& args) {
  const std::string dir = testing::make_temp_dir("spm_cli");
  std::vector<std::string> argv = {MORPHEUS_SPM_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  SpawnOptions options;
  options.stdout_path = dir + "/stdout";
  options.stderr_path = dir + "/stderr";
  StatusOr<ExitStatus> status = run_process(argv, options);
  EXPECT_TRUE(status.ok()) << status.status().to_string();
  return {status.value(), read_file(options.stdout_path).value(),
          read_file(options.stderr_path).value()};
}

TEST(SpmUnigramPiecesCliTest, WritesPiecesJson) {
  const std::string types = write_temp("types.tsv", types_tsv(kSmallTypes));
  const std::string out = testing::make_temp_dir("spm_cli_out") + "/pieces.json";
  const CliRun run = run_spm(
      {"unigram-pieces", "--words", types, "--vocab-size", "35", "--out", out, "--threads", "1"});
  ASSERT_TRUE(run.status.ok()) << run.status.describe() << "\n" << run.err;
  EXPECT_NE(run.err.find("35 pieces from 23 types"), std::string::npos) << run.err;
  StatusOr<std::shared_ptr<const UnigramSegmenter>> loaded = UnigramSegmenter::load(out);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ((*loaded)->pieces().size(), 35u);
  EXPECT_EQ((*loaded)->model().trained_on_types, kSmallTypes.size());
  EXPECT_EQ((*loaded)->model().vocab_size, 35);
}

TEST(SpmUnigramPiecesCliTest, SaysWhenTheTypesAllowFewerPieces) {
  const std::string types = write_temp("types.tsv", "ab\t3\nba\t2\n");
  const std::string out = testing::make_temp_dir("spm_cli_out") + "/pieces.json";
  const CliRun run =
      run_spm({"unigram-pieces", "--words", types, "--vocab-size", "400", "--out", out});
  ASSERT_TRUE(run.status.ok()) << run.err;
  EXPECT_NE(run.err.find("not 400: the types allow no more"), std::string::npos) << run.err;
}

TEST(SpmUnigramPiecesCliTest, BadTypesExitOneNamingTheLine) {
  const std::string types = write_temp("types.tsv", "ev\t1\nki tap\t2\n");
  const std::string out = testing::make_temp_dir("spm_cli_out") + "/pieces.json";
  const CliRun run =
      run_spm({"unigram-pieces", "--words", types, "--vocab-size", "40", "--out", out});
  EXPECT_TRUE(run.status.exited);
  EXPECT_EQ(run.status.code, 1);
  EXPECT_NE(run.err.find(types + ": line 2"), std::string::npos) << run.err;
  EXPECT_FALSE(file_exists(out));
  const CliRun missing = run_spm(
      {"unigram-pieces", "--words", "/nonexistent.tsv", "--vocab-size", "40", "--out", out});
  EXPECT_EQ(missing.status.code, 1);
  EXPECT_NE(missing.err.find("/nonexistent.tsv"), std::string::npos) << missing.err;
}

TEST(SpmUnigramPiecesCliTest, MissingVocabSizeIsUsageError) {
  const CliRun run = run_spm({"unigram-pieces", "--words", "x.tsv", "--out", "y.json"});
  EXPECT_TRUE(run.status.exited);
  EXPECT_EQ(run.status.code, 2);
}

TEST(SpmUnigramPiecesCliTest, HelpStatesEveryOption) {
  const CliRun run = run_spm({"unigram-pieces", "--help"});
  ASSERT_TRUE(run.status.ok());
  for (const std::string option : {"--words", "--vocab-size", "--out", "--threads"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << option;
  }
  const CliRun train_help = run_spm({"train", "--help"});
  EXPECT_NE(train_help.out.find("--add-dummy-prefix"), std::string::npos) << train_help.out;
  const CliRun top = run_spm({"--help"});
  EXPECT_NE(top.out.find("unigram-pieces"), std::string::npos) << top.out;
}

}  // namespace
}  // namespace morpheus::tokenizer::spm_unigram_test
