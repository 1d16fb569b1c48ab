// SPDX-License-Identifier: MIT
// Tests of the torch-free tokenizer (tokenizer/tokenizer.h): the segment table, checksums, the
// format version, the lazily created model segmenter (a fake here), the cache file, the root
// snap of the model's answers and the model self-test.
#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/utf8.h"
#include "morph/root_lexicon.h"
#include "morph/root_snap.h"
#include "tests/support/test_support.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/segment_cache.h"

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

// Writes a tokenizer directory (no model) and returns it; `extra` goes into its morpheus.json,
// and its root_snap/ files (when "root_snap" is set) into the directory. Format 3 gets the
// default special tokens (or extra's special_tokens/user_symbols) and their self-test, as export
// writes them.
std::string write_dir(const std::string& tag, int version = kTokenizerFormatVersion,
                      bool turkish_apostrophe = false, const json& extra = json::object()) {
  const std::string dir = testing::make_temp_dir(tag);
  const std::vector<std::string> pieces = {"kitap", "lar", "ımız", "dan", "ev", "ler", "de",
                                           "ç",     "o",   "c",    "u",   "k",  " "};
  EXPECT_TRUE(
      write_file_atomic(path_join(dir, "pieces.json"), json{{"pieces", pieces}}.dump()).ok());
  EXPECT_TRUE(
      write_file_atomic(path_join(dir, kSegmentTableFile), SegmentTable::serialize(table_entries()))
          .ok());
  std::vector<std::string> checked = {"pieces.json", kSegmentTableFile};
  if (extra.value("root_snap", false)) {
    EXPECT_TRUE(make_dirs(path_join(dir, "root_snap")).ok());
    EXPECT_TRUE(write_file_atomic(path_join(dir, kRootSnapRoots), "kitap\nev\n").ok());
    EXPECT_TRUE(write_file_atomic(path_join(dir, kRootSnapSuffixes), "lar\nlerde\n").ok());
    checked.insert(checked.end(), {kRootSnapRoots, kRootSnapSuffixes});
  }
  json files = json::object();
  for (const std::string& f : checked) files[f] = file_checksum(path_join(dir, f)).value();
  json config = {
      {"format_version", version},
      {"kind", kTokenizerKind},
      {"vocab_size", 259 + pieces.size()},
      {"turkish_apostrophe", turkish_apostrophe},
      {"files", files},
      {"self_test", json::array({json{{"text", "Kitap"}, {"ids", json::array({256, 259})}}})}};
  if (version >= 3) {
    config["special_tokens"] = default_special_tokens();
    config["user_symbols"] = json::array();
    config["first_special_id"] = 259 + pieces.size();
  }
  config.update(extra);
  if (version >= 3) {
    config["vocab_size"] =
        259 + pieces.size() + config["special_tokens"].size() + config["user_symbols"].size();
  }
  const std::string config_path = path_join(dir, "morpheus.json");
  EXPECT_TRUE(write_file_atomic(config_path, config.dump()).ok());
  if (version >= 3 && !config.contains("special_self_test")) {
    const auto tok = Tokenizer::load(dir, false, {});
    EXPECT_TRUE(tok.ok()) << tok.status().to_string();
    if (tok.ok()) config["special_self_test"] = make_special_self_test(**tok).value();
    EXPECT_TRUE(write_file_atomic(config_path, config.dump()).ok());
  }
  return dir;
}

// The text of `ids` (empty when they do not decode: the caller compares it).
std::string decoded(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  std::string text;
  EXPECT_TRUE(tok.decode(ids, &text).ok());
  return text;
}

// A tokenizer directory (write_dir(tag)) whose model is a PairSegmenter counting its calls.
StatusOr<std::unique_ptr<Tokenizer>> load_with_pairs(const std::string& tag, int* calls) {
  return Tokenizer::load(
      write_dir(tag), true, test_model([calls]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(calls));
      }));
}

TEST(TokenizerTest, TableRunsNeverCreateTheModel) {
  int calls = 0;
  int created = 0;
  const auto tok = Tokenizer::load(
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
  EXPECT_EQ(decoded(**tok, ids), "Kitaplarımızdan evlerde");
  EXPECT_EQ((*tok)->segment("Kitaplarımızdan").value(),
            (std::vector<std::string>{"Kitap", "lar", "ımız", "dan"}));
}

TEST(TokenizerTest, MissesCreateTheModelOnceAndBatchInPrefetch) {
  int calls = 0;
  int created = 0;
  const auto tok = Tokenizer::load(
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
  EXPECT_EQ(decoded(**tok, ids), "Okulda evlerimiz");
  ASSERT_TRUE((*tok)->encode("yeni", &ids, false).ok());  // not prefetched: one more call
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(created, 1);
}

TEST(TokenizerTest, PrefetchSkipsTheScanWhileBlocksHaveNoMiss) {
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
  EXPECT_EQ(decoded(**tok, ids), "yeni başka");
  const Tokenizer::RunStats stats = (*tok)->run_stats();
  // Letter runs encoded and the distinct runs looked up: the four above and the load's self-test
  // ("Kitap", a table hit).
  EXPECT_EQ(stats.words, 5u);
  EXPECT_EQ(stats.runs, 5u);
  EXPECT_EQ(stats.table, 1u);
}

TEST(TokenizerTest, SkippedScansResumeAfterFifteenBlocks) {
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

TEST(TokenizerTest, ApostropheRunsKeptWholeNeverReachTheModel) {
  for (const bool turkish_apostrophe : {true, false}) {
    int calls = 0;
    const auto tok = Tokenizer::load(
        write_dir("tokdir_apostrophe", kTokenizerFormatVersion, turkish_apostrophe), true,
        test_model([&]() {
          return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
        }));
    ASSERT_TRUE(tok.ok()) << tok.status().to_string();
    ASSERT_TRUE((*tok)->prefetch({"Kitap'lar Çocuk'tan"}).ok());
    EXPECT_EQ((*tok)->model_created(), !turkish_apostrophe);
    // Kept whole: the proper name and the suffix chain; else the model's pairs of "lar".
    EXPECT_EQ((*tok)->segment("Kitap'lar").value(),
              turkish_apostrophe ? (std::vector<std::string>{"Kitap", "'lar"})
                                 : (std::vector<std::string>{"Kitap", "'", "la", "r"}));
  }
}

TEST(TokenizerTest, ModelCreationErrorFailsEncodeOfMissesOnly) {
  const auto tok = Tokenizer::load(
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
  EXPECT_TRUE((*tok)->encode("kitap", &ids, false).ok());  // table hits still encode
}

// Faults injected into a model segmenter: the next `fail` model calls fail (after running
// `during_failure` inside the failing call); every model created and every call is counted.
struct ModelFaults {
  std::atomic<int> fail{0};
  std::atomic<int> created{0};
  std::atomic<int> calls{0};
  std::function<void()> during_failure;
};

// A PairSegmenter whose calls fail as `faults` says (a model co-process that dies).
class FlakyModel : public Segmenter {
 public:
  explicit FlakyModel(ModelFaults* faults) : faults_(faults), pairs_(&pair_calls_) {}
  std::string name() const override { return "flaky"; }
  StatusOr<Segmentation> segment(const std::vector<std::string>& runs) const override {
    ++faults_->calls;
    if (faults_->fail > 0) {
      --faults_->fail;
      if (faults_->during_failure) faults_->during_failure();
      return io_error("model server ended (injected fault)");
    }
    return pairs_.segment(runs);
  }

 private:
  ModelFaults* faults_;
  mutable int pair_calls_ = 0;
  PairSegmenter pairs_;
};

StatusOr<std::unique_ptr<Tokenizer>> load_flaky(const std::string& tag, ModelFaults* faults) {
  return Tokenizer::load(
      write_dir(tag), true, test_model([faults]() {
        ++faults->created;
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<FlakyModel>(faults));
      }));
}

// The ids of `text` from a tokenizer whose model never fails.
std::vector<int32_t> reference_ids(const std::string& text) {
  int calls = 0;
  const auto tok = load_with_pairs("tokdir_reference", &calls);
  std::vector<int32_t> ids;
  EXPECT_TRUE(tok.ok() && (*tok)->encode(text, &ids, false).ok());
  return ids;
}

TEST(TokenizerTest, FailedModelCallIsThatCallsOwnAndTheNextCallRetries) {
  ModelFaults faults;
  const auto tok = load_flaky("tokdir_flaky", &faults);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  faults.fail = 1;
  std::vector<int32_t> ids;
  const Status failed = (*tok)->encode("Evler okulda", &ids, false);
  EXPECT_EQ(failed.code(), StatusCode::kIoError);
  EXPECT_NE(failed.message().find("injected fault"), std::string::npos) << failed.message();
  EXPECT_FALSE((*tok)->model_created());  // dropped: the next miss creates it anew
  // Table hits never needed the model and still encode.
  ids.clear();
  ASSERT_TRUE((*tok)->encode("Kitaplarımızdan evlerde", &ids, false).ok());
  EXPECT_EQ(decoded(**tok, ids), "Kitaplarımızdan evlerde");
  // The same text again: the model is created again and answers (its pieces, not the whole run).
  ids.clear();
  const Status again = (*tok)->encode("Evler okulda", &ids, false);
  ASSERT_TRUE(again.ok()) << again.to_string();
  EXPECT_EQ(ids, reference_ids("Evler okulda"));
  // The model's pairs ev|le|r (a run kept whole would be one piece).
  EXPECT_EQ((*tok)->segment("Evler").value(), (std::vector<std::string>{"Ev", "le", "r"}));
  EXPECT_EQ(faults.created, 2);
  // A failed prefetch is the prefetching call's error; the runs are asked for again when encoded.
  faults.fail = 1;
  EXPECT_EQ((*tok)->prefetch({"yeni masa"}).code(), StatusCode::kIoError);
  ids.clear();
  ASSERT_TRUE((*tok)->encode("yeni masa", &ids, false).ok());
  EXPECT_EQ(ids, reference_ids("yeni masa"));
  EXPECT_EQ(faults.created, 3);
}

TEST(TokenizerTest, ModelFailureNeverReachesAnotherThread) {
  ModelFaults faults;
  const auto tok = load_flaky("tokdir_flaky_threads", &faults);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  std::promise<void> inside;  // thread A is inside its failing model call
  std::promise<void> table_done;
  std::shared_future<void> table_done_future = table_done.get_future().share();
  faults.during_failure = [&]() {
    inside.set_value();
    // Waits (bounded) for thread B's table-hit encode, so it runs while the call fails.
    table_done_future.wait_for(std::chrono::seconds(30));
  };
  faults.fail = 1;
  Status a_status;
  std::thread a([&]() {
    std::vector<int32_t> ids;
    a_status = (*tok)->encode("okulda", &ids, false);
  });
  ASSERT_EQ(inside.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  std::vector<int32_t> table_ids;
  const Status table_status = (*tok)->encode("Kitaplarımızdan evlerde", &table_ids, false);
  table_done.set_value();
  std::vector<int32_t> model_ids;  // needs the model: waits for thread A's call, then retries
  const Status model_status = (*tok)->encode("Evlerimiz", &model_ids, false);
  a.join();
  EXPECT_EQ(a_status.code(), StatusCode::kIoError);
  ASSERT_TRUE(table_status.ok()) << table_status.to_string();
  EXPECT_EQ(decoded(**tok, table_ids), "Kitaplarımızdan evlerde");
  ASSERT_TRUE(model_status.ok()) << model_status.to_string();
  EXPECT_EQ(model_ids, reference_ids("Evlerimiz"));
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->encode("okulda", &ids, false).ok());  // thread A's text, now answered
  EXPECT_EQ(ids, reference_ids("okulda"));
}

TEST(TokenizerTest, CacheFileAnswersMissesOfALaterRunWithoutTheModel) {
  const std::string dir = write_dir("tokdir_cache");
  const std::string cache = path_join(testing::make_temp_dir("tokdir_cache_file"), "c.cache");
  const std::string text = "Okulda evlerimiz kitap";
  int calls = 0;
  std::vector<int32_t> want;
  {
    const auto tok = Tokenizer::load(
        dir, true, test_model([&]() {
          return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
        }));
    ASSERT_TRUE(tok.ok()) << tok.status().to_string();
    ASSERT_TRUE((*tok)->attach_cache(cache).ok());
    ASSERT_TRUE((*tok)->prefetch({text}).ok());
    ASSERT_TRUE((*tok)->encode(text, &want, false).ok());
    EXPECT_EQ(calls, 1);
  }
  const auto tok = Tokenizer::load(
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

TEST(TokenizerTest, CacheFileOfAnotherTokenizerIsRefused) {
  const std::string cache = path_join(testing::make_temp_dir("tokdir_cache_other"), "c.cache");
  auto first = Tokenizer::load(write_dir("tokdir_cache_a"), true, {});
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*first)->attach_cache(cache).ok());
  first->reset();  // releases the file
  const std::string other = write_dir("tokdir_cache_b");
  json config = json::parse(read_file(path_join(other, "morpheus.json")).value());
  config["threshold"] = 0.3;  // another tokenizer
  ASSERT_TRUE(write_file_atomic(path_join(other, "morpheus.json"), config.dump()).ok());
  const auto second = Tokenizer::load(other, true, {});
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  const Status s = (*second)->attach_cache(cache);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("another tokenizer"), std::string::npos) << s.message();
}

TEST(TokenizerTest, OldFormatVersionAsksForAReExport) {
  const auto tok = Tokenizer::load(write_dir("tokdir_v1", 1), true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tok.status().message().find("format_version 1"), std::string::npos);
  EXPECT_NE(tok.status().hint().find("morpheus export"), std::string::npos);
}

TEST(TokenizerTest, SwappedTableFailsTheChecksum) {
  const std::string dir = write_dir("tokdir_swap");
  auto entries = table_entries();
  entries[0].second = {"kitaplar", "ımızdan"};
  ASSERT_TRUE(
      write_file_atomic(path_join(dir, kSegmentTableFile), SegmentTable::serialize(entries)).ok());
  const auto tok = Tokenizer::load(dir, true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(tok.status().message().find(kSegmentTableFile), std::string::npos);
}

TEST(TokenizerTest, SelfTestCatchesAVocabularyWithAMatchingChecksum) {
  // pieces.json reordered and its checksum updated: only the self-test can notice.
  const std::string dir = write_dir("tokdir_selftest");
  const std::vector<std::string> pieces = {"lar", "kitap", "ımız", "dan", "ev", "ler", "de",
                                           "ç",   "o",     "c",    "u",   "k",  " "};
  ASSERT_TRUE(
      write_file_atomic(path_join(dir, "pieces.json"), json{{"pieces", pieces}}.dump()).ok());
  json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
  config["files"]["pieces.json"] = file_checksum(path_join(dir, "pieces.json")).value();
  ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump()).ok());
  const auto tok = Tokenizer::load(dir, true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(tok.status().message().find("self-test"), std::string::npos);
}

TEST(TokenizerTest, MalformedVocabularyFailsTheLoadNamingIt) {
  // Checksums updated, so the parse itself must refuse: no pieces array, a non-string piece, a
  // truncated document. Counts and keys beside "pieces" are read past.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"counts": [1, 2]})", "no \"pieces\""},
      {R"({"counts": [1], "pieces": ["kitap", 7]})", "not a string"},
      {R"({"pieces": ["kitap", "lar")", "no \"pieces\""},
      {R"({"pieces": [["kitap"]]})", "not a string"}};
  for (const auto& [text, want] : cases) {
    const std::string dir = write_dir("tokdir_badpieces");
    ASSERT_TRUE(write_file_atomic(path_join(dir, "pieces.json"), text).ok());
    json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
    config["files"]["pieces.json"] = file_checksum(path_join(dir, "pieces.json")).value();
    ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump()).ok());
    const auto tok = Tokenizer::load(dir, true, {});
    ASSERT_FALSE(tok.ok()) << text;
    EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss) << text;
    EXPECT_NE(tok.status().message().find("pieces.json"), std::string::npos) << text;
    EXPECT_NE(tok.status().message().find(want), std::string::npos) << tok.status().message();
  }
  // Extra keys and nested values beside the pieces load.
  const std::string dir = write_dir("tokdir_extrakeys");
  const json pieces = json::parse(read_file(path_join(dir, "pieces.json")).value())["pieces"];
  const json text = {{"meta", {{"a", {1, 2}}, {"pieces", {"x"}}}}, {"pieces", pieces}, {"n", 1}};
  ASSERT_TRUE(write_file_atomic(path_join(dir, "pieces.json"), text.dump()).ok());
  json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
  config["files"]["pieces.json"] = file_checksum(path_join(dir, "pieces.json")).value();
  ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump()).ok());
  const auto tok = Tokenizer::load(dir, true, {});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_EQ((*tok)->vocab_size(), config["vocab_size"].get<int64_t>());
}

// A directory exported with the root snap (roots kitap, ev; chains lar, lerde) and a model
// self-test run.
std::string write_snap_dir(const std::string& tag, const std::vector<std::string>& self_test) {
  const json extra = {
      {"root_snap", true},
      {"root_snap_rule", morph::kRootSnapRule},
      {"model_self_test", json::array({{{"run", "kitaplar"}, {"pieces", self_test}}})}};
  return write_dir(tag, kTokenizerFormatVersion, false, extra);
}

TEST(TokenizerTest, ModelAnswersGetTheRootSnapBeforeTheyAreUsedOrCached) {
  const std::string cache = path_join(testing::make_temp_dir("tok_snap_cache"), "c.cache");
  int calls = 0;
  auto tok = Tokenizer::load(
      write_snap_dir("tok_snap", {"kitap", "l", "ar"}), true, test_model([&]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  ASSERT_TRUE((*tok)->attach_cache(cache).ok());
  // The model cuts in pairs (ki ta pl ar); the snap cuts at the root end and nowhere inside the
  // root, the model's cut among the suffixes stays: kitap l ar (the ids back "ar", outside the
  // vocabulary, off to its code points; segment shows the pieces).
  EXPECT_EQ((*tok)->segment("Kitaplar2").value(),
            (std::vector<std::string>{"Kitap", "l", "ar", "2"}));
  const StatusOr<Segmenter*> model = (*tok)->model();
  ASSERT_TRUE(model.ok());
  EXPECT_EQ((*model)->segment({"kitaplar"}).value().front(),
            (std::vector<std::string>{"ki", "ta", "pl", "ar"}));  // stage 3 alone
  // The table holds snapped pieces and is not snapped again: evlerde stays ev ler de, where
  // the snap of those cuts would give ev + lerde.
  EXPECT_EQ((*tok)->segment("evlerde").value(), (std::vector<std::string>{"ev", "ler", "de"}));
  tok->reset();  // releases the cache file
  CacheRecords records;
  CacheFileInfo info;
  ASSERT_TRUE(read_cache_file(cache, 0, &records, &info).ok());
  EXPECT_EQ(records.at("kitaplar"), "kitap l ar");
}

// `dir` loaded with a PairSegmenter as its model (any letter run encodes).
StatusOr<std::unique_ptr<Tokenizer>> load_any_text(const std::string& dir) {
  static int calls = 0;
  return Tokenizer::load(
      dir, true, test_model([]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
}

// Writes `image` as the file `relative` of the directory `dir` and lists it with its checksum.
void add_image(const std::string& dir, const char* relative, const std::string& image) {
  const std::string path = path_join(dir, relative);
  ASSERT_TRUE(write_file_atomic(path, image).ok());
  json config = load_json_file(path_join(dir, "morpheus.json")).value();
  config["files"][relative] = tokenizer_file_checksum(path).value();
  ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump()).ok());
}

// Adds pieces.bin (the image of pieces.json) to a write_dir directory, with its checksum.
void add_pieces_image(const std::string& dir) {
  const json pieces = load_json_file(path_join(dir, kPiecesFile)).value();
  const StatusOr<PieceCodec> codec =
      PieceCodec::create(pieces.at("pieces").get<std::vector<std::string>>(), nullptr);
  ASSERT_TRUE(codec.ok()) << codec.status().to_string();
  add_image(dir, kPiecesImageFile, codec->image());
}

TEST(TokenizerTest, ThePrebuiltVocabularyImageGivesTheSameIds) {
  const std::string dir = write_dir("tok_pieces_image");
  const std::string text = "Kitaplarımızdan evlerde çocuk, KİTAP 12.";  // table runs only
  std::vector<int32_t> want;
  ASSERT_TRUE(Tokenizer::load(dir, true, {}).value()->encode(text, &want, false).ok());
  add_pieces_image(dir);
  const auto tok = Tokenizer::load(dir, true, {});  // its self-tests pass too
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  std::vector<int32_t> got;
  ASSERT_TRUE((*tok)->encode(text, &got, false).ok());
  EXPECT_EQ(got, want);
  std::string back;
  ASSERT_TRUE((*tok)->decode(want, &back).ok());
  EXPECT_EQ(back, text);
}

TEST(TokenizerTest, ADamagedVocabularyImageIsDataLossNamingIt) {
  const std::string dir = write_dir("tok_pieces_image_bad");
  add_pieces_image(dir);
  const std::string image_path = path_join(dir, kPiecesImageFile);
  std::string image = read_file(image_path).value();
  image[image.size() - 3] = static_cast<char>(image[image.size() - 3] ^ 0x20);
  ASSERT_TRUE(write_file_atomic(image_path, image).ok());
  const auto tok = Tokenizer::load(dir, true, {});
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(tok.status().message().find("pieces.bin"), std::string::npos)
      << tok.status().to_string();
}

// Adds root_snap/lexicon.bin (the image of the directory's lexicon texts) to a write_snap_dir
// directory, with its checksum.
void add_lexicon_image(const std::string& dir) {
  const StatusOr<morph::RootLexicon> lexicon =
      morph::RootLexicon::load(path_join(dir, kRootSnapRoots), path_join(dir, kRootSnapSuffixes));
  ASSERT_TRUE(lexicon.ok()) << lexicon.status().to_string();
  add_image(dir, kRootSnapImage, lexicon->image());
}

TEST(TokenizerTest, RootSnapReadsThePrebuiltLexiconImage) {
  const std::string dir = write_snap_dir("tok_snap_image", {"kitap", "l", "ar"});
  add_lexicon_image(dir);
  auto tok = load_any_text(dir);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_EQ((*tok)->segment("Kitaplar2").value(),
            (std::vector<std::string>{"Kitap", "l", "ar", "2"}));  // as from the texts
  // The snap read the image: a damaged one fails (ADamagedLexiconImageIsDataLossNamingIt).
}

TEST(TokenizerTest, TheTextsBehindTheImagesAreStillChecked) {
  const std::string dir = write_snap_dir("tok_image_texts", {"kitap", "l", "ar"});
  add_lexicon_image(dir);
  add_pieces_image(dir);
  ASSERT_TRUE(write_file_atomic(path_join(dir, kRootSnapRoots), "ev\n").ok());
  auto tok = load_any_text(dir);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const StatusOr<Segmenter*> model = (*tok)->model();
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("roots.txt"), std::string::npos)
      << model.status().to_string();
  ASSERT_TRUE(write_file_atomic(path_join(dir, kPiecesFile), "{\"pieces\": []}").ok());
  const auto swapped = Tokenizer::load(dir, true, {});
  ASSERT_FALSE(swapped.ok());
  EXPECT_NE(swapped.status().message().find("pieces.json"), std::string::npos)
      << swapped.status().to_string();
}

TEST(TokenizerTest, ADamagedLexiconImageIsDataLossNamingIt) {
  const std::string dir = write_snap_dir("tok_snap_image_bad", {"kitap", "l", "ar"});
  add_lexicon_image(dir);
  const std::string image_path = path_join(dir, kRootSnapImage);
  std::string image = read_file(image_path).value();
  image[image.size() / 2] = static_cast<char>(image[image.size() / 2] ^ 0x10);
  ASSERT_TRUE(write_file_atomic(image_path, image).ok());
  auto tok = load_any_text(dir);
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();  // the table loads; the model stage fails
  const StatusOr<Segmenter*> model = (*tok)->model();
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(model.status().message().find("lexicon.bin"), std::string::npos)
      << model.status().to_string();
}

TEST(TokenizerTest, ModelThatFailsTheSelfTestIsRefused) {
  int calls = 0;
  const auto tok = Tokenizer::load(
      write_snap_dir("tok_selftest_model", {"kitap", "lar"}), true, test_model([&]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_EQ(calls, 0);  // the model is created on the first miss
  const StatusOr<Segmenter*> model = (*tok)->model();
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(model.status().message().find("model self-test run 0"), std::string::npos)
      << model.status().to_string();
  std::vector<int32_t> ids;
  EXPECT_EQ((*tok)->encode("okul", &ids, false).code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace morpheus::tokenizer

namespace morpheus::tokenizer {
namespace {

constexpr int32_t kFirstSpecial = 259 + 13;  // after the 13 pieces of write_dir

TEST(TokenizerTest, ConfigNamedTokenizerJsonStillLoads) {
  // An export whose config is renamed back to the older name encodes the same ids.
  const json extra = {{"user_symbols", json::array({"<sep>"})}};
  const std::string dir = write_dir("tokdir_new_name", kTokenizerFormatVersion, false, extra);
  const std::string old_dir = testing::make_temp_dir("tokdir_old_name");
  for (const char* f : {"pieces.json", kSegmentTableFile}) {
    ASSERT_TRUE(
        write_file_atomic(path_join(old_dir, f), read_file(path_join(dir, f)).value()).ok());
  }
  ASSERT_TRUE(write_file_atomic(path_join(old_dir, kOldTokenizerConfigFile),
                                read_file(path_join(dir, kTokenizerConfigFile)).value())
                  .ok());
  EXPECT_EQ(tokenizer_config_path(old_dir), path_join(old_dir, "tokenizer.json"));
  EXPECT_EQ(tokenizer_config_path(dir), path_join(dir, "morpheus.json"));
  const auto current = load_any_text(dir);
  const auto old = load_any_text(old_dir);
  ASSERT_TRUE(current.ok()) << current.status().to_string();
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  const std::string text = "Kitaplarımızdan<sep>evlerde, 3 çocuk!";
  std::vector<int32_t> want;
  std::vector<int32_t> got;
  ASSERT_TRUE((*current)->encode(text, &want, false).ok());
  ASSERT_TRUE((*old)->encode(text, &got, false).ok());
  EXPECT_EQ(got, want);
  EXPECT_EQ((*old)->id(), (*current)->id());  // a cache file serves both
}

TEST(TokenizerTest, ConfigPathPrefersMorpheusJsonAndNamesItWhenMissing) {
  const std::string dir = testing::make_temp_dir("tokdir_no_config");
  EXPECT_EQ(tokenizer_config_path(dir), path_join(dir, "morpheus.json"));
  const auto missing = Tokenizer::load(dir, true, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no morpheus.json in " + dir), std::string::npos)
      << missing.status().message();
  const std::string both = write_dir("tokdir_both_configs");
  ASSERT_TRUE(write_file_atomic(path_join(both, kOldTokenizerConfigFile), "not json").ok());
  EXPECT_EQ(tokenizer_config_path(both), path_join(both, "morpheus.json"));
  EXPECT_TRUE(Tokenizer::load(both, true, {}).ok());
}

TEST(TokenizerTest, FormatTwoLoadsWithoutSpecialTokens) {
  const auto tok = Tokenizer::load(write_dir("tokdir_v2", 2), true, {});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  EXPECT_EQ((*tok)->vocab_size(), kFirstSpecial);
  EXPECT_TRUE((*tok)->special_tokens().empty());
  for (int32_t id : {(*tok)->pad_id(), (*tok)->bos_id(), (*tok)->eos_id(), (*tok)->mask_id()}) {
    EXPECT_EQ(id, -1);
  }
  std::vector<int32_t> ids;
  EncodeOptions options;
  options.add_bos = true;
  const Status s = (*tok)->encode("kitap", options, &ids);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.hint().find("--special-tokens"), std::string::npos) << s.hint();
}

TEST(TokenizerTest, SpecialTokensFollowThePiecesWithTheirRoles) {
  const auto tok = Tokenizer::load(write_dir("tokdir_specials"), true, {});
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const Tokenizer& t = **tok;
  EXPECT_EQ(t.vocab_size(), kFirstSpecial + 4);
  EXPECT_EQ(t.pad_id(), kFirstSpecial);
  EXPECT_EQ(t.bos_id(), kFirstSpecial + 1);
  EXPECT_EQ(t.eos_id(), kFirstSpecial + 2);
  EXPECT_EQ(t.mask_id(), kFirstSpecial + 3);
  EXPECT_EQ(t.id_to_piece(t.eos_id()), "</s>");
  EXPECT_EQ(t.piece_to_id("<mask>"), t.mask_id());
  EXPECT_EQ(t.piece_to_id("kitap"), 259);
}

TEST(TokenizerTest, SpecialTokenStringsInTextAreEncodedAsCharacters) {
  const auto tok = load_any_text(write_dir("tokdir_special_text"));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const std::string text = "<s>kitap</s> <pad><mask>";
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->encode(text, &ids, false).ok());
  for (int32_t id : ids) EXPECT_LT(id, kFirstSpecial) << id;
  EXPECT_EQ(decoded(**tok, ids), text);
}

TEST(TokenizerTest, BosAndEosAreAddedAndDecodeDropsOrKeepsSpecials) {
  const auto tok = load_any_text(write_dir("tokdir_bos"));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const Tokenizer& t = **tok;
  EncodeOptions options;
  options.add_bos = true;
  options.add_eos = true;
  std::vector<int32_t> ids;
  ASSERT_TRUE(t.encode("Kitap ev", options, &ids).ok());
  ASSERT_GE(ids.size(), 4u);
  EXPECT_EQ(ids.front(), t.bos_id());
  EXPECT_EQ(ids.back(), t.eos_id());
  ids.push_back(t.pad_id());
  std::string dropped;
  std::string kept;
  ASSERT_TRUE(t.decode(ids, &dropped).ok());
  ASSERT_TRUE(t.decode(ids, &kept, true).ok());
  EXPECT_EQ(dropped, "Kitap ev");
  EXPECT_EQ(kept, "<s>Kitap ev</s><pad>");
  std::string text;
  const Status s = t.decode({PieceCodec::kCapId, t.eos_id()}, &text);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("position 0"), std::string::npos) << s.message();
  EXPECT_EQ(t.decode({t.vocab_size()}, &text).code(), StatusCode::kInvalidArgument);
}

TEST(TokenizerTest, UserSymbolsAreMatchedInTheTextLongestFirst) {
  const json extra = {{"user_symbols", json::array({"@@", "@@@", "<sep>"})}};
  const auto tok =
      load_any_text(write_dir("tokdir_symbols", kTokenizerFormatVersion, false, extra));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const Tokenizer& t = **tok;
  const int32_t first_symbol = kFirstSpecial + 4;
  EXPECT_EQ(t.piece_to_id("<sep>"), first_symbol + 2);
  const std::string text = "kitap<sep>Evlerde@@@ev";
  std::vector<int32_t> ids;
  Offsets offsets;
  ASSERT_TRUE(t.encode(text, EncodeOptions(), &ids, &offsets).ok());
  const std::vector<int32_t> want = {259, first_symbol + 2};
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(std::vector<int32_t>(ids.begin(), ids.begin() + 2), want);
  EXPECT_EQ(offsets.chars[1], (TextSpan{5, 10}));
  EXPECT_EQ(ids[ids.size() - 2], first_symbol + 1);  // "@@@", not "@@" + "@"
  EXPECT_EQ(offsets.chars[ids.size() - 2], (TextSpan{17, 20}));
  EXPECT_EQ(decoded(t, ids), text);  // user symbols are text, never dropped
}

TEST(TokenizerTest, SegmentCutsUserSymbolsAsEncodeDoes) {
  const json extra = {{"user_symbols", json::array({"@@", "@@@", "<sep>"})}};
  const auto tok =
      load_any_text(write_dir("tokdir_segment_symbols", kTokenizerFormatVersion, false, extra));
  const auto plain = load_any_text(write_dir("tokdir_segment_plain"));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  const std::string text = "kitap<sep>Evlerde@@@kitap";
  EXPECT_EQ((*tok)->segment(text).value(),
            (std::vector<std::string>{"kitap", "<sep>", "Ev", "ler", "de", "@@@", "kitap"}));
  // The pieces are those of the ids of encode.
  std::vector<int32_t> ids;
  ASSERT_TRUE((*tok)->encode(text, &ids, false).ok());
  EXPECT_EQ(ids[1], (*tok)->piece_to_id("<sep>"));
  EXPECT_EQ(ids[ids.size() - 2], (*tok)->piece_to_id("@@@"));
  // Without a user symbol in it, a text segments as with no user symbols at all.
  for (const std::string other : {"kitap sep Evlerde @ kitap", "Kitaplarımızdan evlerde, 3!"}) {
    EXPECT_EQ((*tok)->segment(other).value(), (*plain)->segment(other).value()) << other;
  }
  // Invalid UTF-8 is named at its offset in the whole text.
  const StatusOr<std::vector<std::string>> bad = (*tok)->segment("kitap@@ev\xff");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("at byte 9 "), std::string::npos) << bad.status().message();
}

TEST(TokenizerTest, EditedSpecialTokensFailTheSelfTest) {
  for (const json& edit :
       {json{{"special_tokens", json::array({"<s>", "<pad>", "</s>", "<mask>"})}},
        json{{"special_tokens", json::array({"<pad>", "<s>", "</s>", "[MASK]"})}}}) {
    const std::string dir = write_dir("tokdir_edited");
    json config = json::parse(read_file(path_join(dir, "morpheus.json")).value());
    config.update(edit);
    ASSERT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump()).ok());
    const auto tok = Tokenizer::load(dir, true, {});
    ASSERT_FALSE(tok.ok()) << edit.dump();
    EXPECT_EQ(tok.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(tok.status().message().find("special_self_test"), std::string::npos);
  }
}

TEST(TokenizerTest, BadSpecialTokenListsAreRejected) {
  EXPECT_TRUE(check_special_tokens(default_special_tokens(), {"@@"}).ok());
  EXPECT_EQ(check_special_tokens({"<s>", "<s>"}, {}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check_special_tokens({"<s>"}, {"<s>"}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check_special_tokens({""}, {}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check_special_tokens({}, {"a b"}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check_special_tokens({"\xff"}, {}).code(), StatusCode::kInvalidArgument);
}

// Checks that the offsets of `ids` tile `text`: byte spans contiguous from 0 to the end (case
// tokens, <s> and </s> empty), character spans likewise once the byte tokens of one character
// (which share its span) are merged; a piece id's span folds to the piece, byte tokens of one
// character give its bytes.
void expect_offsets_tile(const Tokenizer& t, const std::string& text,
                         const std::vector<int32_t>& ids, const Offsets& offsets) {
  ASSERT_EQ(offsets.bytes.size(), ids.size());
  ASSERT_EQ(offsets.chars.size(), ids.size());
  size_t byte = 0;
  size_t chr = 0;
  TextSpan last_char{0, 0};
  std::string group;  // bytes of the byte tokens of the current character
  for (size_t i = 0; i < ids.size(); ++i) {
    const TextSpan b = offsets.bytes[i];
    const TextSpan c = offsets.chars[i];
    const int32_t id = ids[i];
    const std::string span = text.substr(b.begin, b.end - b.begin);
    ASSERT_EQ(b.begin, byte) << "id " << i << " of " << text;
    if (b.begin == b.end) {
      EXPECT_TRUE(id == t.bos_id() || id == t.eos_id() ||
                  (id >= PieceCodec::kNumBytes && id < PieceCodec::kFirstPieceId))
          << id;
      EXPECT_EQ(c.begin, chr);
      EXPECT_EQ(c.end, chr);
      continue;
    }
    byte = b.end;
    if (id < PieceCodec::kNumBytes) {
      ASSERT_EQ(span, std::string(1, static_cast<char>(id)));
      if (!(c == last_char)) {
        ASSERT_EQ(c.begin, chr) << "id " << i << " of " << text;
        group.clear();
      }
      group += span;
      chr = c.end;
      last_char = c;
      EXPECT_EQ(c.end - c.begin, 1u);  // one character (or one invalid byte)
      continue;
    }
    ASSERT_EQ(c.begin, chr) << "id " << i << " of " << text;
    chr = c.end;
    last_char = c;
    if (id >= PieceCodec::kFirstPieceId && id < kFirstSpecial) {
      EXPECT_EQ(fold_run(span), t.id_to_piece(id)) << text;
    } else {
      EXPECT_EQ(span, t.id_to_piece(id));  // a user symbol
    }
  }
  EXPECT_EQ(byte, text.size()) << text;
  // Python's len(text) (an invalid byte counting one, as surrogateescape decodes it).
  size_t chars = 0;
  for (size_t pos = 0; pos < text.size(); ++chars) pos += utf8::decode_one(text, pos).length;
  EXPECT_EQ(chr, chars) << text;
}

TEST(TokenizerTest, OffsetsTileNastyTexts) {
  int calls = 0;
  const json extra = {{"user_symbols", json::array({"@@"})}};
  const auto tok = Tokenizer::load(
      write_dir("tokdir_offsets", kTokenizerFormatVersion, true, extra), true, test_model([&]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const std::vector<std::string> texts = {
      "",
      "Kitaplarımızdan EVLERDE çocuk",
      "a\xff b\xe2\x82 c\xc3",
      "e\u0301 cafe\u0301s Ünlü",
      "👩🏽‍💻 ok 😀😀",
      "İSTANBUL ıiIİ İstanbul'da KİTAP",
      "Ankara'da 1990'larda 3,5 °C — «tamam»",
      "x@@y @@@ <s>",
      "KiTaP kElViN \u212A",
  };
  for (const bool bos : {false, true}) {
    for (const std::string& text : texts) {
      EncodeOptions options;
      options.allow_invalid = true;
      options.add_bos = bos;
      options.add_eos = bos;
      std::vector<int32_t> ids;
      Offsets offsets;
      ASSERT_TRUE((*tok)->encode(text, options, &ids, &offsets).ok()) << text;
      expect_offsets_tile(**tok, text, ids, offsets);
      std::vector<int32_t> plain;
      options.add_bos = options.add_eos = false;
      ASSERT_TRUE((*tok)->encode(text, options, &plain).ok());
      if (bos) {
        EXPECT_EQ(std::vector<int32_t>(ids.begin() + 1, ids.end() - 1), plain);
      }
    }
  }
}

TEST(TokenizerTest, OffsetsTileTheHeldApartSentences) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/dev_ud_sentences.txt");
  int calls = 0;
  const auto tok = Tokenizer::load(
      write_dir("tokdir_offsets_dev", kTokenizerFormatVersion, true), true, test_model([&]() {
        return StatusOr<std::unique_ptr<Segmenter>>(std::make_unique<PairSegmenter>(&calls));
      }));
  ASSERT_TRUE(tok.ok()) << tok.status().to_string();
  const std::string data = read_file(path).value();
  size_t lines = 0;
  for (size_t pos = 0; pos < data.size();) {
    size_t end = data.find('\n', pos);
    if (end == std::string::npos) end = data.size();
    const std::string line = data.substr(pos, end - pos);
    pos = end + 1;
    std::vector<int32_t> ids;
    Offsets offsets;
    ASSERT_TRUE((*tok)->encode(line, EncodeOptions(), &ids, &offsets).ok()) << line;
    expect_offsets_tile(**tok, line, ids, offsets);
    std::vector<int32_t> plain;
    ASSERT_TRUE((*tok)->encode(line, &plain, false).ok());
    EXPECT_EQ(ids, plain);  // the offsets change nothing
    ++lines;
  }
  EXPECT_GT(lines, 1000u);
}

}  // namespace
}  // namespace morpheus::tokenizer
