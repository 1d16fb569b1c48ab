// SPDX-License-Identifier: MIT
// The double-precision path of the engine: one word's final-layer gap logits computed again with
// the float weights read as doubles, plain loops in a fixed order and the engine's own exp and
// erf. Its translation unit is compiled with -ffp-contract=off, so the result is the same bits on
// every machine (it uses only IEEE + − × ÷, sqrt, floor and ldexp). The decision rule
// (engine/forward.h) lets it decide the gaps whose float logit lies close to the threshold.
#pragma once

#include <vector>

#include "engine/model.h"

namespace morpheus::engine {

// Gap logits [T−1] of `word` (its case flags included), in double precision. Slow (about half a
// millisecond per word for the tiny model on one core, some six words of the float path): for
// close calls only.
std::vector<double> reference_gap_logits(const Model& model, const WordIds& word);

// exp and erf of the reference path: relative error of exp below 3e-16, absolute error of erf
// below 5e-15 (tests/engine/forward_test.cc).
double reference_exp(double x);
double reference_erf(double x);

}  // namespace morpheus::engine
