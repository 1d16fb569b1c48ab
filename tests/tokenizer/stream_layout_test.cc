// SPDX-License-Identifier: MIT
// The id stream's layout (tokenizer/piece_codec.h, format 4): word-initial pieces carrying the
// space before a word, the implicit space at the start of a line, whole-morpheme merges.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/support/codec_test_util.h"
#include "tests/support/test_support.h"
#include "tokenizer/piece_codec.h"

namespace morpheus::tokenizer::stream_layout_test {
namespace {

using testing::FnSegmenter;
using testing::id_strings;
using testing::round_trip;

// kitaplarımızdan -> kitap lar ımız dan, evlerde -> ev ler de, every other run whole.
std::vector<std::string> morphemes(std::string_view w) {
  if (w == "kitaplarımızdan") return {"kitap", "lar", "ımız", "dan"};
  if (w == "kitaplar") return {"kitap", "lar"};
  if (w == "evlerde") return {"ev", "ler", "de"};
  if (w == "evler") return {"ev", "ler"};
  return {std::string(w)};
}

PieceCodecOptions layout(bool line_start, bool merge) {
  PieceCodecOptions options;
  options.vocabulary_backoff = true;
  options.word_initial = true;
  options.line_start_prefix = line_start;
  options.merge_pieces = merge;
  return options;
}

// Letters, a few morphemes, and word-initial pieces of "ev", "kedi", "kitap" (none of "ler").
PieceCodec make_codec(bool line_start, bool merge = false, std::vector<std::string> extra = {}) {
  std::vector<std::string> pieces = {"a",     "b",   "d",    "e",   "i",   "k",     "l",
                                     "m",     "n",   "p",    "r",   "t",   "v",     "ı",
                                     "z",     " ",   ".",    "ev",  "ler", "de",    "kedi",
                                     "kitap", "lar", "ımız", "dan", " ev", " kedi", " kitap"};
  pieces.insert(pieces.end(), extra.begin(), extra.end());
  return PieceCodec::create(pieces, std::make_shared<FnSegmenter>(morphemes),
                            layout(line_start, merge))
      .value();
}

using Pieces = std::vector<std::string>;

TEST(StreamLayoutTest, AWordInitialPieceCarriesTheSpaceBeforeAWord) {
  const PieceCodec codec = make_codec(false);
  EXPECT_EQ(id_strings(codec, "ev kedi"), (Pieces{"ev", " kedi"}));
  EXPECT_EQ(id_strings(codec, "kedi evlerde"), (Pieces{"kedi", " ev", "ler", "de"}));
  EXPECT_EQ(round_trip(codec, "kedi evlerde"), "kedi evlerde");
}

TEST(StreamLayoutTest, AMissingWordInitialPieceLeavesTheSpaceItsOwnId) {
  const PieceCodec codec = make_codec(false);
  EXPECT_EQ(id_strings(codec, "ev ler"), (Pieces{"ev", " ", "ler"}));
  EXPECT_EQ(id_strings(codec, "ev zz"), (Pieces{"ev", " ", "z", "z"}));
  EXPECT_EQ(round_trip(codec, "ev ler zz"), "ev ler zz");
}

TEST(StreamLayoutTest, OnlyASingleSpaceBeforeALetterRunIsCarried) {
  const PieceCodec codec = make_codec(false);
  EXPECT_EQ(id_strings(codec, "ev  kedi"), (Pieces{"ev", " ", " ", "kedi"}));
  EXPECT_EQ(id_strings(codec, "ev\tkedi"), (Pieces{"ev", "<0x09>", "kedi"}));
  EXPECT_EQ(id_strings(codec, "ev\xC2\xA0kedi"), (Pieces{"ev", "<0xC2>", "<0xA0>", "kedi"}));
  EXPECT_EQ(id_strings(codec, "ev .kedi"), (Pieces{"ev", " ", ".", "kedi"}));
  for (const std::string s : {"ev  kedi", "ev\tkedi", "ev\xC2\xA0kedi", "ev .kedi", "ev 12 kedi"}) {
    EXPECT_EQ(round_trip(codec, s), s);
  }
}

TEST(StreamLayoutTest, DigitsAndPunctuationTakeTheWordInitialPieceOfTheWholeSpan) {
  const PieceCodec codec = make_codec(true, false, {",", " ,", " 2026", "(", " ("});
  EXPECT_EQ(id_strings(codec, "ev , kedi"), (Pieces{" ev", " ,", " kedi"}));
  EXPECT_EQ(id_strings(codec, "ev 2026 ,"), (Pieces{" ev", " 2026", " ,"}));
  EXPECT_EQ(id_strings(codec, "ev 2027"),
            (Pieces{" ev", " ", "<0x32>", "<0x30>", "<0x32>", "<0x37>"}));
  EXPECT_EQ(id_strings(codec, "(ev)"), (Pieces{" (", "ev", "<0x29>"}));  // "(" starts the line
  EXPECT_EQ(id_strings(codec, "ev,"), (Pieces{" ev", ","}));
  for (const std::string s : {"ev , kedi", "ev 2026 ,", "ev 2027", "(ev)", " (ev)", "ev,\n, ,"}) {
    EXPECT_EQ(round_trip(codec, s), s);
  }
}

TEST(StreamLayoutTest, CaseTokensComeBeforeTheWordInitialPiece) {
  const PieceCodec codec = make_codec(false);
  EXPECT_EQ(id_strings(codec, "ev Kedi"), (Pieces{"ev", "<cap>", " kedi"}));
  EXPECT_EQ(id_strings(codec, "ev KEDİ"), (Pieces{"ev", "<upper>", " kedi"}));
  EXPECT_EQ(id_strings(codec, "ev EVLERDE"), (Pieces{"ev", "<upper_word>", " ev", "ler", "de"}));
  // The scope of <upper_word> ends at the next word-initial piece.
  EXPECT_EQ(id_strings(codec, "EVLERDE kedi"),
            (Pieces{"<upper_word>", "ev", "ler", "de", " kedi"}));
  for (const std::string s : {"ev Kedi", "ev KEDİ", "ev EVLERDE", "Ev Evlerde", "EVLERDE kedi"}) {
    EXPECT_EQ(round_trip(codec, s), s);
  }
}

TEST(StreamLayoutTest, AMixedCaseFirstPieceLeavesTheSpaceItsOwnId) {
  const PieceCodec codec = make_codec(false);
  EXPECT_EQ(id_strings(codec, "ev kEdi"),
            (Pieces{"ev", " ", "<0x6B>", "<0x45>", "<0x64>", "<0x69>"}));
  EXPECT_EQ(round_trip(codec, "ev kEdi"), "ev kEdi");
}

TEST(StreamLayoutTest, WithoutTheLinePrefixAWordAtTheStartIsPlain) {
  const PieceCodec codec = make_codec(false);
  EXPECT_EQ(id_strings(codec, "kedi"), (Pieces{"kedi"}));
  EXPECT_EQ(id_strings(codec, " kedi"), (Pieces{" kedi"}));
  EXPECT_EQ(round_trip(codec, " kedi\n kedi"), " kedi\n kedi");
}

TEST(StreamLayoutTest, AWordAtTheStartOfALineGetsTheIdsItGetsAfterASpace) {
  const PieceCodec codec = make_codec(true);
  EXPECT_EQ(id_strings(codec, "Kedi ev\nkedi"),
            (Pieces{"<cap>", " kedi", " ev", "<0x0A>", " kedi"}));
  EXPECT_EQ(codec.encode("ev kedi").value()[1], codec.encode("kedi").value()[0]);
  EXPECT_EQ(round_trip(codec, "Kedi ev\nkedi"), "Kedi ev\nkedi");
  EXPECT_EQ(round_trip(codec, "kedi\r\nkedi\n\nkedi"), "kedi\r\nkedi\n\nkedi");
}

TEST(StreamLayoutTest, ARealSpaceAtTheStartOfALineStaysItsOwnId) {
  const PieceCodec codec = make_codec(true);
  EXPECT_EQ(id_strings(codec, " kedi"), (Pieces{" ", "kedi"}));
  EXPECT_EQ(id_strings(codec, "ev\n kedi"), (Pieces{" ev", "<0x0A>", " ", "kedi"}));
  for (const std::string s : {" kedi", "ev\n kedi", "  kedi", "\n\n ev", " \n ev ", ""}) {
    EXPECT_EQ(round_trip(codec, s), s);
  }
}

TEST(StreamLayoutTest, OffsetsTileTheTextWithTheSpaceInsideTheWordInitialId) {
  const PieceCodec codec = make_codec(true);
  const std::string text = "Kedi ev ler\nkedi";
  std::vector<int32_t> ids;
  std::vector<TextSpan> offsets;
  ASSERT_TRUE(codec.encode(text, &ids, nullptr, false, &offsets).ok());
  ASSERT_EQ(offsets.size(), ids.size());
  const std::vector<TextSpan> want = {{0, 0}, {0, 4}, {4, 7}, {7, 8}, {8, 11}, {11, 12}, {12, 16}};
  EXPECT_EQ(offsets, want);  // <cap> " kedi"(implicit) " ev" " " ler \n " kedi"(implicit)
  size_t end = 0;
  for (const TextSpan& span : offsets) {
    EXPECT_EQ(span.begin, end);
    end = span.end;
  }
  EXPECT_EQ(end, text.size());
}

TEST(StreamLayoutTest, WordStartFlagsMarkTheWordInitialIdAndAHeldBackSpace) {
  const PieceCodec codec = make_codec(false);
  std::vector<int32_t> ids;
  std::vector<uint8_t> starts;
  ASSERT_TRUE(codec.encode("ev kedi ler", &ids, &starts).ok());
  EXPECT_EQ(starts, (std::vector<uint8_t>{1, 1, 1, 1}));  // ev, " kedi", " ", ler
}

TEST(StreamLayoutTest, DecodeOfAWordInitialPieceKeepsItsSpaceInsideALine) {
  const PieceCodec codec = make_codec(true);
  const int32_t kedi = codec.piece_id(" kedi");
  EXPECT_EQ(codec.decode({kedi, kedi}).value(), "kedi kedi");
  EXPECT_EQ(codec.decode({PieceCodec::kCapId, kedi}).value(), "Kedi");
  EXPECT_EQ(codec.decode({codec.piece_id("ev"), PieceCodec::kUpperId, kedi}).value(), "ev KEDİ");
  EXPECT_EQ(codec.word_initial_id(codec.piece_id("kedi")), kedi);
  EXPECT_EQ(codec.word_initial_id(codec.piece_id("ler")), -1);
  EXPECT_TRUE(codec.is_word_initial(kedi));
  EXPECT_FALSE(codec.is_word_initial(codec.piece_id(" ")));
}

TEST(StreamLayoutTest, WithoutTheLayoutASpacedPieceIsAPlainPiece) {
  const PieceCodec codec =
      PieceCodec::create({"kedi", " kedi", " "}, std::make_shared<FnSegmenter>(morphemes)).value();
  EXPECT_EQ(id_strings(codec, "kedi kedi"), (Pieces{"kedi", " ", "kedi"}));
  EXPECT_EQ(codec.word_initial_id(codec.piece_id("kedi")), -1);
}

TEST(StreamLayoutTest, MergesJoinWholeMorphemesIntoTheFewestIds) {
  const PieceCodec codec = make_codec(false, true, {"larımız", "kitaplar", "ımızdan", " kitaplar"});
  // kitap lar ımız dan: kitaplar + ımızdan (2 ids) beats kitap + larımız + dan (3).
  EXPECT_EQ(id_strings(codec, "kitaplarımızdan"), (Pieces{"kitaplar", "ımızdan"}));
  EXPECT_EQ(id_strings(codec, "ev kitaplarımızdan"), (Pieces{"ev", " kitaplar", "ımızdan"}));
  EXPECT_EQ(id_strings(codec, "evlerde"), (Pieces{"ev", "ler", "de"}));  // "evler" is not a piece
  EXPECT_EQ(codec.segment_word("Kitaplarımızdan").value(),
            (Pieces{"Kitap", "lar", "ımız", "dan"}));  // segment shows the segmenter's pieces
}

TEST(StreamLayoutTest, MergesNeverCutInsideASegmenterPiece) {
  // "apl" and "arı" cross the boundaries of kitap|lar|ımız: never used, though in the vocabulary.
  const PieceCodec codec = make_codec(false, true, {"kit", "apl", "arı", "mız"});
  EXPECT_EQ(id_strings(codec, "kitaplarımızdan"), (Pieces{"kitap", "lar", "ımız", "dan"}));
}

TEST(StreamLayoutTest, WithoutMergesTheVocabularyDoesNotJoinPieces) {
  const PieceCodec codec = make_codec(false, false, {"kitaplar", "larımız"});
  EXPECT_EQ(id_strings(codec, "kitaplarımızdan"), (Pieces{"kitap", "lar", "ımız", "dan"}));
}

// Random words cut at random places, a vocabulary of random joins of their pieces: every cut of
// the merged ids is one of the segmenter's cuts, and the text round-trips.
TEST(StreamLayoutTest, EveryCutOfAMergedStreamIsASegmenterCut) {
  std::mt19937_64 rng(48);
  const std::string letters = "abcdeklmnr";
  for (int trial = 0; trial < 300; ++trial) {
    std::string word;
    const size_t length = 2 + rng() % 12;
    for (size_t i = 0; i < length; ++i) word += letters[rng() % letters.size()];
    std::set<size_t> cuts;
    for (size_t i = 1; i < length; ++i) {
      if (rng() % 3 == 0) cuts.insert(i);
    }
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t c : cuts) {
      parts.push_back(word.substr(start, c - start));
      start = c;
    }
    parts.push_back(word.substr(start));
    std::vector<std::string> pieces;
    for (char c : letters) pieces.emplace_back(1, c);
    for (size_t i = 0; i < parts.size(); ++i) {  // random joins, and random inner substrings
      std::string joined;
      for (size_t j = i; j < parts.size(); ++j) {
        joined += parts[j];
        if (rng() % 2 == 0 && joined.size() > 1) pieces.push_back(joined);
      }
      if (word.size() > 3) pieces.push_back(word.substr(rng() % (word.size() - 2), 2));
    }
    std::sort(pieces.begin(), pieces.end());
    pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
    const std::vector<std::string> fixed = parts;
    const PieceCodec codec =
        PieceCodec::create(pieces, std::make_shared<FnSegmenter>([fixed, word](std::string_view w) {
                             return w == word ? fixed : std::vector<std::string>{std::string(w)};
                           }),
                           layout(true, true))
            .value();
    std::vector<int32_t> ids;
    std::vector<TextSpan> offsets;
    ASSERT_TRUE(codec.encode(word, &ids, nullptr, false, &offsets).ok());
    for (size_t i = 1; i < offsets.size(); ++i) {
      // A cut inside a segmenter piece is allowed only where that piece is not in the
      // vocabulary (its back-off); every piece here but the joins is one letter or in it.
      const size_t at = offsets[i].begin;
      bool inside_unknown = false;
      size_t begin = 0;
      for (const std::string& p : parts) {
        if (at > begin && at < begin + p.size() && codec.piece_id(p) < 0) inside_unknown = true;
        begin += p.size();
      }
      EXPECT_TRUE(cuts.count(at) > 0 || inside_unknown) << word << " cut at " << at;
    }
    EXPECT_EQ(codec.decode(ids).value(), word);
  }
}

TEST(StreamLayoutTest, RandomTextRoundTripsExactly) {
  for (const bool line_start : {false, true}) {
    const PieceCodec codec = make_codec(line_start, true, {"larımız", "kitaplar", " ler", "  "});
    std::mt19937_64 rng(line_start ? 4801 : 4802);
    for (int i = 0; i < 10000; ++i) {
      std::string s = testing::random_text(rng, 60);
      if (i % 3 == 0) s = " " + s;
      if (i % 5 == 0) s += "\n kedi Evlerde\nkedi";
      ASSERT_EQ(round_trip(codec, s), s) << "case " << i;
    }
  }
}

TEST(StreamLayoutTest, RandomBytesRoundTripWithAllowInvalid) {
  const PieceCodec codec = make_codec(true, true, {"kitaplar"});
  std::mt19937_64 rng(4803);
  for (int i = 0; i < 2000; ++i) {
    const std::string s = testing::random_bytes(rng) + " kedi";
    std::vector<int32_t> ids;
    ASSERT_TRUE(codec.encode(s, &ids, nullptr, true).ok());
    ASSERT_EQ(codec.decode(ids).value(), s);
  }
}

TEST(StreamLayoutTest, DevSentencesRoundTrip) {
  const std::string path = testing::shared_data_file("corpus/dev_ud_sentences.txt");
  MORPHEUS_REQUIRE_DATA(path, "corpus/dev_ud_sentences.txt");
  const PieceCodec codec = make_codec(true, true, {"kitaplar", " bir", "bir", " ve", "ve"});
  LineReader reader;
  ASSERT_TRUE(reader.open(path).ok());
  std::string line;
  std::string all;
  size_t n = 0;
  while (reader.next(&line)) {
    ASSERT_EQ(round_trip(codec, line), line);
    if (n < 500) all += line + "\n";
    ++n;
  }
  EXPECT_GT(n, 7000u);
  EXPECT_EQ(round_trip(codec, all), all);  // many lines in one text
}

}  // namespace
}  // namespace morpheus::tokenizer::stream_layout_test
