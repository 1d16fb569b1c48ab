// SPDX-License-Identifier: MIT
// The root lexicon (morph/root_lexicon.h) on hand-made lexicons: de-softening, the longest root,
// the root snap's analysis (shortest root, voice suffixes, sound rules), the lexicon files.
#include "morph/root_lexicon.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "tests/morph/small_lexicon.h"
#include "tests/support/test_support.h"

namespace morpheus::morph {
namespace {

using testing::small_lexicon;

TEST(RootLexiconTest, DesofteningMatchesTheDictionaryForm) {
  const RootLexicon lex = small_lexicon();
  EXPECT_TRUE(lex.root_match(U"kitab"));  // kitap
  EXPECT_TRUE(lex.root_match(U"ağac"));   // ağaç
  EXPECT_FALSE(lex.root_match(U"kitac"));
  EXPECT_EQ(lex.root_split(U"kitabı"), 5u);
}

TEST(RootLexiconTest, LongestRootWhoseRemainderIsASuffixChain) {
  const RootLexicon lex = small_lexicon();
  EXPECT_EQ(lex.root_split(U"gözlükler"), 6u);  // gözlük + ler, not göz + lükler
  EXPECT_EQ(lex.root_split(U"gözlü"), 3u);      // "gözlü" is not a root: göz + lü
  EXPECT_EQ(lex.root_split(U"evlerde"), 2u);
  EXPECT_EQ(lex.root_split(U"xyz"), 0u);
  EXPECT_EQ(lex.root_split(U"gözlük"), 6u);
}

TEST(RootLexiconTest, ShortestRootOfAtLeastTwoLetters) {
  RootLexicon lex;
  for (const char32_t* r : {U"kal", U"kaldır", U"k", U"yap", U"yapı", U"o"}) lex.add_root(r);
  for (const char32_t* s : {U"dı", U"dırdı", U"aldırdı", U"ıyor", U"yor", U"lar"}) {
    lex.add_suffix_chain(s);
  }
  EXPECT_EQ(lex.root_split(U"kaldırdı"), 6u);      // the paper's rule: kaldır + dı
  EXPECT_EQ(lex.snap_root(U"kaldırdı").root, 3u);  // kal + dırdı, not k + aldırdı
  EXPECT_EQ(lex.root_split(U"yapıyor"), 4u);       // yapı + yor
  EXPECT_EQ(lex.snap_root(U"yapıyor").root, 3u);   // yap + ıyor
  EXPECT_EQ(lex.snap_root(U"olar").root, 1u);      // a one-letter root when it is the only one
  EXPECT_EQ(lex.snap_root(U"xyz").root, 0u);
}

TEST(RootLexiconTest, VoiceSuffixesFollowVerbsOnly) {
  RootLexicon lex;
  lex.add_root(U"kat");  // not flagged as a verb
  lex.add_root(U"katıl", kRootIsVerb);
  lex.add_suffix_chain(U"mıyorum");
  const RootAnalysis a = lex.snap_root(U"katılmıyorum");
  EXPECT_EQ(a.root, 5u);
  EXPECT_TRUE(a.voice_cuts.empty());
}

TEST(RootLexiconTest, ConsonantAssimilationRejectsAJunction) {
  RootLexicon lex;
  lex.add_root(U"bile");  // "bile" + "tin": t after a vowel, and bile is no verb (no causative t)
  lex.add_root(U"bilet");
  lex.add_suffix_chain(U"tin");
  lex.add_suffix_chain(U"in");
  lex.add_suffix_chain(U"da");
  EXPECT_EQ(lex.snap_root(U"biletin").root, 5u);
  lex.add_root(U"kitap");
  EXPECT_EQ(lex.snap_root(U"kitapda").root, 0u);  // d after voiceless p: no junction
}

TEST(RootLexiconTest, VowelHarmonyRejectsAJunction) {
  RootLexicon lex;
  lex.add_root(U"kal");
  lex.add_root(U"kalem");
  lex.add_suffix_chain(U"em");
  lex.add_suffix_chain(U"i");
  lex.add_suffix_chain(U"ken");
  EXPECT_EQ(lex.snap_root(U"kalem").root, 5u);   // kal + em breaks backness: the whole word
  EXPECT_EQ(lex.snap_root(U"kalken").root, 3u);  // ken does not harmonize: kal + ken stays
  EXPECT_EQ(lex.snap_root(U"saati").root, 0u);
  lex.add_root(U"saat", kRootIgnoresHarmony);  // IS_UU: saat takes front suffixes
  EXPECT_EQ(lex.snap_root(U"saati").root, 4u);
}

TEST(RootLexiconTest, ADesoftenedRootMustSoftenBeforeAVowel) {
  RootLexicon lex;
  lex.add_root(U"top");  // top -> topu: does not soften
  lex.add_root(U"kitap", kRootSoftens);
  lex.add_suffix_chain(U"u");
  lex.add_suffix_chain(U"ı");
  EXPECT_EQ(lex.snap_root(U"tobu").root, 0u);
  EXPECT_EQ(lex.snap_root(U"kitabı").root, 5u);
}

TEST(RootLexiconTest, RootFormIsTheDictionaryEntry) {
  RootLexicon lex;
  lex.add_root(U"kitap", kRootSoftens);
  lex.add_root(U"kal", kRootIsVerb);
  lex.add_suffix_chain(U"ı");
  lex.add_suffix_chain(U"dı");
  EXPECT_EQ(lex.snap_root_form(U"kitabı"), U"kitap");  // de-softened back to the entry
  EXPECT_EQ(lex.snap_root_form(U"kitap"), U"kitap");
  EXPECT_EQ(lex.snap_root_form(U"kaldırdı"), U"kal");  // the causative dır is cut off
  EXPECT_EQ(lex.snap_root_form(U"xyzı"), U"");
}

TEST(RootLexiconTest, LoadsFirstFieldsLowerCased) {
  const std::string dir = testing::make_temp_dir("roots");
  const std::string roots = path_join(dir, "roots.txt");
  const std::string suffixes = path_join(dir, "suffixes.txt");
  ASSERT_TRUE(
      write_file_atomic(roots, "KİTAP CL_ISIM IS_SD\nev CL_ISIM IS_OA\ngel CL_FIIL\n\n").ok());
  ASSERT_TRUE(write_file_atomic(suffixes, "lar\nı\n").ok());
  StatusOr<RootLexicon> lex = RootLexicon::load(roots, suffixes);
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_EQ(lex->num_roots(), 3u);
  EXPECT_EQ(lex->root_split(U"kitabı"), 5u);
  EXPECT_EQ(lex->flags_of(U"kitap"), kRootSoftens);
  EXPECT_EQ(lex->flags_of(U"ev"), 0);
  EXPECT_EQ(lex->flags_of(U"gel"), kRootIsVerb);
  EXPECT_EQ(lex->flags_of(U"kit"), -1);
  EXPECT_FALSE(RootLexicon::load(path_join(dir, "missing.txt"), suffixes).ok());
}

TEST(RootLexiconTest, ParseNamesTheLineOfInvalidUtf8AndReadsALastLineWithoutNewline) {
  const StatusOr<RootLexicon> bad = RootLexicon::parse("ev\nkit\xc3(\n", "lar\n", "r.txt", "s.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("r.txt: line 2: invalid UTF-8"), std::string::npos)
      << bad.status().message();
  const StatusOr<RootLexicon> lex = RootLexicon::parse("ev\r\n\nGEL CL_FIIL", "lar", "r", "s");
  ASSERT_TRUE(lex.ok()) << lex.status().to_string();
  EXPECT_EQ(lex->num_roots(), 2u);
  EXPECT_EQ(lex->flags_of(U"gel"), kRootIsVerb);
  EXPECT_EQ(lex->num_suffix_chains(), 1u);
  EXPECT_EQ(lex->root_split(U"evlar"), 2u);
}

TEST(RootLexiconTest, AViewOfItsImageAnswersAsTheParsedLexicon) {
  const StatusOr<RootLexicon> parsed = RootLexicon::parse(
      "kitap CL_ISIM IS_SD\nev CL_ISIM\ngel CL_FIIL\nkal CL_FIIL\nsaat CL_ISIM IS_UU\n",
      "lar\nı\ndı\nler\nlerde\ni\nıyor\n", "r", "s");
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  const std::string image = parsed->image();
  EXPECT_EQ(image, parsed->image());
  // In 8-byte aligned memory, as a mapped file is, owned by the view.
  auto words = std::make_shared<std::vector<uint64_t>>((image.size() + 7) / 8);
  std::memcpy(words->data(), image.data(), image.size());
  const std::string_view bytes(reinterpret_cast<const char*>(words->data()), image.size());
  StatusOr<RootLexicon> view = RootLexicon::view(bytes, words, "lexicon.bin");
  words.reset();  // the view keeps the bytes alive
  ASSERT_TRUE(view.ok()) << view.status().to_string();
  EXPECT_EQ(view->num_roots(), parsed->num_roots());
  EXPECT_EQ(view->num_suffix_chains(), parsed->num_suffix_chains());
  for (const char32_t* w : {U"kitabı", U"evler", U"evlerde", U"kaldırdı", U"saati", U"geldi",
                            U"gelıyor", U"xyz", U"kitap", U"a"}) {
    EXPECT_EQ(view->snap_root(w).root, parsed->snap_root(w).root);
    EXPECT_EQ(view->snap_root(w).voice_cuts, parsed->snap_root(w).voice_cuts);
    EXPECT_EQ(view->root_split(w), parsed->root_split(w));
  }
  EXPECT_EQ(view->flags_of(U"kitap"), kRootSoftens);
  EXPECT_EQ(view->flags_of(U"gel"), kRootIsVerb);
  EXPECT_EQ(view->flags_of(U"kit"), -1);
}

TEST(RootLexiconTest, ADamagedImageIsDataLossNamingIt) {
  const std::string image = testing::small_lexicon().image();
  const auto code_of = [](std::string bytes) {
    auto words = std::make_shared<std::vector<uint64_t>>((bytes.size() + 7) / 8);
    std::memcpy(words->data(), bytes.data(), bytes.size());
    const StatusOr<RootLexicon> view = RootLexicon::view(
        {reinterpret_cast<const char*>(words->data()), bytes.size()}, words, "dir/lexicon.bin");
    if (!view.ok()) {
      EXPECT_NE(view.status().message().find("dir/lexicon.bin"), std::string::npos);
    }
    return view.status().code();
  };
  EXPECT_EQ(code_of(image), StatusCode::kOk);
  EXPECT_EQ(code_of(image.substr(0, image.size() - 8)), StatusCode::kDataLoss);
  EXPECT_EQ(code_of(image.substr(0, 12)), StatusCode::kDataLoss);
  EXPECT_EQ(code_of("MPHSRLEX" + std::string(8, '\xff')), StatusCode::kDataLoss);
  std::string magic = image;
  magic[3] = 'x';
  EXPECT_EQ(code_of(magic), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace morpheus::morph
