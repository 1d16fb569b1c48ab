// SPDX-License-Identifier: MIT
// Markdown / JSON rendering of the evaluation report and its bar charts.
#include "eval/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/file_util.h"
#include "core/plot.h"

namespace morpheus::eval {
namespace {

std::string with_separators(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string escape_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

nlohmann::json opt_json(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string format_value(const std::optional<double>& v, int decimals) {
  if (!v || !std::isfinite(*v)) return "n/a";
  if (std::fabs(*v) >= 1000) return with_separators(std::llround(*v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
  return buf;
}

std::string render_markdown(const Report& report) {
  std::string md = "# " + report.title + "\n\n";
  for (const std::string& note : report.notes) md += "* " + note + "\n";
  if (!report.notes.empty()) md += "\n";
  for (const ReportTable& t : report.tables) {
    md += "## " + t.title + "\n\n";
    if (!t.description.empty()) md += t.description + "\n\n";
    md += "| system |";
    std::string rule = "|---|";
    for (const std::string& c : t.columns) {
      md += " " + escape_cell(c) + " |";
      rule += "---:|";
    }
    md += " n |";
    rule += "---:|";
    if (!t.published_label.empty()) {
      md += " " + escape_cell(t.published_label) + " |";
      rule += "---:|";
    }
    md += "\n" + rule + "\n";
    for (const ReportRow& r : t.rows) {
      md += "| " + escape_cell(r.system) + (r.note.empty() ? "" : " *") + " |";
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const bool integer = std::find(t.integer_columns.begin(), t.integer_columns.end(), i) !=
                             t.integer_columns.end();
        md += " " +
              format_value(i < r.values.size() ? r.values[i] : std::nullopt,
                           integer ? 0 : t.decimals) +
              " |";
      }
      md += " " + (r.n ? with_separators(static_cast<long long>(*r.n)) : std::string("n/a")) + " |";
      if (!t.published_label.empty())
        md += " " + (r.published ? format_value(r.published, t.decimals) : "–") + " |";
      md += "\n";
    }
    std::string notes;
    for (const ReportRow& r : t.rows) {
      if (!r.note.empty()) notes += "* " + r.system + ": " + r.note + "\n";
    }
    if (!notes.empty()) md += "\n" + notes;
    md += "\n![" + t.title + "](figures/" + t.id + ".png)\n\n";
  }
  for (const ReportFigure& f : report.figures) {
    md += "![" + f.caption + "](" + f.file + ")\n\n" + f.caption + "\n\n";
  }
  return md;
}

nlohmann::json render_json(const Report& report) {
  nlohmann::json j;
  j["title"] = report.title;
  j["notes"] = report.notes;
  j["tables"] = nlohmann::json::array();
  for (const ReportTable& t : report.tables) {
    nlohmann::json jt;
    jt["id"] = t.id;
    jt["title"] = t.title;
    jt["description"] = t.description;
    jt["columns"] = t.columns;
    jt["headline"] = t.columns.empty() ? "" : t.columns[t.headline];
    jt["published_label"] = t.published_label;
    jt["rows"] = nlohmann::json::array();
    for (const ReportRow& r : t.rows) {
      nlohmann::json jr;
      jr["system"] = r.system;
      nlohmann::json values = nlohmann::json::object();
      for (size_t i = 0; i < t.columns.size(); ++i) {
        values[t.columns[i]] = opt_json(i < r.values.size() ? r.values[i] : std::nullopt);
      }
      jr["values"] = values;
      jr["n"] = r.n ? nlohmann::json(*r.n) : nlohmann::json(nullptr);
      jr["published"] = opt_json(r.published);
      if (!r.note.empty()) jr["note"] = r.note;
      jt["rows"].push_back(jr);
    }
    j["tables"].push_back(jt);
  }
  j["figures"] = nlohmann::json::array();
  for (const ReportFigure& f : report.figures) {
    j["figures"].push_back({{"file", f.file}, {"caption", f.caption}});
  }
  return j;
}

Status write_report(const Report& report, const std::string& dir) {
  const std::string fig_dir = path_join(dir, "figures");
  MORPHEUS_RETURN_IF_ERROR(make_dirs(fig_dir));
  for (const ReportTable& t : report.tables) {
    std::vector<size_t> cols = t.plot_columns;
    if (cols.empty()) {
      for (size_t i = 0; i < t.columns.size(); ++i) cols.push_back(i);
    }
    std::vector<std::string> groups, series;
    for (size_t c : cols) groups.push_back(t.columns[c]);
    std::vector<std::vector<std::optional<double>>> values;
    for (const ReportRow& r : t.rows) {
      series.push_back(r.system);
      std::vector<std::optional<double>> v;
      for (size_t c : cols) v.push_back(c < r.values.size() ? r.values[c] : std::nullopt);
      values.push_back(v);
    }
    MORPHEUS_RETURN_IF_ERROR(write_png(path_join(fig_dir, t.id + ".png"),
                                       grouped_bar_chart(t.title, groups, series, values)));
  }
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(dir, "report.md"), render_markdown(report)));
  return write_file_atomic(path_join(dir, "report.json"), render_json(report).dump(2) + "\n");
}

}  // namespace morpheus::eval
