// SPDX-License-Identifier: MIT
// Training curves of a run directory: reads the rows of metrics.jsonl (loss rows with "loss",
// "aux", "sgns", "ctr", "mlm", "lr"; dev rows with "dev": {"boundary_f1", ...}) and draws three
// stacked core/plot.h line charts (losses per objective, dev boundary P/R/F1, learning rate, all
// against the optimiser step) into one PNG. Torch-free.
#pragma once

#include <string>
#include <vector>

#include "core/plot.h"
#include "core/status.h"

namespace morpheus::eval {

// The curves of one run, one point per metrics row.
struct TrainingCurves {
  std::vector<LineSeries> losses;  // loss (weighted total), aux, sgns, ctr, mlm
  std::vector<LineSeries> dev;     // boundary F1, precision, recall
  std::vector<LineSeries> lr;      // learning rate
};

// Parses metrics.jsonl. Blank lines are ignored; a line that is not a JSON object is a DATA_LOSS
// error naming the file and line, except a torn final line without newline (a killed run),
// which is skipped.
StatusOr<TrainingCurves> read_training_curves(const std::string& metrics_path);

// The three charts stacked vertically on one canvas.
Canvas draw_training_curves(const TrainingCurves& curves);

// read_training_curves + draw_training_curves + write_png (atomic).
Status write_training_curves(const std::string& metrics_path, const std::string& png_path);

}  // namespace morpheus::eval
