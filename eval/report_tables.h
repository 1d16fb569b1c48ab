// SPDX-License-Identifier: MIT
// The report's tables and figures, computed from the gold sets and the system results: a
// registry of table entries (id, title, columns, what a system must have produced, one row
// function each) run over every system in report order, and the PCA maps of the systems'
// embeddings. A system without the output a table needs gets an "n/a" row with its note.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "eval/eval_config.h"
#include "eval/gold_sets.h"
#include "eval/report.h"
#include "eval/system_runs.h"

namespace morpheus::eval {

// Everything a table is computed from.
struct EvalInputs {
  const EvalConfig& c;
  const GoldSets& g;
  const std::vector<std::string>& words;  // the segmentation word list
};

// Every table of the report, in registry order, with one row per system (in `systems` order);
// a table whose gold set is empty (or absent) is left out. Rows are not yet finished: no
// published figures, no † marks (eval_pipeline.cc adds them).
std::vector<ReportTable> build_tables(const EvalInputs& in,
                                      const std::vector<SystemResult>& systems);

// A 2-D PCA map of each embedding system's largest root families (EmbeddingOptions:
// pca_families, pca_max_forms), written to out_dir/figures/pca_<system>.png; none without
// root families, none for a system with fewer than two drawn words.
StatusOr<std::vector<ReportFigure>> pca_figures(const EvalInputs& in,
                                                const std::vector<SystemResult>& systems,
                                                const std::string& out_dir);

}  // namespace morpheus::eval
