// SPDX-License-Identifier: MIT
// Tests for prepare/prepare.h: config resolution and a whole tiny run with a teacher file, checking
// the labels, case bits, chunks and ids that land in the cache.
#include "prepare/prepare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/utf8.h"
#include "prepare/cache.h"
#include "prepare/vocab.h"
#include "tests/support/test_support.h"
#include "tokenizer/char_vocab.h"

namespace morpheus::train {
namespace {

using morph::Cuts;
using tokenizer::CharVocab;

struct TinySetup {
  std::string dir, corpus, teacher, roots, suffixes, out;
};

TinySetup make_tiny() {
  TinySetup t;
  t.dir = testing::make_temp_dir("prepare");
  t.corpus = path_join(t.dir, "corpus.txt");
  t.teacher = path_join(t.dir, "teacher.tsv");
  t.roots = path_join(t.dir, "roots.txt");
  t.suffixes = path_join(t.dir, "suffixes.txt");
  t.out = path_join(t.dir, "out");
  EXPECT_TRUE(
      write_file_atomic(t.corpus,
                        "Türkiye'nin kitapları 1990'larda evlerde.\n"
                        "KİTAPLAR ve evler\n"
                        "123 456\n"
                        "Muvaffakiyetsizleştiricileştiriveremeyebileceklerimizdenmişsinizcesine "
                        "ev\n")
          .ok());
  EXPECT_TRUE(write_file_atomic(t.teacher,
                                "türkiye\ttür ki ye\nnin\tnin\nkitapları\tki tap ları\n"
                                "larda\tlar da\nevlerde\tev ler de\nkitaplar\tki tap lar\n"
                                "ve\tve\nevler\tev ler\nev\tev\n")
                  .ok());
  EXPECT_TRUE(write_file_atomic(t.roots, "kitap CL_ISIM\nev CL_ISIM\ntürkiye IS_OA\n").ok());
  EXPECT_TRUE(write_file_atomic(t.suffixes, "ları\nlar\nlerde\nler\n").ok());
  return t;
}

PrepareOptions tiny_options(const TinySetup& t) {
  PrepareOptions o;
  o.corpus_files = {t.corpus};
  o.out_dir = t.out;
  o.teacher_file = t.teacher;
  o.config.root_lexicon = t.roots;
  o.config.suffix_lexicon = t.suffixes;
  o.config.dev_fraction = 0.0;
  o.config.word_min_count = 1;
  o.config.root_min_count = 1;
  return o;
}

std::string chars_of(const CacheReader& cache, const CharVocab& vocab, uint64_t i) {
  std::u32string s;
  for (uint32_t j = 0; j < cache.word_length(i); ++j)
    s.push_back(vocab.char_of(cache.char_id(i, j)));
  return utf8::encode(s);
}

TEST(PrepareTest, WritesTheTextItLearnedFromWithItsChecksum) {
  const TinySetup t = make_tiny();
  StatusOr<nlohmann::json> summary = run_prepare(tiny_options(t));
  ASSERT_TRUE(summary.ok()) << summary.status().to_string();
  const std::string text_path = path_join(t.out, "corpus.txt");
  StatusOr<std::string> text = read_file(text_path);
  ASSERT_TRUE(text.ok());
  // The three sentences with words, as written (case kept); the digits-only line is not text.
  EXPECT_EQ(text->rfind("Türkiye'nin kitapları 1990'larda evlerde.\nKİTAPLAR ve evler\n", 0), 0u);
  EXPECT_EQ(text->find("123 456"), std::string::npos);
  EXPECT_EQ((*summary)["corpus"]["text"], text_path);
  EXPECT_EQ((*summary)["corpus"]["text_checksum"], file_checksum(text_path).value());
}

TEST(PrepareTest, TeacherLabelsAreTheRootCorrectedTableUnlessRaw) {
  const TinySetup t = make_tiny();
  ASSERT_TRUE(run_prepare(tiny_options(t)).ok());
  const std::vector<std::u32string> words = {U"kitapları", U"evlerde", U"bilinmeyen"};
  StatusOr<std::vector<Cuts>> corrected = teacher_labels(t.out, words, false);
  StatusOr<std::vector<Cuts>> raw = teacher_labels(t.out, words, true);
  ASSERT_TRUE(corrected.ok()) << corrected.status().to_string();
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)[0], (Cuts{2, 5}));     // ki|tap|ları as the teacher file says
  EXPECT_EQ((*corrected)[0], (Cuts{5}));  // kitap|ları: the cut inside the root removed
  EXPECT_EQ((*corrected)[1], (Cuts{2, 5}));
  EXPECT_TRUE((*corrected)[2].empty());  // no table entry and no Morfessor model: whole
  EXPECT_FALSE(teacher_labels(t.dir, words, false).ok());  // not a prepare directory
}

TEST(PrepareTest, RootSnapLabelsCutAtTheRootEvenWhereTheTeacherDidNot) {
  const TinySetup t = make_tiny();
  ASSERT_TRUE(write_file_atomic(t.teacher, "kitapları\tkit apları\nevlerde\tev ler de\n").ok());
  PrepareOptions snap = tiny_options(t);
  snap.config.root_snap = true;
  ASSERT_TRUE(run_prepare(snap).ok());
  StatusOr<std::vector<Cuts>> labels = teacher_labels(t.out, {U"kitapları", U"evlerde"}, false);
  ASSERT_TRUE(labels.ok()) << labels.status().to_string();
  EXPECT_EQ((*labels)[0], (Cuts{5}));  // kitap|ları; the paper's correction would keep kit|apları
  EXPECT_EQ((*labels)[1], (Cuts{2, 5}));
  PrepareOptions paper = tiny_options(t);
  paper.out_dir = path_join(t.dir, "paper");
  ASSERT_TRUE(run_prepare(paper).ok());
  StatusOr<std::vector<Cuts>> kept = teacher_labels(paper.out_dir, {U"kitapları"}, false);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)[0], (Cuts{3}));
  // `morpheus teacher --root-snap` on the same directory: the snap after the paper's rule.
  StatusOr<std::vector<Cuts>> snapped =
      teacher_labels(paper.out_dir, {U"kitapları"}, false, /*root_snap=*/true);
  ASSERT_TRUE(snapped.ok());
  EXPECT_EQ((*snapped)[0], (Cuts{5}));
}

TEST(PrepareTest, LexiconContrastiveRootsAreDictionaryFormsAndLeaveTheLabels) {
  const TinySetup t = make_tiny();
  ASSERT_TRUE(write_file_atomic(t.roots, "kitap CL_ISIM IS_SD\nev CL_ISIM\n").ok());
  ASSERT_TRUE(write_file_atomic(t.teacher,
                                "kitapları\tki tap ları\nkitabı\tkitab ı\n"
                                "evlerde\tevler de\nevler\tevler\n")
                  .ok());
  ASSERT_TRUE(write_file_atomic(t.corpus, "kitapları kitabı evlerde evler\n").ok());
  ASSERT_TRUE(write_file_atomic(t.suffixes, "ları\nı\nlerde\nler\n").ok());
  PrepareOptions lexicon = tiny_options(t);
  lexicon.config.contrastive_roots = "lexicon";
  ASSERT_TRUE(run_prepare(lexicon).ok());
  StatusOr<CountVocab> roots = CountVocab::load(path_join(t.out, "roots.tsv"));
  ASSERT_TRUE(roots.ok());
  // Four words, two dictionary roots: kitap (kitapları, kitabı) and ev (evlerde, evler).
  EXPECT_EQ(roots->size(), 3u);  // with <unk>
  EXPECT_NE(roots->id(U"kitap"), 0u);
  EXPECT_NE(roots->id(U"ev"), 0u);
  // The labels are the teacher's, root-corrected as before: evler stays whole.
  StatusOr<std::vector<Cuts>> labels = teacher_labels(t.out, {U"evler", U"kitabı"}, false);
  ASSERT_TRUE(labels.ok()) << labels.status().to_string();
  EXPECT_TRUE((*labels)[0].empty());
  EXPECT_EQ((*labels)[1], (Cuts{5}));
  // The label rule gives the first label pieces instead: kitap (kitapları, corrected), kitab,
  // evler.
  PrepareOptions label = tiny_options(t);
  label.out_dir = path_join(t.dir, "label");
  ASSERT_TRUE(run_prepare(label).ok());
  StatusOr<CountVocab> label_roots = CountVocab::load(path_join(label.out_dir, "roots.tsv"));
  ASSERT_TRUE(label_roots.ok());
  EXPECT_NE(label_roots->id(U"kitap"), 0u);
  EXPECT_NE(label_roots->id(U"kitab"), 0u);
  EXPECT_NE(label_roots->id(U"evler"), 0u);
  EXPECT_EQ(label_roots->id(U"ev"), 0u);
  // Without the label correction the lexicon is still read for the roots.
  PrepareOptions uncorrected = tiny_options(t);
  uncorrected.out_dir = path_join(t.dir, "uncorrected");
  uncorrected.config.contrastive_roots = "lexicon";
  uncorrected.config.root_correction = false;
  ASSERT_TRUE(run_prepare(uncorrected).ok());
  StatusOr<CountVocab> uncorrected_roots =
      CountVocab::load(path_join(uncorrected.out_dir, "roots.tsv"));
  ASSERT_TRUE(uncorrected_roots.ok());
  EXPECT_EQ(uncorrected_roots->size(), 3u);
}

TEST(PrepareTest, ContrastiveRootsAreLabelOrLexicon) {
  nlohmann::json config = section_defaults<PrepareConfig>();
  EXPECT_EQ(config["prepare"]["contrastive_roots"], "label");
  config["prepare"]["contrastive_roots"] = "lexicon";
  EXPECT_TRUE(section_from_json<PrepareConfig>(config, "test").ok());
  config["prepare"]["contrastive_roots"] = "stem";
  EXPECT_FALSE(section_from_json<PrepareConfig>(config, "test").ok());
}

TEST(PrepareTest, WritesLabelsCaseAndChunksToTheCache) {
  const TinySetup t = make_tiny();
  StatusOr<nlohmann::json> summary = run_prepare(tiny_options(t));
  ASSERT_TRUE(summary.ok()) << summary.status().to_string();
  EXPECT_EQ((*summary)["corpus"]["sentences"], 3);
  EXPECT_EQ((*summary)["corpus"]["lines_without_words"], 1);
  EXPECT_EQ((*summary)["corpus"]["tokens_longer_than_max_word_chars"], 1);
  // kitapları, kitaplar (twice: KİTAPLAR) lose the cut inside the root "kitap".
  EXPECT_EQ((*summary)["root_correction"]["types_changed"], 2);
  EXPECT_EQ((*summary)["root_correction"]["tokens_changed"], 2);

  StatusOr<CacheReader> cache = CacheReader::open(path_join(t.out, "train.cache"));
  ASSERT_TRUE(cache.ok()) << cache.status().to_string();
  StatusOr<CharVocab> vocab = CharVocab::load(path_join(t.out, "char_vocab.json"));
  ASSERT_TRUE(vocab.ok());
  StatusOr<CountVocab> roots = CountVocab::load(path_join(t.out, "roots.tsv"));
  ASSERT_TRUE(roots.ok());
  ASSERT_EQ(cache->num_windows(), 3u);
  // Sentence 1: türkiye | nin | kitapları | larda | evlerde (digits and apostrophes split).
  ASSERT_EQ(cache->window_end(0) - cache->window_begin(0), 5u);
  EXPECT_EQ(chars_of(*cache, *vocab, 0), "türkiye");
  EXPECT_EQ(cache->case_bits(0), 1u);                         // T
  EXPECT_EQ(cache->boundary_bits(0), (1u << 3) | (1u << 5));  // tür|ki|ye: a bare root, kept
  EXPECT_EQ(chars_of(*cache, *vocab, 1), "nin");
  EXPECT_EQ(cache->boundary_bits(2), 1u << 5);  // ki|tap|ları corrected to kitap|ları
  EXPECT_EQ(roots->string_of(cache->root_id(2)), U"kitap");
  EXPECT_EQ(chars_of(*cache, *vocab, 3), "larda");
  EXPECT_EQ(cache->boundary_bits(3), 1u << 3);
  EXPECT_EQ(cache->boundary_bits(4), (1u << 2) | (1u << 5));
  // Sentence 2: KİTAPLAR ve evler.
  const uint64_t k = cache->window_begin(1);
  EXPECT_EQ(chars_of(*cache, *vocab, k), "kitaplar");
  EXPECT_EQ(cache->case_bits(k), 0xFFu);
  EXPECT_EQ(cache->boundary_bits(k), 1u << 5);
  // Sentence 3: a 70-character word is stored as chunks of 30, 30 and 10 characters.
  const uint64_t c = cache->window_begin(2);
  ASSERT_EQ(cache->window_end(2) - c, 4u);
  EXPECT_EQ(cache->word_length(c), 30u);
  EXPECT_EQ(cache->word_length(c + 1), 30u);
  EXPECT_EQ(cache->word_length(c + 2), 10u);
  EXPECT_EQ(cache->flags(c), kWordIsChunk | kWordContinues);
  EXPECT_EQ(cache->flags(c + 2), kWordIsChunk);
  EXPECT_EQ(cache->case_bits(c), 1u);
  EXPECT_EQ(cache->case_bits(c + 1), 0u);
  EXPECT_EQ(cache->word_id(c), cache->word_id(c + 1));
  EXPECT_EQ(cache->flags(c + 3), 0u);
  EXPECT_EQ(chars_of(*cache, *vocab, c + 3), "ev");

  StatusOr<std::string> teacher = read_file(path_join(t.out, "teacher.tsv"));
  ASSERT_TRUE(teacher.ok());
  EXPECT_NE(teacher->find("kitapları\tki tap ları\n"), std::string::npos);  // raw teacher kept
}

TEST(PrepareTest, RerunWithSameInputsReusesAndChangedConfigRebuilds) {
  const TinySetup t = make_tiny();
  PrepareOptions options = tiny_options(t);
  StatusOr<nlohmann::json> first = run_prepare(options);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ((*first)["reused"], false);
  StatusOr<nlohmann::json> second = run_prepare(options);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)["reused"], true);
  options.config.max_window_words = 2;
  StatusOr<nlohmann::json> third = run_prepare(options);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)["reused"], false);
  EXPECT_EQ((*third)["teacher"]["reused"], true);  // the teacher's inputs did not change
  StatusOr<CacheReader> cache = CacheReader::open(path_join(t.out, "train.cache"));
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ(cache->info().max_window_words, 2u);
}

TEST(PrepareTest, DevSplitIsSeededAndDisjoint) {
  const TinySetup t = make_tiny();
  PrepareOptions options = tiny_options(t);
  options.config.dev_fraction = 0.34;  // one of three sentences
  StatusOr<nlohmann::json> a = run_prepare(options);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ((*a)["split"]["dev_sentences"], 1);
  StatusOr<CacheReader> train = CacheReader::open(path_join(t.out, "train.cache"));
  StatusOr<CacheReader> dev = CacheReader::open(path_join(t.out, "dev.cache"));
  ASSERT_TRUE(train.ok() && dev.ok());
  EXPECT_EQ(train->num_windows() + dev->num_windows(), 3u);
  EXPECT_EQ(dev->num_windows(), 1u);
}

TEST(PrepareTest, ReadsMorphoChallengeGold) {
  const std::string path = testing::shared_data_file("gold/mc2010_tur_trainset.tsv");
  MORPHEUS_REQUIRE_DATA(path, "gold/mc2010_tur_trainset.tsv");
  StatusOr<std::vector<GoldWord>> gold = read_gold_file(path);
  ASSERT_TRUE(gold.ok()) << gold.status().to_string();
  EXPECT_EQ(gold->size(), 1000u);
  EXPECT_EQ(utf8::encode(gold->front().word), "çıkarsanız");
  EXPECT_EQ(gold->front().alternatives.size(), 2u);
}

}  // namespace
}  // namespace morpheus::train
