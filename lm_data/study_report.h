// SPDX-License-Identifier: MIT
// The language-model study's report (studies/lm_study.sh → `morpheus lm report`): reads a study
// directory, computes the statistics over seeds and writes report.md, report.json (every number
// of report.md's tables) and bpc_vs_step.png (one panel per scale).
//
// Study directory:
//   study.json: {"title", "reference": a system's name, "setup": [markdown lines],
//     "notes": [markdown lines], "scales": [{"name", "config", "info": `lm info` JSON,
//     "seeds": [s, …]}, …], "attribution": [markdown lines] (optional)}.
//   systems/<name>/system.json: {"name", "group" ("morpheus", "control", "off-the-shelf",
//     "secondary"), "vocab_size", "tokenizer" (a description), "order" (the row order)};
//     systems/<name>/gate.json: `morpheus lm check`.
//   systems/<name>/<scale>/seed-<s>/: a `morpheus lm train` run (result.json: the final
//     in-distribution validation BPC; metrics.jsonl: its curve), eval_ood.json (`morpheus lm
//     eval -o` on the out-of-domain text) and, for the first seed of the first scale,
//     generate-b1.json / generate-b32.json (`morpheus lm generate --stats`).
//   Only the seeds study.json lists for a scale are read; a seed counts when its result.json
//   exists (else it is reported missing), its out-of-domain numbers when eval_ood.json exists.
// Statistics, per scale and system: mean ± sample SD and min–max over its seeds of the
//   in-distribution BPC, of the out-of-domain BPC and of its two slices (all-upper lines, other
//   lines); the paired difference to the reference system over the seeds both have, mean with a
//   95 % t-interval (Student t, n − 1 degrees of freedom), for each of these four; a difference
//   is resolved when its interval excludes 0.
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

// Reads `study_dir`, writes study_dir/report.md, study_dir/report.json and
// study_dir/bpc_vs_step.png. INVALID_ARGUMENT when study.json has no scales.
Status write_study_report(const std::string& study_dir);

}  // namespace morpheus::lm
