// SPDX-License-Identifier: MIT
// The gold sets of one evaluation: every configured gold file loaded, case-folded and restricted
// to the configured part (eval/gold_policy.h), the evaluation text with its letter runs, the
// root families, lemma items and probe items of the embedding tables, and the seen words of the
// training text. Also the word lists every system is run on (segmentation_words, embedding_words).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "eval/eval_config.h"
#include "eval/gold_data.h"
#include "eval/gold_policy.h"
#include "eval/morph_metrics.h"

namespace morpheus::eval {

struct GoldSets {
  // Scoring sets: case-folded (gold_policy.h), the configured part only.
  std::vector<GoldSegmentation> mc2010, ud_unique, penn;
  std::vector<MorphScoreItem> ud_stem, morphscore_v1;
  std::vector<SigmorphonItem> sigmorphon;
  std::vector<CuratedWord> curated;
  std::vector<std::string> roundtrip_words;  // UD stem-boundary forms as written
  // Seen = a type of the training text (or an MC2010 tune word); empty without training text.
  std::optional<SeenWords> seen;
  std::string training_checksum;
  std::optional<TurkishLexicon> lexicon;
  std::vector<std::string> sentences;
  std::unordered_map<std::string, size_t> letter_words;  // letter spans of the sentences
  size_t text_chars = 0, text_words = 0;
  // Embedding sets.
  std::vector<std::string> family_words;
  std::vector<int> family_labels;  // index into family_names, one per family word
  std::vector<std::string> family_names;
  std::vector<ProbeItem> number_items, case_items;
  std::vector<ProbeItem> inflection_items;  // label "Case|Number"
  size_t families_total = 0, family_words_total = 0;
  // Lemma retrieval: the queries (a seeded sample of the part's, at most
  // EmbeddingOptions::lemma_max_queries) and the candidates, the distinct lemmas of all the part's
  // queries (sorted).
  std::vector<LemmaItem> lemma_items;
  std::vector<std::string> lemma_candidates;
  size_t lemma_items_total = 0;  // the part's queries before the sample
};

// Loads every gold file `c.gold` names (an empty path skips that set), the training text's seen
// words and the evaluation text (at most c.speed.max_chars characters). Errors name the file.
StatusOr<GoldSets> load_gold_sets(const EvalConfig& c);

// Every word some segmentation metric looks up, sorted, without words holding whitespace.
std::vector<std::string> segmentation_words(const GoldSets& g);
// Every word some embedding metric looks up, sorted.
std::vector<std::string> embedding_words(const GoldSets& g);

// Share of the distinct letter runs of the evaluation text that are not training types; nullopt
// without a training text or without letter runs.
std::optional<double> unseen_text_share(const GoldSets& g);

}  // namespace morpheus::eval
