// SPDX-License-Identifier: MIT
#include "tokenizer/piece_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "core/file_util.h"
#include "core/flat_string_map.h"
#include "core/utf8.h"
#include "tests/support/codec_test_util.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer {
namespace {

using testing::FnSegmenter;
using testing::id_strings;
using testing::round_trip;

std::shared_ptr<const Segmenter> by(FnSegmenter::Fn fn) {
  return std::make_shared<FnSegmenter>(std::move(fn));
}

// Splits a folded word into pieces of at most two code points.
std::vector<std::string> pairs_segmenter(std::string_view word) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < word.size()) {
    size_t end = pos;
    for (int k = 0; k < 2 && end < word.size(); ++k) end += utf8::decode_one(word, end).length;
    out.emplace_back(word.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// evlerde -> ev ler de, every other run in pairs.
std::shared_ptr<const Segmenter> codec_segmenter() {
  return by([](std::string_view w) {
    if (w == "evlerde") return std::vector<std::string>{"ev", "ler", "de"};
    return pairs_segmenter(w);
  });
}

PieceCodec make_codec() {
  std::vector<std::string> pieces = {"ev", "ler", "de", "i", "ı", "st", "an", "bu", "l", "ka",
                                     "ra", " ",   ".",  "ş", "ç", "ğ",  "ö",  "ü",  "a", "e"};
  return PieceCodec::create(pieces, codec_segmenter()).value();
}

TEST(PieceCodecTest, EncodesPiecesWithCaseTokens) {
  const PieceCodec codec = make_codec();
  const std::vector<int32_t> ids = codec.encode("Evlerde EVLERDE").value();
  std::vector<std::string> shown;
  for (int32_t id : ids) shown.push_back(codec.id_to_string(id));
  EXPECT_EQ(shown, (std::vector<std::string>{"<cap>", "ev", "ler", "de", " ", "<upper_word>", "ev",
                                             "ler", "de"}));
}

TEST(PieceCodecTest, TurkishDottedAndDotlessIRoundTrip) {
  const PieceCodec codec = make_codec();
  for (const std::string s : {"İSTANBUL", "IĞDIR", "ılık", "Istanbul", "istanbul", "İi Iı"}) {
    EXPECT_EQ(round_trip(codec, s), s);
  }
  // İ folds to the piece "i" with a case token, not to bytes.
  const std::vector<int32_t> ids = codec.encode("İ").value();
  EXPECT_EQ(ids, (std::vector<int32_t>{PieceCodec::kCapId, codec.piece_id("i")}));
}

TEST(PieceCodecTest, UpperWordScopeEndsAtTheNextSpan) {
  const PieceCodec codec = make_codec();
  const std::vector<int32_t> ids = codec.encode("EVLERDE evlerde").value();
  EXPECT_EQ(ids[0], PieceCodec::kUpperWordId);
  EXPECT_EQ(ids.size(), 1u + 3u + 1u + 3u);
  EXPECT_EQ(codec.decode(ids).value(), "EVLERDE evlerde");
  // A partly upper-case word falls back to per-piece case tokens.
  EXPECT_EQ(round_trip(codec, "EVLERde"), "EVLERde");
  EXPECT_EQ(codec.encode("EVLERde").value()[0], PieceCodec::kUpperId);
}

TEST(PieceCodecTest, MixedCaseFallsBackToOriginalBytes) {
  const PieceCodec codec = make_codec();
  const std::string s = "eVlerde";  // piece "eV" is neither lower, title nor upper
  const std::vector<int32_t> ids = codec.encode(s).value();
  EXPECT_EQ(ids[0], 'e');
  EXPECT_EQ(ids[1], 'V');
  EXPECT_EQ(round_trip(codec, s), s);
  EXPECT_EQ(round_trip(codec, "\u212Aa"), "\u212Aa");  // Kelvin sign: case does not round-trip
}

TEST(PieceCodecTest, NonLettersUseVocabularyThenBytes) {
  const PieceCodec codec = make_codec();
  const std::vector<int32_t> ids = codec.encode(" 7.").value();
  EXPECT_EQ(ids, (std::vector<int32_t>{codec.piece_id(" "), '7', codec.piece_id(".")}));
}

TEST(PieceCodecTest, WordStartFlagsMarkFirstIdOfEverySpan) {
  const PieceCodec codec = make_codec();
  std::vector<int32_t> ids;
  std::vector<uint8_t> starts;
  ASSERT_TRUE(codec.encode("Evlerde ev", &ids, &starts).ok());
  ASSERT_EQ(ids.size(), starts.size());
  EXPECT_EQ(starts, (std::vector<uint8_t>{1, 0, 0, 0, 1, 1}));
}

TEST(PieceCodecTest, OffsetsGiveTheBytesOfEachId) {
  const PieceCodec codec = make_codec();
  std::vector<int32_t> ids;
  std::vector<TextSpan> offsets;
  // <cap> ev ler de | " " | <upper_word> ev ler de | " " | e V (bytes) | ğ as piece | 😀 bytes
  const std::string text = "Evlerde EVLERDE eV\xff\xc4\x9f😀";
  ASSERT_TRUE(codec.encode(text, &ids, nullptr, true, &offsets).ok());
  ASSERT_EQ(offsets.size(), ids.size());
  const std::vector<TextSpan> want = {{0, 0},   {0, 2},   {2, 5},   {5, 7},   {7, 8},   {8, 8},
                                      {8, 10},  {10, 13}, {13, 15}, {15, 16}, {16, 17}, {17, 18},
                                      {18, 19}, {19, 21}, {21, 22}, {22, 23}, {23, 24}, {24, 25}};
  EXPECT_EQ(offsets, want);
  EXPECT_EQ(ids[0], PieceCodec::kCapId);
  EXPECT_EQ(ids[5], PieceCodec::kUpperWordId);
  EXPECT_EQ(ids[12], 0xFF);
  EXPECT_EQ(ids[13], codec.piece_id("ğ"));
  std::vector<int32_t> plain;
  ASSERT_TRUE(codec.encode(text, &plain, nullptr, true).ok());
  EXPECT_EQ(ids, plain);
}

TEST(PieceCodecTest, InvalidUtf8IsAnErrorWithOffsetUnlessAllowed) {
  const PieceCodec codec = make_codec();
  StatusOr<std::vector<int32_t>> ids = codec.encode("ab\xff");
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.status().message().find("2"), std::string::npos);
  std::vector<int32_t> raw;
  ASSERT_TRUE(codec.encode("ab\xff", &raw, nullptr, /*allow_invalid=*/true).ok());
  EXPECT_EQ(codec.decode(raw).value(), "ab\xff");
}

TEST(PieceCodecTest, DecodeRejectsBadIds) {
  const PieceCodec codec = make_codec();
  EXPECT_FALSE(codec.decode({codec.vocab_size()}).ok());
  EXPECT_FALSE(codec.decode({-1}).ok());
  EXPECT_FALSE(codec.decode({PieceCodec::kCapId}).ok());
  EXPECT_FALSE(codec.decode({PieceCodec::kCapId, 'a'}).ok());
  EXPECT_FALSE(codec.decode({PieceCodec::kUpperWordId, codec.piece_id(" ")}).ok());
}

TEST(PieceCodecTest, DuplicateOrEmptyPiecesAreRejected) {
  EXPECT_FALSE(PieceCodec::create({"a", "a"}, nullptr).ok());
  EXPECT_FALSE(PieceCodec::create({"a", ""}, nullptr).ok());
}

TEST(PieceCodecTest, ACodecFromItsImageEncodesAndDecodesAlike) {
  const PieceCodec codec = make_codec();
  const std::string image = codec.image();
  // In 8-byte aligned memory (as a mapped file is), owned by the codec.
  auto words = std::make_shared<std::vector<uint64_t>>((image.size() + 7) / 8);
  std::memcpy(words->data(), image.data(), image.size());
  const std::string_view bytes(reinterpret_cast<const char*>(words->data()), image.size());
  StatusOr<PieceCodec> viewed = PieceCodec::from_image(bytes, words, codec_segmenter());
  words.reset();
  ASSERT_TRUE(viewed.ok()) << viewed.status().to_string();
  EXPECT_EQ(viewed->pieces(), codec.pieces());
  EXPECT_EQ(viewed->vocab_size(), codec.vocab_size());
  for (const std::string text : {"Evlerde bu kadar.", "BUSTAN ış", "çğöü 12 \xf0\x9f\x98\x80"}) {
    const std::vector<int32_t> want = codec.encode(text).value();
    EXPECT_EQ(viewed->encode(text).value(), want) << text;
    EXPECT_EQ(viewed->decode(want).value(), text);
  }
  EXPECT_EQ(viewed->piece_id("ler"), codec.piece_id("ler"));
  EXPECT_EQ(viewed->piece_id("xyz"), -1);
}

TEST(PieceCodecTest, AnImageThatDoesNotNumberItsPiecesIsRejected) {
  FlatStringMap<int32_t> ids;  // ids 259 and 261: 260 is missing
  ids.insert("ev", PieceCodec::kFirstPieceId);
  ids.insert("ler", PieceCodec::kFirstPieceId + 2);
  const std::string image = ids.image();
  auto words = std::make_shared<std::vector<uint64_t>>((image.size() + 7) / 8);
  std::memcpy(words->data(), image.data(), image.size());
  const std::string_view bytes(reinterpret_cast<const char*>(words->data()), image.size());
  const StatusOr<PieceCodec> codec = PieceCodec::from_image(bytes, words, nullptr);
  ASSERT_FALSE(codec.ok());
  EXPECT_EQ(codec.status().code(), StatusCode::kInvalidArgument);
  const StatusOr<PieceCodec> garbage = PieceCodec::from_image(bytes.substr(0, 30), words, nullptr);
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidArgument);
}

TEST(PieceCodecTest, SegmentWordKeepsOriginalCase) {
  const PieceCodec codec = make_codec();
  EXPECT_EQ(codec.segment_word("Evlerde").value(), (std::vector<std::string>{"Ev", "ler", "de"}));
}

TEST(PieceCodecTest, SegmenterThatDoesNotSpellTheWordIsIgnored) {
  const PieceCodec codec =
      PieceCodec::create({"ab"}, by([](std::string_view) { return std::vector<std::string>{"x"}; }))
          .value();
  EXPECT_EQ(codec.encode("ab").value(), (std::vector<int32_t>{codec.piece_id("ab")}));
}

class HalvesSegmenter : public WordSegmenter {
 public:
  std::vector<std::string> cut(std::string_view word) const override {
    if (word.size() < 4 || word.size() % 2 != 0) return {std::string(word)};
    return {std::string(word.substr(0, word.size() / 2)),
            std::string(word.substr(word.size() / 2))};
  }
  std::string name() const override { return "halves"; }
};

TEST(PieceCodecTest, AcceptsASegmenterInterface) {
  const PieceCodec codec =
      PieceCodec::create({"ev", "de", "evde"}, std::make_shared<HalvesSegmenter>()).value();
  EXPECT_EQ(codec.encode("evde").value(),
            (std::vector<int32_t>{codec.piece_id("ev"), codec.piece_id("de")}));
}

// Fails the calls while *failing is set, else segments "evler" as ev|ler.
class FailingSegmenter : public Segmenter {
 public:
  explicit FailingSegmenter(const bool* failing) : failing_(failing) {}
  StatusOr<Segmentation> segment(const std::vector<std::string>& words) const override {
    if (*failing_) return io_error("segmenter failed (injected)");
    Segmentation out;
    for (const std::string& w : words) {
      out.push_back(w == "evler" ? std::vector<std::string>{"ev", "ler"}
                                 : std::vector<std::string>{w});
    }
    return out;
  }
  std::string name() const override { return "failing"; }

 private:
  const bool* failing_;
};

TEST(PieceCodecTest, SegmenterErrorFailsTheCallAndIsNotCached) {
  bool failing = true;
  const PieceCodec codec =
      PieceCodec::create({"ev", "ler", "evler"}, std::make_shared<FailingSegmenter>(&failing))
          .value();
  std::vector<int32_t> ids;
  const Status s = codec.encode("evler", &ids);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("injected"), std::string::npos);
  EXPECT_EQ(codec.segment_word("evler").status().code(), StatusCode::kIoError);
  failing = false;  // the next calls ask the segmenter again: its pieces, not the whole run
  EXPECT_EQ(codec.encode("evler").value(),
            (std::vector<int32_t>{codec.piece_id("ev"), codec.piece_id("ler")}));
  EXPECT_EQ(codec.segment_word("Evler").value(), (std::vector<std::string>{"Ev", "ler"}));
}

TEST(PieceCodecTest, CacheDoesNotChangeIds) {
  PieceCodecOptions no_cache;
  no_cache.cache_capacity = 0;
  const PieceCodec cached = make_codec();
  const PieceCodec uncached =
      PieceCodec::create(cached.pieces(), by(pairs_segmenter), no_cache).value();
  std::mt19937_64 rng(99);
  for (int i = 0; i < 500; ++i) {
    const std::string s = testing::random_text(rng, 40);
    if (s.find("evlerde") != std::string::npos) continue;  // make_codec's special word
    EXPECT_EQ(cached.encode(s).value(), uncached.encode(s).value());
    EXPECT_EQ(cached.encode(s).value(), uncached.encode(s).value());  // now from the cache
  }
}

TEST(PieceCodecTest, ConcurrentEncodesAgree) {
  const PieceCodec codec = make_codec();
  std::vector<std::string> texts;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 400; ++i) texts.push_back(testing::random_text(rng, 40));
  std::vector<std::vector<int32_t>> a(texts.size()), b(texts.size());
  auto run = [&codec, &texts](std::vector<std::vector<int32_t>>* out) {
    for (size_t i = 0; i < texts.size(); ++i) (*out)[i] = codec.encode(texts[i]).value();
  };
  std::thread t1(run, &a);
  std::thread t2(run, &b);
  t1.join();
  t2.join();
  EXPECT_EQ(a, b);
}

TEST(PieceCodecTest, RandomTextRoundTripsExactly) {
  const PieceCodec codec = make_codec();
  std::mt19937_64 rng(20260422);
  for (int i = 0; i < 10000; ++i) {
    const std::string s = testing::random_text(rng, 60);
    ASSERT_EQ(round_trip(codec, s), s) << "case " << i;
  }
}

TEST(PieceCodecTest, RandomBytesRoundTripWithAllowInvalid) {
  const PieceCodec codec = make_codec();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = testing::random_bytes(rng);
    std::vector<int32_t> ids;
    ASSERT_TRUE(codec.encode(s, &ids, nullptr, true).ok());
    ASSERT_EQ(codec.decode(ids).value(), s);
  }
}

TEST(PieceCodecTest, SegmenterCuttingInsideACodePointIsIgnored) {
  // Found by fuzz_piece_codec: byte pairs cut "aüe" inside ü; the codec must fall back to the
  // whole run instead of miscounting code points.
  const PieceCodec codec = PieceCodec::create({"a", "e", "ü"}, by([](std::string_view w) {
                                                std::vector<std::string> out;
                                                for (size_t i = 0; i < w.size(); i += 2)
                                                  out.emplace_back(w.substr(i, 2));
                                                return out;
                                              }))
                               .value();
  for (const std::string s : {"aüE", "aüe", "AÜE", "üüü ağ"}) EXPECT_EQ(round_trip(codec, s), s);
  // Whole run "aüe" is not a piece: one unit per code point.
  EXPECT_EQ(id_strings(codec, "aüE"), (std::vector<std::string>{"a", "ü", "<cap>", "e"}));
  EXPECT_EQ(codec.segment_word("aüE").value(), (std::vector<std::string>{"aüE"}));
}

TEST(PieceCodecTest, DevSentencesRoundTrip) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/dev_ud_sentences.txt");
  const PieceCodec codec = make_codec();
  LineReader reader;
  ASSERT_TRUE(reader.open(path).ok());
  std::string line;
  size_t n = 0;
  while (reader.next(&line)) {
    ASSERT_EQ(round_trip(codec, line), line);
    ++n;
  }
  EXPECT_GT(n, 7000u);
}

PieceCodec whole_run_codec(std::vector<std::string> pieces, bool backoff) {
  PieceCodecOptions options;
  options.vocabulary_backoff = backoff;
  return PieceCodec::create(std::move(pieces), by([](std::string_view w) {
                              return std::vector<std::string>{std::string(w)};
                            }),
                            options)
      .value();
}

TEST(PieceCodecTest, BackoffSplitsAnUnknownPieceIntoFewestVocabularyPieces) {
  const PieceCodec codec = whole_run_codec({"k", "i", "t", "a", "p", "l", "r", "ı", "m", "z", "d",
                                            "n", "kitap", "lar", "ımız", "dan", "kitaplar"},
                                           true);
  EXPECT_EQ(id_strings(codec, "Kitaplarımızdan"),
            (std::vector<std::string>{"<cap>", "kitaplar", "ımız", "dan"}));
  EXPECT_EQ(round_trip(codec, "Kitaplarımızdan KİTAPLAR"), "Kitaplarımızdan KİTAPLAR");
}

TEST(PieceCodecTest, SegmentWordShowsSegmenterPiecesTheVocabularyLacks) {
  const PieceCodec codec = whole_run_codec({"ev", "ler"}, true);
  EXPECT_EQ(codec.segment_word("Evxler").value(), (std::vector<std::string>{"Evxler"}));
  EXPECT_EQ(id_strings(codec, "Evxler"),
            (std::vector<std::string>{"<cap>", "ev", "<0x78>", "ler"}));
}

TEST(PieceCodecTest, BackoffTiesGoToTheLongestFirstPiece) {
  const PieceCodec codec = whole_run_codec({"a", "b", "c", "ab", "bc"}, true);
  EXPECT_EQ(id_strings(codec, "abc"), (std::vector<std::string>{"ab", "c"}));
}

TEST(PieceCodecTest, BackoffUsesBytesOnlyForCharactersOutsideTheVocabulary) {
  const PieceCodec codec = whole_run_codec({"ev", "ler"}, true);
  const std::vector<int32_t> ids = codec.encode("evxler").value();
  EXPECT_EQ(ids, (std::vector<int32_t>{codec.piece_id("ev"), 'x', codec.piece_id("ler")}));
}

TEST(PieceCodecTest, BackoffSplitsANumberIntoFewestVocabularyPieces) {
  const PieceCodec codec = whole_run_codec({"467", ".", "2", "22"}, true);
  EXPECT_EQ(
      codec.encode("467.22").value(),
      (std::vector<int32_t>{codec.piece_id("467"), codec.piece_id("."), codec.piece_id("22")}));
  EXPECT_EQ(codec.encode("467,5").value(), (std::vector<int32_t>{codec.piece_id("467"), ',', '5'}));
  EXPECT_EQ(codec.segment_word("467.22").value(), (std::vector<std::string>{"467.22"}));
  EXPECT_EQ(round_trip(codec, "467.22 1,5 ٣.٤"), "467.22 1,5 ٣.٤");
}

TEST(PieceCodecTest, WithoutBackoffUnknownPiecesSplitIntoCharacters) {
  const PieceCodec codec = whole_run_codec({"e", "v", "l", "r", "ev", "ler"}, false);
  EXPECT_EQ(id_strings(codec, "evler"), (std::vector<std::string>{"e", "v", "l", "e", "r"}));
}

TEST(PieceCodecTest, BackoffRandomTextRoundTripsExactly) {
  const PieceCodec codec = whole_run_codec({"ev", "ler", "de", "a", "i", "ı", "st", "an"}, true);
  std::mt19937_64 rng(77);
  for (int i = 0; i < 3000; ++i) {
    const std::string text = testing::random_text(rng);
    ASSERT_EQ(round_trip(codec, text), text);
  }
}

// Codec whose segmenter cuts every run into single code points, with the apostrophe convention.
PieceCodec apostrophe_codec(bool turkish_apostrophe) {
  PieceCodecOptions options;
  options.turkish_apostrophe = turkish_apostrophe;
  std::vector<std::string> pieces = {"a", "n", "k",      "r",   "d",  "l",   "ı",  "e",
                                     "v", "'", "ankara", "lar", "da", "nın", "'da"};
  return PieceCodec::create(std::move(pieces), by([](std::string_view w) {
                              std::vector<std::string> out;
                              for (size_t pos = 0; pos < w.size();) {
                                const size_t n = utf8::decode_one(w, pos).length;
                                out.emplace_back(w.substr(pos, n));
                                pos += n;
                              }
                              return out;
                            }),
                            options)
      .value();
}

TEST(PieceCodecTest, ApostropheKeepsProperNameAndSuffixChainWhole) {
  const PieceCodec codec = apostrophe_codec(true);
  EXPECT_EQ(codec.segment_word("Ankara'da").value(), (std::vector<std::string>{"Ankara", "'da"}));
  // Outside the vocabulary still whole (the ids take the fewest vocabulary pieces inside).
  EXPECT_EQ(codec.segment_word("Ankara'nın").value(), (std::vector<std::string>{"Ankara", "'nın"}));
  EXPECT_EQ(id_strings(codec, "Ankara'nın"),
            (std::vector<std::string>{"<cap>", "ankara", "'", "nın"}));
  EXPECT_EQ(codec.segment_word("1990'larda").value(), (std::vector<std::string>{"1990", "'larda"}));
  // Runs away from an apostrophe, and an apostrophe without a run on both sides, are segmented.
  EXPECT_EQ(codec.segment_word("evde").value(), (std::vector<std::string>{"e", "v", "d", "e"}));
  EXPECT_EQ(codec.segment_word("da'").value(), (std::vector<std::string>{"d", "a", "'"}));
  EXPECT_EQ(codec.segment_word("'da").value(), (std::vector<std::string>{"'", "d", "a"}));
}

TEST(PieceCodecTest, ApostropheSuffixChainIsOneSpanOfIds) {
  const PieceCodec codec = apostrophe_codec(true);
  std::vector<int32_t> ids;
  std::vector<uint8_t> starts;
  ASSERT_TRUE(codec.encode("Ankara'da", &ids, &starts).ok());
  EXPECT_EQ(ids, (std::vector<int32_t>{PieceCodec::kCapId, codec.piece_id("ankara"),
                                       codec.piece_id("'da")}));
  EXPECT_EQ(starts, (std::vector<uint8_t>{1, 0, 1}));
  for (const std::string text : {"ANKARA'DA", "Ankara'larda 1990’da", "ankara'DA x'", "'da'da"}) {
    EXPECT_EQ(round_trip(codec, text), text);
  }
}

TEST(PieceCodecTest, WithoutApostropheConventionEveryRunIsSegmented) {
  const PieceCodec codec = apostrophe_codec(false);
  EXPECT_EQ(codec.segment_word("Ankara'da").value(),
            (std::vector<std::string>{"A", "n", "k", "a", "r", "a", "'", "d", "a"}));
}

}  // namespace
}  // namespace morpheus::tokenizer
