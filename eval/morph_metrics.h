// SPDX-License-Identifier: MIT
// Segmentation metrics of the reference implementation: MorphScore,
// SIGMORPHON lemma-prefix / root-in-segments, surface fidelity, and fertility with
// %TR / %Pure on letter tokens (letter tokens only, for every tokenizer: the reference's Morpheus
// dropped punctuation, which inflated its purity and lowered its fertility).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval/boundary_metrics.h"
#include "eval/gold_data.h"

namespace morpheus::eval {

// Looks up the predicted pieces of a word; returns nullptr when the system has no output for it.
using SegmentationLookup = std::function<const Pieces*(const std::string& word)>;

struct MorphScoreResult {
  double mean_recall = 0, mean_precision = 0;
  double macro_f1 = 0;  // F1 of mean_precision and mean_recall (the reference's "macro_f1")
  double micro_precision = 0, micro_recall = 0, micro_f1 = 0;
  double fw_recall = 0, fw_precision = 0;  // weighted by item freq
  double single_token_rate = 0;
  double length_mismatch_rate = 0;  // Σ piece lengths ≠ word length
  size_t words = 0;                 // items scored
  size_t missing = 0;               // items without a prediction (not scored)
};
// MorphScore exactly as §4.1: a prediction with ≤ 1 piece scores P = R = 0 (and adds no pooled
// counts beyond its gold boundaries); otherwise R = |g∩p|/|g|, P = |g∩p|/|p| with boundaries as
// cumulative code-point offsets.
MorphScoreResult morphscore(const std::vector<MorphScoreItem>& gold, const SegmentationLookup& seg);

// A SIGMORPHON entry after the reference filters, with its derived gold root.
struct SigmorphonItem {
  std::string form, root, pos;
  size_t expected_suffixes = 0;
};
// §4.3 filters (no space in lemma or form, 3 ≤ len(form) ≤ 30) and gold-root derivation.
std::vector<SigmorphonItem> sigmorphon_items(const std::vector<SigmorphonEntry>& entries);
// canon(s): Turkish lower-case, then a final b/c/d/g/ğ hardened to p/ç/t/k/k.
std::string sigmorphon_canon(const std::string& s);

struct SigmorphonResult {
  double lemma_prefix = 0, root_in_segments = 0, first_segment = 0, exact_suffix_count = 0;
  double mean_diff = 0, mean_abs_diff = 0;
  double verb_lemma_prefix = 0, noun_lemma_prefix = 0;
  size_t words = 0, verbs = 0, nouns = 0, missing = 0;
};
SigmorphonResult sigmorphon(const std::vector<SigmorphonItem>& items,
                            const SegmentationLookup& seg);

struct SurfaceFidelityResult {
  double root_pct = 0, count_pct = 0, len_pct = 0, exact_pct = 0;  // percentages of `words`
  size_t words = 0, missing = 0;
};
// §4.4 on curated words: root_ok = lower(first piece) == lower(gold root); count_ok; len_ok (the
// code-point length sequence); exact_ok (lower-cased pieces equal).
SurfaceFidelityResult surface_fidelity(const std::vector<CuratedWord>& words,
                                       const SegmentationLookup& seg);

// Whether a (lower-cased) token is a lexicon unit: pure = root or suffix; Turkish = pure, or
// root + a chain of ≥ 1 suffixes (any split), or a chain of ≥ 2 suffixes.
struct TokenValidity {
  bool pure = false, turkish = false;
};
TokenValidity classify_token(const std::string& token, const TurkishLexicon& lexicon);

struct LexiconResult {
  double fertility = 0;  // pieces per letter word occurrence
  double chars_per_token = 0;
  double tr_pct = 0, pure_pct = 0;        // over distinct pieces
  double tr_pct_fw = 0, pure_pct_fw = 0;  // over piece occurrences
  size_t word_occurrences = 0, distinct_words = 0, tokens = 0, distinct_tokens = 0;
  size_t missing = 0;  // distinct words without a prediction (excluded)
};
// Fertility and %TR / %Pure over letter words with their corpus counts; pieces are lower-cased
// (Turkish) before the lexicon check.
LexiconResult lexicon_metrics(const std::unordered_map<std::string, size_t>& word_counts,
                              const SegmentationLookup& seg, const TurkishLexicon& lexicon);

// Boundary P/R/F1 (micro + macro) of a system on gold segmentations; words without a
// prediction are skipped and counted in *missing.
BoundaryScores boundary_scores(const std::vector<GoldSegmentation>& gold,
                               const SegmentationLookup& seg, size_t* missing);

}  // namespace morpheus::eval
