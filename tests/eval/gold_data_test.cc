// SPDX-License-Identifier: MIT
// Gold loaders on the real files of ../shared/data, and their error messages on bad input.
#include "eval/gold_data.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "eval/morph_metrics.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

std::string concat(const Pieces& p) {
  std::string s;
  for (const auto& x : p) s += x;
  return s;
}

TEST(GoldDataTest, Mc2010HasThousandWordsWithAlternatives) {
  const std::string path = testing::shared_data_file("gold/mc2010_tur_trainset.tsv");
  MORPHEUS_REQUIRE_DATA(path, "Morpho Challenge 2010 gold");
  auto gold = load_mc2010(path);
  ASSERT_TRUE(gold.ok()) << gold.status().to_string();
  ASSERT_EQ(gold->size(), 1000u);
  EXPECT_EQ((*gold)[0].word, "çıkarsanız");
  ASSERT_EQ((*gold)[0].alternatives.size(), 2u);
  EXPECT_EQ((*gold)[0].alternatives[1], (Pieces{"çıkar", "sa", "nız"}));
}

TEST(GoldDataTest, UdStemBoundaryItemsFollowTheReferenceFilters) {
  const std::string path = testing::shared_data_file("gold/ud_stem_boundary_tokens.tsv");
  MORPHEUS_REQUIRE_DATA(path, "UD stem-boundary gold");
  auto items = load_ud_stem_boundary(path);
  ASSERT_TRUE(items.ok()) << items.status().to_string();
  EXPECT_GT(items->size(), 5000u);
  double freq = 0;
  for (const auto& it : *items) {
    ASSERT_GE(it.gold.size(), 2u) << it.word;
    ASSERT_EQ(concat(it.gold), it.word);
    freq += it.freq;
  }
  EXPECT_GT(freq, static_cast<double>(items->size()));  // duplicates became frequencies
}

TEST(GoldDataTest, MorphScoreV1SkipsSinglePieceRows) {
  const std::string path = testing::shared_data_file("gold/morphscore_turkish.csv");
  MORPHEUS_REQUIRE_DATA(path, "MorphScore v1 gold");
  auto items = load_morphscore_v1(path);
  ASSERT_TRUE(items.ok()) << items.status().to_string();
  EXPECT_GT(items->size(), 1000u);
  EXPECT_LT(items->size(), 2000u);  // row 0 "yendirt" has no rest
  EXPECT_EQ((*items)[0].word, "yetişmediydik");
  EXPECT_EQ((*items)[0].gold, (Pieces{"yetiş", "mediydik"}));
}

TEST(GoldDataTest, UdTypesParseUniqueAndAmbiguousRows) {
  const std::string path = testing::shared_data_file("gold/ud_types_segmentation.tsv");
  MORPHEUS_REQUIRE_DATA(path, "UD analyzer segmentations");
  auto rows = load_ud_types(path);
  ASSERT_TRUE(rows.ok()) << rows.status().to_string();
  EXPECT_EQ(rows->size(), 15535u);
  size_t unique = 0, multi = 0;
  for (const auto& r : *rows) {
    unique += r.unique;
    multi += r.alternatives.size() > 1;
  }
  EXPECT_EQ(unique, 12231u);
  EXPECT_GT(multi, 1000u);
}

TEST(GoldDataTest, PennTokensAndTypes) {
  const std::string path = testing::shared_data_file("gold/penn_tokens_segmentation.tsv");
  MORPHEUS_REQUIRE_DATA(path, "Penn segmentations");
  auto tokens = load_penn(path);
  ASSERT_TRUE(tokens.ok()) << tokens.status().to_string();
  EXPECT_EQ(tokens->size(), 130579u);
  EXPECT_EQ((*tokens)[2].root(), "yasa");
  const auto types = penn_types(*tokens);
  EXPECT_LT(types.size(), tokens->size());
  EXPECT_GT(types.size(), 20000u);
}

TEST(GoldDataTest, SigmorphonFiltersLeave856Entries) {
  const std::string path = testing::shared_data_file("gold/sigmorphon2022_tur.gold");
  MORPHEUS_REQUIRE_DATA(path, "SIGMORPHON 2022 gold");
  auto entries = load_sigmorphon(path);
  ASSERT_TRUE(entries.ok()) << entries.status().to_string();
  EXPECT_EQ(entries->size(), 2000u);
  EXPECT_EQ(sigmorphon_items(*entries).size(), 856u);  // the reference's count (§4.3)
}

TEST(GoldDataTest, UdTreebanksGiveRootFamiliesAndProbes) {
  const std::string dir = testing::shared_data_dir();
  MORPHEUS_REQUIRE_DATA(dir, "shared data dir");
  const std::string kenet = testing::shared_data_file("ud/UD_Turkish-Kenet/tr_kenet-ud-dev.conllu");
  MORPHEUS_REQUIRE_DATA(kenet, "UD Kenet dev");
  auto ud = load_conllu(kenet);
  ASSERT_TRUE(ud.ok()) << ud.status().to_string();
  EXPECT_GT(ud->size(), 10000u);
  const RootFamilies families = build_root_families(*ud, {}, 3);
  EXPECT_GT(families.size(), 100u);
  for (const auto& [lemma, forms] : families) ASSERT_GE(forms.size(), 3u) << lemma;
  const auto number = build_probe_items(*ud, "Number", 20);
  const auto cases = build_probe_items(*ud, "Case", 20);
  EXPECT_GT(number.size(), 1000u);
  EXPECT_GT(cases.size(), 1000u);
  EXPECT_GT(build_inflection_items(*ud, 20).size(), 1000u);
  EXPECT_GT(build_lemma_items(*ud).size(), 1000u);
}

UdToken token(const std::string& form, const std::string& lemma, const std::string& upos,
              const std::string& feats = "_") {
  return {form, lemma, upos, feats};
}

using WordPairs = std::vector<std::pair<std::string, std::string>>;

// (word, item.*second) of every item, in order.
template <typename Item>
WordPairs word_pairs(const std::vector<Item>& items, std::string Item::*second) {
  WordPairs out;
  for (const Item& item : items) out.emplace_back(item.word, item.*second);
  return out;
}

TEST(GoldDataTest, LemmaItemsDropSelfLemmasAndProperNounsAndResolveAmbiguity) {
  const std::vector<UdToken> ud = {
      token("Evler", "ev", "NOUN"),         token("ev", "ev", "NOUN"),  // form == lemma
      token("kitabı", "kitap", "NOUN"),  // twice kitap, once kitabe: kitap
      token("kitabı", "kitap", "NOUN"),     token("kitabı", "kitabe", "NOUN"),
      token("Ankarada", "Ankara", "PROPN"), token("geldi", "_", "VERB"),  // lemma unknown
      token("iki", "iki", "NUM"),           token("yazılar", "yazı", "NOUN"),
      token("yazı", "yaz", "NOUN"),        // itself the lemma of yazılar
      token("Kitabı", "Kitabe", "PROPN"),  // proper nouns do not vote
      token("Kitabı", "Kitabe", "PROPN"),
  };
  EXPECT_EQ(word_pairs(build_lemma_items(ud), &LemmaItem::lemma),
            (WordPairs{{"evler", "ev"}, {"kitabı", "kitap"}, {"yazılar", "yazı"}}));
}

TEST(GoldDataTest, InflectionItemsNeedUnambiguousCaseAndNumber) {
  const std::vector<UdToken> ud = {
      token("evler", "ev", "NOUN", "Case=Nom|Number=Plur"),
      token("evde", "ev", "NOUN", "Case=Loc|Number=Sing"),
      token("Kitapta", "kitap", "NOUN", "Case=Loc|Number=Sing"),
      token("yüz", "yüz", "NOUN", "Case=Nom|Number=Sing"),
      token("yüz", "yüz", "NOUN", "Case=Acc|Number=Sing"),  // case ambiguous
      token("su", "su", "NOUN", "Case=Nom"),                // no number
      token("geldi", "gel", "VERB", "Number=Sing"),
  };
  EXPECT_EQ(word_pairs(build_inflection_items(ud, 1), &ProbeItem::label),
            (WordPairs{{"evde", "Loc|Sing"}, {"evler", "Nom|Plur"}, {"kitapta", "Loc|Sing"}}));
  // Nom|Plur has one item.
  EXPECT_EQ(word_pairs(build_inflection_items(ud, 2), &ProbeItem::label),
            (WordPairs{{"evde", "Loc|Sing"}, {"kitapta", "Loc|Sing"}}));
}

TEST(GoldDataTest, HybridLexiconHasRootsAndSuffixes) {
  const std::string dir = testing::shared_data_file("hybrid");
  MORPHEUS_REQUIRE_DATA(dir, "hybrid lexicons");
  auto lex = load_hybrid_lexicon(dir);
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_TRUE(lex->roots.count("ev"));
  EXPECT_TRUE(lex->suffixes.count("ler"));
  EXPECT_FALSE(lex->roots.count("<pad>"));
  EXPECT_TRUE(classify_token("evlerde", *lex).turkish);
}

TEST(GoldDataTest, MalformedRowNamesFileAndLine) {
  const std::string dir = testing::make_temp_dir("gold");
  const std::string path = path_join(dir, "mc.tsv");
  ASSERT_TRUE(write_file_atomic(path, "header\nevler\tev ler\tx\nevde\tev di\tx\n").ok());
  auto gold = load_mc2010(path);
  ASSERT_FALSE(gold.ok());
  EXPECT_NE(gold.status().message().find("mc.tsv: line 3"), std::string::npos)
      << gold.status().message();
}

TEST(GoldDataTest, ConlluSkipsRangesAndEmptyNodes) {
  const std::string dir = testing::make_temp_dir("gold");
  const std::string path = path_join(dir, "x.conllu");
  ASSERT_TRUE(write_file_atomic(path,
                                "# text = x\n1-2\tevdeki\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                "1\tevde\tev\tNOUN\t_\tCase=Loc|Number=Sing\t0\troot\t_\t_\n"
                                "2\tki\tki\tADP\t_\t_\t1\tcase\t_\t_\n"
                                "2.1\tx\tx\tX\t_\t_\t_\t_\t_\t_\n\n")
                  .ok());
  auto ud = load_conllu(path);
  ASSERT_TRUE(ud.ok()) << ud.status().to_string();
  ASSERT_EQ(ud->size(), 2u);
  EXPECT_EQ((*ud)[0].feature("Case"), "Loc");
  EXPECT_EQ((*ud)[0].feature("Person"), "");
}

}  // namespace
}  // namespace morpheus::eval
