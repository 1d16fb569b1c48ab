// SPDX-License-Identifier: MIT
// Tests for eval/report_tables.h on the tiny gold files of tests/data/eval: the registry order,
// n/a rows for systems without the output a table needs, real scores of the built-in segmenters
// and the PCA figures of embedding systems.
#include "eval/report_tables.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::eval {
namespace {

struct Fixture {
  EvalConfig c;
  GoldSets g;
  std::vector<std::string> words;
};

// The tiny gold sets (both parts; no lexicon: it is shared data) and their segmentation words.
Fixture tiny() {
  const std::string d = path_join(testing::source_dir(), "tests/data/eval");
  Fixture f;
  f.c.gold.mc2010 = path_join(d, "mc2010.tsv");
  f.c.gold.ud_stem_boundary = path_join(d, "ud_stem.tsv");
  f.c.gold.morphscore_v1 = path_join(d, "morphscore.csv");
  f.c.gold.ud_types = path_join(d, "ud_types.tsv");
  f.c.gold.penn = path_join(d, "penn.tsv");
  f.c.gold.sigmorphon = path_join(d, "sigmorphon.gold");
  f.c.gold.ud_dir = path_join(d, "ud");
  f.c.gold.hybrid_lexicon = "";
  f.c.gold.sentences = path_join(d, "sentences.txt");
  f.c.split = "all";
  f.c.embeddings.probe_folds = 2;
  f.c.embeddings.probe_min_class = 2;
  StatusOr<GoldSets> g = load_gold_sets(f.c);
  EXPECT_TRUE(g.ok()) << g.status().to_string();
  if (g.ok()) f.g = std::move(*g);
  f.words = segmentation_words(f.g);
  return f;
}

// A system that segments every word of `words` as `pieces_of` says.
SystemResult segmenter(const std::string& name, const std::vector<std::string>& words,
                       Pieces (*pieces_of)(const std::string&)) {
  SystemResult r;
  r.spec.name = name;
  for (const std::string& w : words) r.seg.emplace(w, pieces_of(w));
  r.seg_lines = words.size();
  r.has_seg = true;
  r.codec_note = "no encode/decode commands";
  r.emb_note = "no embeddings";
  return r;
}

Pieces whole_word(const std::string& w) { return {w}; }

const ReportTable* find_table(const std::vector<ReportTable>& tables, const std::string& id) {
  for (const ReportTable& t : tables) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

TEST(ReportTablesTest, TablesFollowTheRegistryOrderAndSkipEmptyGoldSets) {
  Fixture f = tiny();
  f.g.lexicon = TurkishLexicon{{"ev", "kitap"}, {"ler", "de"}};
  const EvalInputs in{f.c, f.g, f.words};
  const std::vector<SystemResult> systems = {segmenter("whole", f.words, whole_word)};
  std::vector<std::string> ids;
  for (const ReportTable& t : build_tables(in, systems)) {
    ids.push_back(t.id);
    EXPECT_EQ(t.rows.size(), 1u) << t.id;
  }
  const std::vector<std::string> expected = {"segmentation_coverage",
                                             "morphscore_ud",
                                             "morphscore_v1",
                                             "boundary_mc2010",
                                             "boundary_ud",
                                             "boundary_penn",
                                             "sigmorphon",
                                             "surface_fidelity",
                                             "lexicon",
                                             "roundtrip",
                                             "speed",
                                             "retrieval",
                                             "same_root_auc",
                                             "probes",
                                             "lemma_retrieval",
                                             "same_inflection"};
  EXPECT_EQ(ids, expected);
  GoldSets fewer = f.g;
  fewer.penn.clear();
  fewer.lexicon.reset();
  const EvalInputs without{f.c, fewer, f.words};
  const std::vector<ReportTable> tables = build_tables(without, systems);
  EXPECT_EQ(find_table(tables, "boundary_penn"), nullptr);
  EXPECT_EQ(find_table(tables, "lexicon"), nullptr);
  EXPECT_EQ(tables.size(), expected.size() - 2);
}

TEST(ReportTablesTest, WholeWordSegmenterCoversEveryWordAndFindsNoBoundary) {
  const Fixture f = tiny();
  const EvalInputs in{f.c, f.g, f.words};
  const std::vector<ReportTable> tables =
      build_tables(in, {segmenter("whole", f.words, whole_word)});
  const ReportTable* coverage = find_table(tables, "segmentation_coverage");
  ASSERT_NE(coverage, nullptr);
  EXPECT_EQ(coverage->rows[0].values[0], 1.0);  // coverage
  EXPECT_EQ(coverage->rows[0].values[1], 0.0);  // non_spelling
  const ReportTable* mc = find_table(tables, "boundary_mc2010");
  ASSERT_NE(mc, nullptr);
  EXPECT_EQ(mc->rows[0].values[1], 0.0);  // micro_R: no boundary predicted
  EXPECT_EQ(mc->rows[0].n, 3u);
}

TEST(ReportTablesTest, SystemWithoutTheNeededOutputGetsNaRowsWithItsNote) {
  const Fixture f = tiny();
  const EvalInputs in{f.c, f.g, f.words};
  SystemResult broken;
  broken.spec.name = "broken";
  broken.seg_note = "segment failed (exit 3), see broken.log";
  broken.codec_note = "no encode/decode commands";
  broken.emb_note = "no embeddings";
  const std::vector<ReportTable> tables = build_tables(in, {broken});
  for (const char* id : {"boundary_mc2010", "roundtrip", "speed", "retrieval"}) {
    const ReportTable* t = find_table(tables, id);
    ASSERT_NE(t, nullptr) << id;
    const ReportRow& row = t->rows[0];
    EXPECT_EQ(row.values.size(), t->columns.size()) << id;
    for (const std::optional<double>& v : row.values) EXPECT_FALSE(v.has_value()) << id;
  }
  EXPECT_EQ(find_table(tables, "boundary_mc2010")->rows[0].note, broken.seg_note);
  EXPECT_EQ(find_table(tables, "speed")->rows[0].note, broken.codec_note);
  EXPECT_EQ(find_table(tables, "retrieval")->rows[0].note, broken.emb_note);
}

// A system with the vectors of tests/data/eval/tiny.vec (one axis per root family).
SystemResult tiny_vectors(const std::vector<std::string>& words) {
  SystemResult r = segmenter("vectors", words, whole_word);
  StatusOr<Embeddings> e =
      load_embeddings(path_join(testing::source_dir(), "tests/data/eval/tiny.vec"));
  EXPECT_TRUE(e.ok()) << e.status().to_string();
  if (e.ok()) r.emb = std::move(*e);
  return r;
}

TEST(ReportTablesTest, LemmaAndInflectionTablesRenderWithTheirHeaders) {
  const Fixture f = tiny();
  const EvalInputs in{f.c, f.g, f.words};
  Report report;
  report.tables = build_tables(in, {tiny_vectors(f.words)});
  const std::string md = render_markdown(report);
  EXPECT_NE(md.find("## Lemma retrieval (UD forms, cosine to every lemma)\n"), std::string::npos);
  EXPECT_NE(md.find("| system | acc@1 | acc@10 | acc@1_seen | acc@1_unseen | acc@10_seen | "
                    "acc@10_unseen | n_seen | n_unseen | coverage | candidates | n |"),
            std::string::npos);
  EXPECT_NE(md.find("## Same-inflection retrieval (NOUN forms, UD Case|Number)\n"),
            std::string::npos);
  EXPECT_NE(md.find("| system | P@10 | chance_P@10 | MAP | coverage | classes | n |"),
            std::string::npos);
  // The nine UD forms of ev, kitap, göz other than the lemmas find their lemma first; no training
  // text: the seen/unseen columns are n/a.
  const ReportTable* lemmas = find_table(report.tables, "lemma_retrieval");
  ASSERT_NE(lemmas, nullptr);
  EXPECT_EQ(lemmas->rows[0].n, 9u);
  EXPECT_EQ(lemmas->rows[0].values[0], 1.0);
  EXPECT_EQ(lemmas->rows[0].values[8], 1.0);  // coverage
  EXPECT_EQ(lemmas->rows[0].values[9], 3.0);  // candidates
  EXPECT_FALSE(lemmas->rows[0].values[2].has_value());
  EXPECT_FALSE(lemmas->rows[0].values[6].has_value());
  // Twelve nouns in four Case|Number classes of three: chance P@10 = 4 · (1/4)².
  const ReportTable* inflection = find_table(report.tables, "same_inflection");
  ASSERT_NE(inflection, nullptr);
  EXPECT_EQ(inflection->rows[0].n, 12u);
  EXPECT_DOUBLE_EQ(*inflection->rows[0].values[1], 0.25);
  EXPECT_EQ(inflection->rows[0].values[4], 4.0);
}

TEST(ReportTablesTest, LemmaTableSplitsSeenAndUnseenQueries) {
  Fixture f = tiny();
  f.g.seen.emplace();
  f.g.seen->add_word("evler");
  f.g.seen->add_word("gözde");
  const EvalInputs in{f.c, f.g, f.words};
  const std::vector<ReportTable> tables = build_tables(in, {tiny_vectors(f.words)});
  const ReportTable* lemmas = find_table(tables, "lemma_retrieval");
  ASSERT_NE(lemmas, nullptr);
  EXPECT_EQ(lemmas->rows[0].values[2], 1.0);  // acc@1_seen
  EXPECT_EQ(lemmas->rows[0].values[3], 1.0);  // acc@1_unseen
  EXPECT_EQ(lemmas->rows[0].values[6], 2.0);  // n_seen
  EXPECT_EQ(lemmas->rows[0].values[7], 7.0);  // n_unseen
}

TEST(ReportTablesTest, PcaFiguresAreDrawnForEmbeddingSystemsOnly) {
  const Fixture f = tiny();
  const EvalInputs in{f.c, f.g, f.words};
  SystemResult with = segmenter("vectors", f.words, whole_word);
  StatusOr<Embeddings> e =
      load_embeddings(path_join(testing::source_dir(), "tests/data/eval/tiny.vec"));
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  with.emb = std::move(*e);
  const SystemResult without = segmenter("plain", f.words, whole_word);
  const std::string out = testing::make_temp_dir("pca");
  StatusOr<std::vector<ReportFigure>> figures = pca_figures(in, {with, without}, out);
  ASSERT_TRUE(figures.ok()) << figures.status().to_string();
  ASSERT_EQ(figures->size(), 1u);
  EXPECT_EQ((*figures)[0].file, "figures/pca_vectors.png");
  EXPECT_TRUE(file_exists(path_join(out, "figures/pca_vectors.png")));
  EXPECT_FALSE(file_exists(path_join(out, "figures/pca_plain.png")));
}

}  // namespace
}  // namespace morpheus::eval
