// SPDX-License-Identifier: MIT
// Tests of the torch-free tokenizer directory (tokenizer/tokenizer_dir.h): the segmentation table
// file, checksums, the format version, and the lazily created model segmenter (a fake here).
#include "tokenizer/tokenizer_dir.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

using nlohmann::json;

std::vector<std::pair<std::string, std::vector<std::string>>> table_entries() {
  return {{"kitaplarımızdan", {"kitap", "lar", "ımız", "dan"}},
          {"kitap", {"kitap"}},
          {"evlerde", {"ev", "ler", "de"}},
          {"çocuk", {"çocuk"}}};
}

// Splits a run in pieces of two code points, counting its calls.
class PairSegmenter : public Segmenter {
 public:
  explicit PairSegmenter(int* calls) : calls_(calls) {}
  std::string name() const override { return "pairs"; }
  StatusOr<Segmentation> segment(const std::vector<std::string>& runs) const override {
    ++*calls_;
    std::vector<std::vector<std::string>> out;
    for (const std::string& run : runs) {
      std::vector<std::string> pieces;
      size_t pos = 0;
      while (pos < run.size()) {
        size_t end = pos;
        for (int k = 0; k < 2 && end < run.size(); ++k) end += utf8_len(run, end);
        pieces.push_back(run.substr(pos, end - pos));
        pos = end;
      }
      out.push_back(std::move(pieces));
    }
    return out;
  }

 private:
  static size_t utf8_len(const std::string& s, size_t pos) {
    const unsigned char c = static_cast<unsigned char>(s[pos]);
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  }
  int* calls_;
};

using MakeModel = std::function<StatusOr<std::unique_ptr<Segmenter>>()>;

// Registers `make` as a model segmenter under a fresh name; returns its spec.
SegmenterSpec test_model(MakeModel make) {
  static int registered = 0;
  SegmenterSpec spec;
  spec.name = "test-model-" + std::to_string(registered++);
  register_segmenter(spec.name, [make](const SegmenterSpec&) { return make(); });
  return spec;
}

// Writes a format-2 tokenizer directory (no model) and returns it.
std::string write_dir(const std::string& tag, int version = kTokenizerFormatVersion,
                      bool turkish_apostrophe = false) {
  const std::string dir = testing::make_temp_dir(tag);
  const std::vector<std::string> pieces = {"kitap", "lar", "ımız", "dan", "ev", "ler", "de",
                                           "ç",     "o",   "c",    "u",   "k",  " "};
  EXPECT_TRUE(
      write_file_atomic(path_join(dir, "pieces.json"), json{{"pieces", pieces}}.dump()).ok());
  EXPECT_TRUE(
      write_file_atomic(path_join(dir, kSegmentTableFile), SegmentTable::serialize(table_entries()))
          .ok());
  json files = json::object();
  for (const char* f : {"pieces.json", kSegmentTableFile}) {
    files[f] = file_checksum(path_join(dir, f)).value();
  }
  const json config = {
      {"format_version", version},
      {"kind", kTokenizerKind},
      {"vocab_size", 259 + pieces.size()},
      {"turkish_apostrophe", turkish_apostrophe},
      {"files", files},
      {"self_test", json::array({json{{"text", "Kitap"}, {"ids", json::array({256, 259})}}})}};
  EXPECT_TRUE(write_file_atomic(path_join(dir, "tokenizer.json"), config.dump()).ok());
  return dir;
}

// A tokenizer directory (write_dir(tag)) whose model is a PairSegmenter counting its calls.
StatusOr<std::unique_ptr<TokenizerDir>> load_with_pairs(const std::string& tag, int* calls) {
  return TokenizerDir::load(
      write_dir(tag), true, test_model([calls]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(calls));
      }));
}

TEST(SegmentTableTest, SerializedTableLooksUpEveryRun) {
  const StatusOr<SegmentTable> table =
      SegmentTable::parse(SegmentTable::serialize(table_entries()), "t.bin");
  ASSERT_TRUE(table.ok()) << table.status().to_string();
  EXPECT_EQ(table->size(), 4u);
  for (const auto& [run, pieces] : table_entries()) {
    std::vector<std::string> got;
    ASSERT_TRUE(table->lookup(run, &got)) << run;
    EXPECT_EQ(got, pieces);
  }
}

TEST(SegmentTableTest, PrefixesAndOtherRunsMiss) {
  const SegmentTable table =
      SegmentTable::parse(SegmentTable::serialize(table_entries()), "t.bin").value();
  std::vector<std::string> got;
  for (const char* run : {"kita", "kitapl", "kitaplar", "", "zzz", "evlerd", "a"}) {
    EXPECT_FALSE(table.lookup(run, &got)) << run;
  }
}

TEST(SegmentTableTest, DamagedImagesAreDataLoss) {
  const std::string image = SegmentTable::serialize(table_entries());
  for (const std::string& bad : {image.substr(0, image.size() - 1),
                                 std::string("XSEGTAB1") + image.substr(8), image.substr(0, 10)}) {
    const StatusOr<SegmentTable> t = SegmentTable::parse(bad, "t.bin");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(t.status().message().find("t.bin"), std::string::npos);
  }
}

TEST(TokenizerDirTest, TableRunsNeverCreateTheModel) {
  int calls = 0;
  int created = 0;
  const auto tok = TokenizerDir::load(
      write_dir("tokdir_table"), true, test_model([&]() {
        ++created;
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->prefetch({"Kitaplarımızdan evlerde"}).ok());
  ASSERT_TRUE((*tok)->encode("Kitaplarımızdan evlerde", &ids, false).ok());
  EXPECT_EQ(created, 0);
  EXPECT_FALSE((*tok)->model_created());
  EXPECT_EQ((*tok)->codec().decode(ids).value(), "Kitaplarımızdan evlerde");
  EXPECT_EQ((*tok)->segment_word("Kitaplarımızdan").value(),
            (std::vector<std::string>{"Kitap", "lar", "ımız", "dan"}));
}

TEST(TokenizerDirTest, MissesCreateTheModelOnceAndBatchInPrefetch) {
  int calls = 0;
  int created = 0;
  const auto tok = TokenizerDir::load(
      write_dir("tokdir_miss"), true, test_model([&]() {
        ++created;
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  ASSERT_TRUE((*tok)->prefetch({"evlerimiz kitap", "okulda evlerimiz"}).ok());
  EXPECT_EQ(created, 1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ((*tok)->model_runs(), 2u);  // evlerimiz, okulda
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->encode("Okulda evlerimiz", &ids, false).ok());
  EXPECT_EQ(calls, 1);  // answered from the prefetch
  EXPECT_EQ((*tok)->codec().decode(ids).value(), "Okulda evlerimiz");
  ASSERT_TRUE((*tok)->encode("yeni", &ids, false).ok());  // not prefetched: one more call
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(created, 1);
}

TEST(TokenizerDirTest, PrefetchSkipsTheScanWhileBlocksHaveNoMiss) {
  int calls = 0;
  const auto tok = load_with_pairs("tokdir_skip", &calls);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  ASSERT_TRUE((*tok)->prefetch({"kitap evlerde"}).ok());  // every run in the table: idle
  ASSERT_TRUE((*tok)->prefetch({"okulda evlerimiz"}).ok());
  EXPECT_EQ(calls, 0);  // not scanned
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->encode("okulda evlerimiz", &ids, false).ok());
  EXPECT_EQ(calls, 2);  // unprefetched: one model call per run
  ASSERT_TRUE((*tok)->prefetch({"yeni başka"}).ok());
  EXPECT_EQ(calls, 3);  // scanned again: both misses in one call
  ids.clear();
  ASSERT_TRUE((*tok)->encode("yeni başka", &ids, false).ok());
  EXPECT_EQ(calls, 3);
  EXPECT_EQ((*tok)->codec().decode(ids).value(), "yeni başka");
  const TokenizerDir::RunStats stats = (*tok)->run_stats();
  // Letter runs encoded and the distinct runs looked up: the four above and the load's self-test
  // ("Kitap", a table hit).
  EXPECT_EQ(stats.words, 5u);
  EXPECT_EQ(stats.runs, 5u);
  EXPECT_EQ(stats.table, 1u);
}

TEST(TokenizerDirTest, SkippedScansResumeAfterFifteenBlocks) {
  int calls = 0;
  const auto tok = load_with_pairs("tokdir_rescan", &calls);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  ASSERT_TRUE((*tok)->prefetch({"kitap"}).ok());  // idle
  for (int block = 0; block < 15; ++block) {
    ASSERT_TRUE((*tok)->prefetch({"masa"}).ok());
    EXPECT_EQ(calls, 0) << block;
  }
  ASSERT_TRUE((*tok)->prefetch({"masa"}).ok());
  EXPECT_EQ(calls, 1);
}

TEST(TokenizerDirTest, ApostropheRunsKeptWholeNeverReachTheModel) {
  for (const bool turkish_apostrophe : {true, false}) {
    int calls = 0;
    const auto tok = TokenizerDir::load(
        write_dir("tokdir_apostrophe", kTokenizerFormatVersion, turkish_apostrophe), true,
        test_model([&]() {
          return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
        }));
    ASSERT_TRUE(tok.ok()) << tok.status().to_string();
    ASSERT_TRUE((*tok)->prefetch({"Kitap'lar Çocuk'tan"}).ok());
    EXPECT_EQ((*tok)->model_created(), !turkish_apostrophe);
    EXPECT_EQ((*tok)->segment_word("Kitap'lar").value(),
              turkish_apostrophe ? (std::vector<std::string>{"Kitap", "'", "lar"})
                                 : (std::vector<std::string>{"Kitap", "'", "l", "a", "r"}));
  }
}

TEST(TokenizerDirTest, ModelCreationErrorFailsEncodeOfMissesOnly) {
  const auto tok = TokenizerDir::load(
      write_dir("tokdir_err"), true, test_model([]() {
        return StatusOr<std::unique_ptr<Segmenter>>(data_loss("model/model.pt is damaged"));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  std::vector<int32_t> ids;
  EXPECT_TRUE((*tok)->encode("kitap", &ids, false).ok());
  const Status s = (*tok)->encode("okul", &ids, false);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("model.pt"), std::string::npos);
  EXPECT_EQ((*tok)->prefetch({"başka"}).code(), StatusCode::kDataLoss);
}

TEST(TokenizerDirTest, CacheFileAnswersMissesOfALaterRunWithoutTheModel) {
  const std::string dir = write_dir("tokdir_cache");
  const std::string cache = path_join(testing::make_temp_dir("tokdir_cache_file"), "c.cache");
  const std::string text = "Okulda evlerimiz kitap";
  int calls = 0;
  std::vector<int32_t> want;
  {
    const auto tok = TokenizerDir::load(
        dir, true, test_model([&]() {
          return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
        }));
    ASSERT_TRUE(tok.ok()) << tok.status().to_string();
    ASSERT_TRUE((*tok)->attach_cache(cache).ok());
    ASSERT_TRUE((*tok)->prefetch({text}).ok());
    ASSERT_TRUE((*tok)->encode(text, &want, false).ok());
    EXPECT_EQ(calls, 1);
  }
  const auto tok = TokenizerDir::load(
      dir, true, test_model([]() {
        return StatusOr<std::unique_ptr<Segmenter>>(data_loss("no model in this test"));
      }));
  ASSERT_TRUE(tok.ok());
  ASSERT_TRUE((*tok)->attach_cache(cache).ok());
  ASSERT_TRUE((*tok)->prefetch({text}).ok());
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->encode(text, &ids, false).ok());
  EXPECT_EQ(ids, want);
  EXPECT_FALSE((*tok)->model_created());
  EXPECT_EQ((*tok)->run_stats().cache, 2u);  // okulda, evlerimiz
}

TEST(TokenizerDirTest, CacheFileOfAnotherTokenizerIsRefused) {
  const std::string cache = path_join(testing::make_temp_dir("tokdir_cache_other"), "c.cache");
  auto first = TokenizerDir::load(write_dir("tokdir_cache_a"), true, {});
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->attach_cache(cache).ok());
  first->reset();  // releases the file
  const std::string other = write_dir("tokdir_cache_b");
  json config = json::parse(read_file(path_join(other, "tokenizer.json")).value());
  config["threshold"] = 0.3;  // another tokenizer
  ASSERT_TRUE(write_file_atomic(path_join(other, "tokenizer.json"), config.dump()).ok());
  const auto second = TokenizerDir::load(other, true, {});
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  const Status s = (*second)->attach_cache(cache);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("another tokenizer"), std::string::npos) << s.message();
}

TEST(TokenizerDirTest, OldFormatVersionAsksForAReExport) {
  const auto tok = TokenizerDir::load(write_dir("tokdir_v1", 1), true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tok.status().message().find("format_version 1"), std::string::npos);
  EXPECT_NE(tok.status().hint().find("morpheus export"), std::string::npos);
}

TEST(TokenizerDirTest, SwappedTableFailsTheChecksum) {
  const std::string dir = write_dir("tokdir_swap");
  auto entries = table_entries();
  entries[0].second = {"kitaplar", "ımızdan"};
  ASSERT_TRUE(
      write_file_atomic(path_join(dir, kSegmentTableFile), SegmentTable::serialize(entries)).ok());
  const auto tok = TokenizerDir::load(dir, true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(tok.status().message().find(kSegmentTableFile), std::string::npos);
}

TEST(TokenizerDirTest, SelfTestCatchesAVocabularyWithAMatchingChecksum) {
  // pieces.json reordered and its checksum updated: only the self-test can notice.
  const std::string dir = write_dir("tokdir_selftest");
  const std::vector<std::string> pieces = {"lar", "kitap", "ımız", "dan", "ev", "ler", "de",
                                           "ç",   "o",     "c",    "u",   "k",  " "};
  ASSERT_TRUE(
      write_file_atomic(path_join(dir, "pieces.json"), json{{"pieces", pieces}}.dump()).ok());
  json config = json::parse(read_file(path_join(dir, "tokenizer.json")).value());
  config["files"]["pieces.json"] = file_checksum(path_join(dir, "pieces.json")).value();
  ASSERT_TRUE(write_file_atomic(path_join(dir, "tokenizer.json"), config.dump()).ok());
  const auto tok = TokenizerDir::load(dir, true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(tok.status().message().find("self-test"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::tokenizer
