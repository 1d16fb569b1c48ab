// SPDX-License-Identifier: MIT
// metrics.jsonl -> training_curves.png.
#include "eval/training_curves.h"

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/png.h"

namespace morpheus::eval {
namespace {

using nlohmann::json;

// Appends (step, row[key]) to `series` when the row holds a finite number under key.
void add_point(LineSeries* series, double step, const json& row, const char* key) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_number()) return;
  series->x.push_back(step);
  series->y.push_back(it->get<double>());
}

}  // namespace

StatusOr<TrainingCurves> read_training_curves(const std::string& metrics_path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(metrics_path));
  TrainingCurves curves;
  curves.losses = {{"loss (weighted)", {}, {}},
                   {"aux", {}, {}},
                   {"sgns", {}, {}},
                   {"ctr", {}, {}},
                   {"mlm", {}, {}}};
  curves.dev = {{"dev boundary F1", {}, {}}, {"precision", {}, {}}, {"recall", {}, {}}};
  curves.lr = {{"lr", {}, {}}};
  std::string line;
  while (reader.next(&line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json row = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!row.is_object() || !row.contains("step") || !row["step"].is_number()) {
      if (!reader.last_had_newline()) break;  // torn last line of a killed run
      return data_loss(metrics_path + ":" + std::to_string(reader.line_number()) +
                           ": not a metrics row (a JSON object with a numeric \"step\")",
                       "metrics.jsonl is written by `morpheus train`; was it edited?");
    }
    const double step = row["step"].get<double>();
    if (row.contains("loss")) {
      add_point(&curves.losses[0], step, row, "loss");
      add_point(&curves.losses[1], step, row, "aux");
      add_point(&curves.losses[2], step, row, "sgns");
      add_point(&curves.losses[3], step, row, "ctr");
      add_point(&curves.losses[4], step, row, "mlm");
      add_point(&curves.lr[0], step, row, "lr");
    }
    if (row.contains("dev") && row["dev"].is_object()) {
      add_point(&curves.dev[0], step, row["dev"], "boundary_f1");
      add_point(&curves.dev[1], step, row["dev"], "boundary_precision");
      add_point(&curves.dev[2], step, row["dev"], "boundary_recall");
    }
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return curves;
}

Canvas draw_training_curves(const TrainingCurves& curves) {
  const Canvas panels[] = {
      line_chart("Training losses (unweighted, weighted total)", "step", "loss", curves.losses),
      line_chart("Dev boundary P/R/F1 (interior gaps)", "step", "score", curves.dev),
      line_chart("Learning rate", "step", "lr", curves.lr)};
  int height = 0;
  for (const auto& p : panels) height += p.height();
  Canvas out(panels[0].width(), height);
  int y0 = 0;
  for (const auto& p : panels) {
    for (int y = 0; y < p.height(); ++y) {
      for (int x = 0; x < p.width(); ++x) out.set(x, y0 + y, p.get(x, y));
    }
    y0 += p.height();
  }
  return out;
}

Status write_training_curves(const std::string& metrics_path, const std::string& png_path) {
  MORPHEUS_ASSIGN_OR_RETURN(TrainingCurves curves, read_training_curves(metrics_path));
  return write_png(png_path, draw_training_curves(curves));
}

}  // namespace morpheus::eval
