// SPDX-License-Identifier: MIT
// The language-model study's report (scripts/lm_study.sh → `morpheus lm report`): reads a study
// directory, computes the statistics over seeds and writes report.md and bpc_vs_step.png.
//
// Study directory: study.json (what the script set up: config file, seeds, reference system, data
//   counts) and one systems/<name>/ per tokenizer with system.json ({"name", "role": "primary" |
//   "secondary", "vocab_size", "tokenizer"}), gate.json (`morpheus lm check`) and, when the
//   tokenizer passed the gate, seed-<s>/ run directories of `morpheus lm train` (result.json,
//   metrics.jsonl) with generate-b1.json / generate-b32.json (`morpheus lm generate --stats`).
// Statistics: per system mean ± sample SD and min–max of the final validation BPC over its seeds;
//   per system the paired difference to the reference over the seeds both have, mean with a 95 %
//   t-interval (Student t, n − 1 degrees of freedom); a difference is resolved when its interval
//   excludes 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::lm {

struct Summary {
  int64_t n = 0;
  double mean = 0, sd = 0, min = 0, max = 0;  // sd: sample SD (n − 1); 0 when n < 2
};
Summary summarize(const std::vector<double>& values);

// The 0.975 quantile of Student's t with `df` degrees of freedom (df >= 1): a table to df 30,
// the Cornish–Fisher expansion above (error < 1e-3).
double t_quantile_975(int64_t df);

struct PairedDifference {
  int64_t n = 0;                    // seeds both systems ran
  double mean = 0, half_width = 0;  // 95 % interval: mean ± half_width (n >= 2)
  bool resolved() const { return n >= 2 && (mean - half_width > 0 || mean + half_width < 0); }
};
// a[i] − b[i] over the seeds in `seeds_a` that also appear in `seeds_b`.
PairedDifference paired_difference(const std::vector<int64_t>& seeds_a,
                                   const std::vector<double>& a,
                                   const std::vector<int64_t>& seeds_b,
                                   const std::vector<double>& b);

// Reads `study_dir`, writes study_dir/report.md and study_dir/bpc_vs_step.png.
Status write_study_report(const std::string& study_dir);

}  // namespace morpheus::lm
