// SPDX-License-Identifier: MIT
// The evaluation report: one table per metric family (every system a row, the number of items
// per row, a published-figure reference column), rendered as report.md, report.json and one
// grouped bar chart per table (figures/<id>.png).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::eval {

struct ReportRow {
  std::string system;
  std::vector<std::optional<double>> values;  // one per column; nullopt → "n/a"
  std::optional<size_t> n;                    // items the row was computed on
  std::optional<double> published;            // §5 figure of the table's headline column
  std::string note;                           // e.g. why the row is n/a
};

struct ReportTable {
  std::string id;           // file-safe: figures/<id>.png, JSON key
  std::string title;        // "MorphScore — UD stem boundaries"
  std::string description;  // definition, data, caveats (markdown)
  std::vector<std::string> columns;
  size_t headline = 0;          // the column compared with `published`
  int decimals = 4;             // values with |v| ≥ 1000 are printed as integers with separators
  std::string published_label;  // header of the reference column, e.g. "paper §5.1"; empty: none
  std::vector<size_t> plot_columns;     // columns drawn in the bar chart; empty: all
  std::vector<size_t> integer_columns;  // columns printed without decimals (counts)
  std::vector<ReportRow> rows;
};

struct ReportFigure {
  std::string file;  // relative to the report directory, e.g. "figures/pca_morpheus.png"
  std::string caption;
};

struct Report {
  std::string title;
  std::vector<std::string> notes;  // bullet points under the title
  std::vector<ReportTable> tables;
  std::vector<ReportFigure> figures;  // extra figures (PCA maps, curves) already written
};

// "1,234,567" for large values, fixed `decimals` otherwise, "n/a" for nullopt.
std::string format_value(const std::optional<double>& v, int decimals);
std::string render_markdown(const Report& report);
nlohmann::json render_json(const Report& report);
// Writes DIR/report.md, DIR/report.json and DIR/figures/<table id>.png (atomic writes).
Status write_report(const Report& report, const std::string& dir);

}  // namespace morpheus::eval
