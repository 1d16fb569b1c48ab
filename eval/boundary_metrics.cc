// SPDX-License-Identifier: MIT
#include "eval/boundary_metrics.h"

#include <algorithm>

#include "core/utf8.h"

namespace morpheus::eval {

double f1_score(double precision, double recall) {
  return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
}

std::vector<size_t> boundaries_of(const Pieces& pieces) {
  std::vector<size_t> cuts;
  size_t offset = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const size_t len = utf8::length(pieces[i]);
    if (len == 0) continue;
    if (offset > 0) cuts.push_back(offset);
    offset += len;
  }
  return cuts;
}

BoundaryCounts score_word(const Pieces& predicted, const std::vector<Pieces>& gold_alternatives) {
  const std::vector<size_t> pred = boundaries_of(predicted);
  BoundaryCounts best{0, pred.size(), 0};
  bool have = false;
  for (const Pieces& gold : gold_alternatives) {
    const std::vector<size_t> g = boundaries_of(gold);
    size_t hits = 0;
    for (size_t b : pred)
      if (std::binary_search(g.begin(), g.end(), b)) ++hits;
    if (!have || hits > best.hits || (hits == best.hits && g.size() < best.gold)) {
      best.hits = hits;
      best.gold = g.size();
      have = true;
    }
  }
  return best;
}

void BoundaryScorer::add(const Pieces& predicted, const std::vector<Pieces>& gold_alternatives) {
  const BoundaryCounts c = score_word(predicted, gold_alternatives);
  totals_.hits += c.hits;
  totals_.predicted += c.predicted;
  totals_.gold += c.gold;
  ++words_;
  if (c.predicted > 0) {
    sum_p_ += static_cast<double>(c.hits) / static_cast<double>(c.predicted);
    ++n_p_;
  }
  if (c.gold > 0) {
    sum_r_ += static_cast<double>(c.hits) / static_cast<double>(c.gold);
    ++n_r_;
  }
}

BoundaryScores BoundaryScorer::scores() const {
  BoundaryScores s;
  s.words = words_;
  s.totals = totals_;
  s.precision = totals_.predicted
                    ? static_cast<double>(totals_.hits) / static_cast<double>(totals_.predicted)
                    : 0.0;
  s.recall =
      totals_.gold ? static_cast<double>(totals_.hits) / static_cast<double>(totals_.gold) : 0.0;
  s.f1 = f1_score(s.precision, s.recall);
  s.macro_precision = n_p_ ? sum_p_ / static_cast<double>(n_p_) : 0.0;
  s.macro_recall = n_r_ ? sum_r_ / static_cast<double>(n_r_) : 0.0;
  s.macro_f1 = f1_score(s.macro_precision, s.macro_recall);
  return s;
}

}  // namespace morpheus::eval
