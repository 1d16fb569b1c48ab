// SPDX-License-Identifier: MIT
// Boundary precision / recall / F1 of segmentations against gold segmentations.
// A segmentation is a list of pieces whose concatenation is the word; its boundaries are the
// code-point offsets of the interior cuts: "ev|ler|de" -> {2, 5}.
// With several gold alternatives, each word is scored against the alternative giving the most
// correct boundaries (ties: the one with fewest gold boundaries), as Morpho Challenge does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace morpheus::eval {

using Pieces = std::vector<std::string>;

// Interior cut offsets in code points; empty pieces are ignored.
std::vector<size_t> boundaries_of(const Pieces& pieces);

struct BoundaryCounts {
  size_t hits = 0;       // predicted boundaries that are gold boundaries
  size_t predicted = 0;  // predicted boundaries
  size_t gold = 0;       // gold boundaries
};

struct BoundaryScores {
  double precision = 0, recall = 0, f1 = 0;                    // micro (pooled counts)
  double macro_precision = 0, macro_recall = 0, macro_f1 = 0;  // mean over words
  size_t words = 0;
  BoundaryCounts totals;
};

// Counts for one word against its best gold alternative.
BoundaryCounts score_word(const Pieces& predicted, const std::vector<Pieces>& gold_alternatives);

// Accumulates words; macro P (R) is the mean over words with ≥1 predicted (gold) boundary;
// macro F1 is the harmonic mean of macro P and macro R.
class BoundaryScorer {
 public:
  void add(const Pieces& predicted, const std::vector<Pieces>& gold_alternatives);
  BoundaryScores scores() const;

 private:
  BoundaryCounts totals_;
  size_t words_ = 0;
  double sum_p_ = 0, sum_r_ = 0;
  size_t n_p_ = 0, n_r_ = 0;
};

double f1_score(double precision, double recall);

}  // namespace morpheus::eval
