// SPDX-License-Identifier: MIT
#include "lm_data/study_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/plot.h"
#include "core/png.h"

namespace morpheus::lm {

using json = nlohmann::json;

Summary summarize(const std::vector<double>& v) {
  Summary s;
  s.n = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() >= 2) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return s;
}

double t_quantile_975(int64_t df) {
  static const double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return std::nan("");
  if (df <= 30) return kTable[df - 1];
  const double z = 1.959964, n = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n);
}

PairedDifference paired_difference(const std::vector<int64_t>& seeds_a,
                                   const std::vector<double>& a,
                                   const std::vector<int64_t>& seeds_b,
                                   const std::vector<double>& b) {
  std::vector<double> d;
  for (size_t i = 0; i < seeds_a.size(); ++i) {
    const auto it = std::find(seeds_b.begin(), seeds_b.end(), seeds_a[i]);
    if (it != seeds_b.end()) d.push_back(a[i] - b[static_cast<size_t>(it - seeds_b.begin())]);
  }
  const Summary s = summarize(d);
  PairedDifference p;
  p.n = s.n;
  p.mean = s.mean;
  if (s.n >= 2) p.half_width = t_quantile_975(s.n - 1) * s.sd / std::sqrt(static_cast<double>(s.n));
  return p;
}

namespace {

namespace fs = std::filesystem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kFigure = "bpc_vs_step.png";

// Readers of the study's JSON files that never throw: a missing key or another type gives the
// fallback.
double number_or_nan(const json& j, const char* key) {
  if (!j.is_object()) return kNaN;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::string string_or(const json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

json member_or_null(const json& j, const char* key) {
  return j.is_object() && j.contains(key) ? j.at(key) : json(nullptr);
}

json number_json(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

struct SeedRun {
  int64_t seed = 0;
  json result, ood, generate_b1, generate_b32;   // null when absent
  std::vector<std::pair<double, double>> curve;  // (step, in-distribution validation BPC)
};

struct ScaleSpec {
  std::string name, config;
  json info;
  std::vector<int64_t> seeds;
};

struct SystemData {
  json meta, gate;
  std::vector<std::vector<SeedRun>> runs;  // per scale: the finished runs, ascending seed
  std::string name() const { return string_or(meta, "name", "?"); }
  bool has_runs() const {
    return std::any_of(runs.begin(), runs.end(), [](const auto& r) { return !r.empty(); });
  }
};

struct Study {
  json meta;
  std::string reference;
  std::vector<ScaleSpec> scales;
  std::vector<SystemData> systems;  // in "order"
};

json optional_json(const std::string& path) {
  if (!file_exists(path)) return nullptr;
  auto j = load_json_file(path);
  return j.ok() ? *j : json(nullptr);
}

// The (step, valid_bpc) rows of a metrics.jsonl; other rows and unreadable lines are skipped.
std::vector<std::pair<double, double>> read_curve(const std::string& path) {
  std::vector<std::pair<double, double>> curve;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const json row = json::parse(line, nullptr, false);
    const double step = number_or_nan(row, "step"), bpc = number_or_nan(row, "valid_bpc");
    if (std::isfinite(step) && std::isfinite(bpc)) curve.emplace_back(step, bpc);
  }
  return curve;
}

StatusOr<SeedRun> read_run(const std::string& dir, int64_t seed) {
  SeedRun run;
  run.seed = seed;
  MORPHEUS_ASSIGN_OR_RETURN(run.result, load_json_file(path_join(dir, "result.json")));
  run.curve = read_curve(path_join(dir, "metrics.jsonl"));
  run.ood = optional_json(path_join(dir, "eval_ood.json"));
  run.generate_b1 = optional_json(path_join(dir, "generate-b1.json"));
  run.generate_b32 = optional_json(path_join(dir, "generate-b32.json"));
  return run;
}

StatusOr<ScaleSpec> read_scale(const json& j) {
  ScaleSpec scale;
  scale.name = string_or(j, "name", "");
  scale.config = string_or(j, "config", "");
  scale.info = member_or_null(j, "info");
  const json seeds = member_or_null(j, "seeds");
  if (scale.name.empty() || !seeds.is_array()) {
    return invalid_argument("study.json: a scale without a \"name\" or \"seeds\": " + j.dump(),
                            "write each scale as {\"name\", \"config\", \"info\", \"seeds\"}");
  }
  for (const json& s : seeds) {
    if (!s.is_number_integer()) {
      return invalid_argument("study.json: scale " + scale.name + " has a seed " + s.dump(),
                              "seeds are integers");
    }
    scale.seeds.push_back(s.get<int64_t>());
  }
  return scale;
}

StatusOr<std::vector<ScaleSpec>> read_scales(const json& study) {
  const json scales = member_or_null(study, "scales");
  if (!scales.is_array() || scales.empty()) {
    return invalid_argument("study.json has no \"scales\"",
                            "write it with the current studies/lm_study.sh: \"scales\": "
                            "[{\"name\", \"config\", \"info\", \"seeds\"}, …]");
  }
  std::vector<ScaleSpec> out;
  for (const json& j : scales) {
    MORPHEUS_ASSIGN_OR_RETURN(ScaleSpec scale, read_scale(j));
    out.push_back(std::move(scale));
  }
  return out;
}

StatusOr<SystemData> read_system(const std::string& dir, const std::vector<ScaleSpec>& scales) {
  SystemData s;
  MORPHEUS_ASSIGN_OR_RETURN(s.meta, load_json_file(path_join(dir, "system.json")));
  s.gate = optional_json(path_join(dir, "gate.json"));
  for (const ScaleSpec& scale : scales) {
    std::vector<SeedRun> runs;
    std::vector<int64_t> seeds = scale.seeds;
    std::sort(seeds.begin(), seeds.end());
    for (int64_t seed : seeds) {
      const std::string run = path_join(path_join(dir, scale.name), "seed-" + std::to_string(seed));
      if (!file_exists(path_join(run, "result.json"))) continue;
      MORPHEUS_ASSIGN_OR_RETURN(SeedRun r, read_run(run, seed));
      runs.push_back(std::move(r));
    }
    s.runs.push_back(std::move(runs));
  }
  return s;
}

StatusOr<std::vector<SystemData>> read_systems(const std::string& study_dir,
                                               const std::vector<ScaleSpec>& scales) {
  const std::string root = path_join(study_dir, "systems");
  if (!dir_exists(root)) return not_found(root + " does not exist", "run studies/lm_study.sh");
  std::vector<std::string> dirs;
  for (const auto& entry : fs::directory_iterator(root)) dirs.push_back(entry.path().string());
  std::sort(dirs.begin(), dirs.end());
  std::vector<SystemData> systems;
  for (const std::string& dir : dirs) {
    if (!file_exists(path_join(dir, "system.json"))) continue;
    MORPHEUS_ASSIGN_OR_RETURN(SystemData s, read_system(dir, scales));
    systems.push_back(std::move(s));
  }
  std::stable_sort(systems.begin(), systems.end(), [](const SystemData& a, const SystemData& b) {
    return number_or_nan(a.meta, "order") < number_or_nan(b.meta, "order");
  });
  return systems;
}

StatusOr<Study> read_study(const std::string& study_dir) {
  Study study;
  MORPHEUS_ASSIGN_OR_RETURN(study.meta, load_json_file(path_join(study_dir, "study.json")));
  study.reference = string_or(study.meta, "reference", "");
  MORPHEUS_ASSIGN_OR_RETURN(study.scales, read_scales(study.meta));
  MORPHEUS_ASSIGN_OR_RETURN(study.systems, read_systems(study_dir, study.scales));
  return study;
}

// The per-seed numbers of a run; NaN when the run lacks them.
using Metric = double (*)(const SeedRun&);
double valid_bpc(const SeedRun& r) { return number_or_nan(r.result, "valid_bpc"); }
double ood_bpc(const SeedRun& r) { return number_or_nan(r.ood, "bpc"); }
double ood_slice_bpc(const SeedRun& r, const char* slice) {
  return number_or_nan(member_or_null(member_or_null(r.ood, "slices"), slice), "bpc");
}
double ood_upper_bpc(const SeedRun& r) { return ood_slice_bpc(r, "all_upper"); }
double ood_other_bpc(const SeedRun& r) { return ood_slice_bpc(r, "other"); }
double tokens_per_char(const SeedRun& r) {
  return number_or_nan(r.result, "valid_tokens_per_char");
}
double train_tokens_per_s(const SeedRun& r) {
  return number_or_nan(r.result, "train_tokens_per_s");
}
double peak_memory_mb(const SeedRun& r) { return number_or_nan(r.result, "peak_memory_mb"); }
double width(const SeedRun& r) { return number_or_nan(r.result, "width"); }
double parameters(const SeedRun& r) { return number_or_nan(r.result, "parameters"); }

struct Series {
  std::vector<int64_t> seeds;
  std::vector<double> values;
};

Series series_of(const std::vector<SeedRun>& runs, Metric metric) {
  Series s;
  for (const SeedRun& r : runs) {
    const double v = metric(r);
    if (!std::isfinite(v)) continue;
    s.seeds.push_back(r.seed);
    s.values.push_back(v);
  }
  return s;
}

double mean_of(const std::vector<SeedRun>& runs, Metric metric) {
  const Series s = series_of(runs, metric);
  return s.values.empty() ? kNaN : summarize(s.values).mean;
}

struct MetricStats {
  Series series;
  Summary summary;
  PairedDifference delta;  // to the reference; n = 0 when there is none
};

MetricStats metric_stats(const std::vector<SeedRun>& runs, const std::vector<SeedRun>* ref_runs,
                         Metric metric) {
  MetricStats m;
  m.series = series_of(runs, metric);
  m.summary = summarize(m.series.values);
  if (ref_runs != nullptr) {
    const Series ref = series_of(*ref_runs, metric);
    m.delta = paired_difference(m.series.seeds, m.series.values, ref.seeds, ref.values);
  }
  return m;
}

// One system at one scale: every number of its table rows.
struct Row {
  const SystemData* system = nullptr;
  bool is_reference = false;
  std::vector<int64_t> seeds, missing;  // finished seeds; listed seeds without a result.json
  MetricStats valid, ood, ood_upper, ood_other;
  double tokens_per_char = kNaN, train_tokens_per_s = kNaN, peak_memory_mb = kNaN;
  double width = kNaN, parameters = kNaN;
};

Row make_row(const ScaleSpec& scale, size_t index, const SystemData& s, const SystemData* ref) {
  Row row;
  row.system = &s;
  row.is_reference = ref == &s;
  const std::vector<SeedRun>& runs = s.runs[index];
  const std::vector<SeedRun>* ref_runs =
      ref != nullptr && !row.is_reference ? &ref->runs[index] : nullptr;
  for (const SeedRun& r : runs) row.seeds.push_back(r.seed);
  for (int64_t seed : scale.seeds) {
    if (std::find(row.seeds.begin(), row.seeds.end(), seed) == row.seeds.end()) {
      row.missing.push_back(seed);
    }
  }
  row.valid = metric_stats(runs, ref_runs, valid_bpc);
  row.ood = metric_stats(runs, ref_runs, ood_bpc);
  row.ood_upper = metric_stats(runs, ref_runs, ood_upper_bpc);
  row.ood_other = metric_stats(runs, ref_runs, ood_other_bpc);
  row.tokens_per_char = mean_of(runs, tokens_per_char);
  row.train_tokens_per_s = mean_of(runs, train_tokens_per_s);
  row.peak_memory_mb = mean_of(runs, peak_memory_mb);
  row.width = mean_of(runs, width);
  row.parameters = mean_of(runs, parameters);
  return row;
}

const SystemData* find_reference(const Study& study) {
  for (const SystemData& s : study.systems) {
    if (s.name() == study.reference) return &s;
  }
  return nullptr;
}

std::vector<Row> scale_rows(const Study& study, size_t index) {
  const SystemData* ref = find_reference(study);
  std::vector<Row> rows;
  for (const SystemData& s : study.systems) {
    rows.push_back(make_row(study.scales[index], index, s, ref));
  }
  return rows;
}

// ---- report.md cells ----

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "–";
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << v;
  return out.str();
}

std::string signed_fixed(double v, int digits) { return (v >= 0 ? "+" : "") + fixed(v, digits); }

std::string grouped(double v) {  // 58195968 -> 58,195,968
  if (!std::isfinite(v)) return "–";
  std::string digits = std::to_string(std::llround(std::fabs(v)));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return (v < 0 ? "-" : "") + digits;
}

bool gate_failed(const json& gate) {
  const json reversible = member_or_null(gate, "reversible");
  return reversible.is_boolean() && !reversible.get<bool>();
}

std::string gate_cell(const json& gate) {
  if (!gate.is_object()) return "not checked";
  if (!gate_failed(gate)) return "yes";
  return "not reversible (" + grouped(number_or_nan(gate, "failed_lines")) + " lines)";
}

std::string mean_sd_cell(const Summary& s) {
  return s.n == 0 ? "–" : fixed(s.mean, 4) + " ± " + fixed(s.sd, 4);
}

std::string range_cell(const Summary& s) {
  return s.n == 0 ? "–" : fixed(s.min, 4) + "–" + fixed(s.max, 4);
}

std::string mean_cell(const Summary& s) { return s.n == 0 ? "–" : fixed(s.mean, 4); }

std::string seeds_cell(const Row& row) {
  if (gate_failed(row.system->gate)) return "–";
  if (row.seeds.empty()) return "not run";
  const std::string n = std::to_string(row.seeds.size());
  return row.missing.empty() ? n
                             : n + " of " + std::to_string(row.seeds.size() + row.missing.size());
}

std::string delta_cell(const Row& row, const MetricStats& m) {
  if (row.is_reference) return "reference";
  if (m.delta.n == 0) return "–";
  if (m.delta.n == 1) return signed_fixed(m.delta.mean, 4) + " (1 seed)";
  return signed_fixed(m.delta.mean, 4) + " ± " + fixed(m.delta.half_width, 4);
}

std::string resolved_cell(const MetricStats& m) {
  if (m.delta.n < 2) return "–";
  return m.delta.resolved() ? "yes" : "no";
}

// ---- report.md sections ----

std::string main_table(const std::vector<Row>& rows, const std::string& ref_name) {
  std::ostringstream md;
  md << "| system | group | vocab | reversible | seeds | BPC mean ± SD | min–max | Δ BPC vs "
     << ref_name
     << " (95 % CI) | resolved | OOD BPC mean ± SD | OOD all-upper lines | OOD other lines | "
        "tokens/char | train tokens/s | peak MB |\n"
     << "|---|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    const json& meta = r.system->meta;
    md << "| " << r.system->name() << " | " << string_or(meta, "group", "?") << " | "
       << grouped(number_or_nan(meta, "vocab_size")) << " | " << gate_cell(r.system->gate) << " | "
       << seeds_cell(r) << " | " << mean_sd_cell(r.valid.summary) << " | "
       << range_cell(r.valid.summary) << " | " << delta_cell(r, r.valid) << " | "
       << resolved_cell(r.valid) << " | " << mean_sd_cell(r.ood.summary) << " | "
       << mean_cell(r.ood_upper.summary) << " | " << mean_cell(r.ood_other.summary) << " | "
       << fixed(r.tokens_per_char, 3) << " | " << grouped(r.train_tokens_per_s) << " | "
       << grouped(r.peak_memory_mb) << " |\n";
  }
  return md.str();
}

std::string ood_delta_table(const std::vector<Row>& rows, const std::string& ref_name) {
  std::ostringstream md;
  md << "| system | OOD seeds | Δ OOD BPC vs " << ref_name
     << " (95 % CI) | resolved | Δ all-upper lines | resolved | Δ other lines | resolved |\n"
     << "|---|---:|---:|---|---:|---|---:|---|\n";
  for (const Row& r : rows) {
    if (r.ood.summary.n == 0) continue;
    md << "| " << r.system->name() << " | " << r.ood.summary.n << " | " << delta_cell(r, r.ood)
       << " | " << resolved_cell(r.ood) << " | " << delta_cell(r, r.ood_upper) << " | "
       << resolved_cell(r.ood_upper) << " | " << delta_cell(r, r.ood_other) << " | "
       << resolved_cell(r.ood_other) << " |\n";
  }
  return md.str();
}

std::string seed_list(const std::vector<int64_t>& seeds) {
  std::string out;
  for (int64_t s : seeds) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

// The systems that ran at this scale but lack some of its seeds.
std::string missing_line(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& r : rows) {
    if (r.missing.empty() || r.seeds.empty()) continue;
    out += (out.empty() ? "" : "; ") + r.system->name() + " (seed " + seed_list(r.missing) + ")";
  }
  return out.empty() ? "" : "Missing runs, not in the statistics: " + out + ".\n\n";
}

std::string scale_heading(const ScaleSpec& scale) {
  std::ostringstream md;
  md << "## Scale " << scale.name;
  if (!scale.config.empty()) md << " (`" << scale.config << "`)";
  md << "\n\n";
  const double steps = number_or_nan(scale.info, "steps");
  const double tokens = number_or_nan(scale.info, "tokens_per_step");
  const double budget = number_or_nan(scale.info, "parameter_budget");
  if (std::isfinite(steps) && std::isfinite(tokens)) {
    md << grouped(steps) << " steps of " << grouped(tokens) << " target tokens";
    if (std::isfinite(budget)) md << "; " << grouped(budget) << " parameters by the budget formula";
    md << "; seeds " << seed_list(scale.seeds) << ".\n\n";
  }
  return md.str();
}

std::string scale_section(const ScaleSpec& scale, const std::vector<Row>& rows,
                          const std::string& ref_name) {
  return scale_heading(scale) + "In-distribution validation and out-of-domain (OOD) BPC:\n\n" +
         main_table(rows, ref_name) + "\nOut-of-domain paired differences:\n\n" +
         ood_delta_table(rows, ref_name) + "\n" + missing_line(rows);
}

// Generation of the first seed of the first scale: tokens/s and characters/s (tokens/s ÷ the
// run's validation tokens per character), one sequence and 32 at once.
struct GenerationRow {
  std::string name;
  double b1_tokens = kNaN, b1_chars = kNaN, b32_tokens = kNaN, b32_chars = kNaN;
};

std::vector<GenerationRow> generation_rows(const Study& study) {
  std::vector<GenerationRow> rows;
  if (study.scales.empty() || study.scales[0].seeds.empty()) return rows;
  const int64_t seed = study.scales[0].seeds[0];
  for (const SystemData& s : study.systems) {
    for (const SeedRun& r : s.runs[0]) {
      if (r.seed != seed || (r.generate_b1.is_null() && r.generate_b32.is_null())) continue;
      GenerationRow g;
      g.name = s.name();
      const double tpc = tokens_per_char(r);
      g.b1_tokens = number_or_nan(r.generate_b1, "tokens_per_s");
      g.b32_tokens = number_or_nan(r.generate_b32, "tokens_per_s");
      g.b1_chars = tpc > 0 ? g.b1_tokens / tpc : kNaN;
      g.b32_chars = tpc > 0 ? g.b32_tokens / tpc : kNaN;
      rows.push_back(g);
    }
  }
  return rows;
}

std::string generation_section(const Study& study, const std::vector<GenerationRow>& rows) {
  if (rows.empty()) return "";
  std::ostringstream md;
  md << "## Generation speed (scale " << study.scales[0].name << ", seed "
     << study.scales[0].seeds[0] << ")\n\n"
     << "| system | tokens/s b1 | chars/s b1 | tokens/s b32 | chars/s b32 |\n"
     << "|---|---:|---:|---:|---:|\n";
  for (const GenerationRow& g : rows) {
    md << "| " << g.name << " | " << grouped(g.b1_tokens) << " | " << grouped(g.b1_chars) << " | "
       << grouped(g.b32_tokens) << " | " << grouped(g.b32_chars) << " |\n";
  }
  return md.str() + "\n";
}

std::string exclusion_reason(const SystemData& s) {
  if (!gate_failed(s.gate)) return gate_cell(s.gate) + "; no finished run";
  return gate_cell(s.gate) + "; first at line " +
         grouped(number_or_nan(s.gate, "first_failed_line")) + ": " +
         string_or(s.gate, "first_failure", "");
}

std::string excluded_section(const Study& study) {
  std::string out;
  for (const SystemData& s : study.systems) {
    if (s.has_runs()) continue;
    out += "- " + s.name() + " (" + string_or(s.meta, "tokenizer", "") +
           "): " + exclusion_reason(s) + "\n";
  }
  return out.empty() ? "" : "No BPC (excluded):\n\n" + out + "\n";
}

// Lines of text the study script wrote (setup, notes, attribution), one per array entry.
std::string text_lines(const json& study, const char* key) {
  std::string out;
  const json lines = member_or_null(study, key);
  if (!lines.is_array()) return out;
  for (const json& line : lines) {
    if (line.is_string()) out += line.get<std::string>() + "\n";
  }
  return out;
}

std::string report_md(const Study& study, const std::vector<std::vector<Row>>& rows) {
  std::string md = "# " + string_or(study.meta, "title", "Language-model study") +
                   "\n\n## Setup\n\n" + text_lines(study.meta, "setup") + "\n";
  for (size_t i = 0; i < study.scales.size(); ++i) {
    md += scale_section(study.scales[i], rows[i], study.reference);
  }
  md += generation_section(study, generation_rows(study));
  md += excluded_section(study);
  md += std::string("![in-distribution validation BPC against the step, one panel per scale](") +
        kFigure + ")\n\n";
  md += text_lines(study.meta, "notes");
  const std::string attribution = text_lines(study.meta, "attribution");
  if (!attribution.empty()) md += "\n" + attribution;
  return md;
}

// ---- report.json ----

json summary_json(const MetricStats& m) {
  if (m.summary.n == 0) return nullptr;
  return {{"n", m.summary.n},         {"mean", m.summary.mean}, {"sd", m.summary.sd},
          {"min", m.summary.min},     {"max", m.summary.max},   {"seeds", m.series.seeds},
          {"values", m.series.values}};
}

json delta_json(const Row& row, const MetricStats& m) {
  if (row.is_reference || m.delta.n == 0) return nullptr;
  const bool interval = m.delta.n >= 2;
  return {{"n", m.delta.n},
          {"mean", m.delta.mean},
          {"half_width", interval ? json(m.delta.half_width) : json(nullptr)},
          {"low", interval ? json(m.delta.mean - m.delta.half_width) : json(nullptr)},
          {"high", interval ? json(m.delta.mean + m.delta.half_width) : json(nullptr)},
          {"resolved", m.delta.resolved()}};
}

json row_json(const Row& r) {
  return {{"system", r.system->name()},
          {"reference", r.is_reference},
          {"seeds", r.seeds},
          {"missing_seeds", r.missing},
          {"valid_bpc", summary_json(r.valid)},
          {"valid_bpc_delta", delta_json(r, r.valid)},
          {"ood_bpc", summary_json(r.ood)},
          {"ood_bpc_delta", delta_json(r, r.ood)},
          {"ood_all_upper_bpc", summary_json(r.ood_upper)},
          {"ood_all_upper_bpc_delta", delta_json(r, r.ood_upper)},
          {"ood_other_bpc", summary_json(r.ood_other)},
          {"ood_other_bpc_delta", delta_json(r, r.ood_other)},
          {"valid_tokens_per_char", number_json(r.tokens_per_char)},
          {"train_tokens_per_s", number_json(r.train_tokens_per_s)},
          {"peak_memory_mb", number_json(r.peak_memory_mb)},
          {"width", number_json(r.width)},
          {"parameters", number_json(r.parameters)}};
}

json system_json(const SystemData& s) {
  return {{"name", s.name()},
          {"group", member_or_null(s.meta, "group")},
          {"vocab_size", member_or_null(s.meta, "vocab_size")},
          {"tokenizer", member_or_null(s.meta, "tokenizer")},
          {"order", member_or_null(s.meta, "order")},
          {"gate", s.gate},
          {"gate_cell", gate_cell(s.gate)},
          {"has_runs", s.has_runs()}};
}

json generation_json(const Study& study, const std::vector<GenerationRow>& rows) {
  json out = json::array();
  for (const GenerationRow& g : rows) {
    out.push_back(
        {{"system", g.name},
         {"b1",
          {{"tokens_per_s", number_json(g.b1_tokens)}, {"chars_per_s", number_json(g.b1_chars)}}},
         {"b32",
          {{"tokens_per_s", number_json(g.b32_tokens)},
           {"chars_per_s", number_json(g.b32_chars)}}}});
  }
  const bool any = !study.scales.empty() && !study.scales[0].seeds.empty();
  return {{"scale", any ? json(study.scales[0].name) : json(nullptr)},
          {"seed", any ? json(study.scales[0].seeds[0]) : json(nullptr)},
          {"rows", out}};
}

json report_json(const Study& study, const std::vector<std::vector<Row>>& rows) {
  json scales = json::array(), systems = json::array();
  for (size_t i = 0; i < study.scales.size(); ++i) {
    json scale_rows_json = json::array();
    for (const Row& r : rows[i]) scale_rows_json.push_back(row_json(r));
    const ScaleSpec& s = study.scales[i];
    scales.push_back({{"name", s.name},
                      {"config", s.config},
                      {"seeds", s.seeds},
                      {"info", s.info},
                      {"rows", scale_rows_json}});
  }
  json excluded = json::array();
  for (const SystemData& s : study.systems) {
    systems.push_back(system_json(s));
    if (!s.has_runs()) excluded.push_back({{"system", s.name()}, {"reason", exclusion_reason(s)}});
  }
  return {{"title", string_or(study.meta, "title", "")},
          {"reference", study.reference},
          {"figure", kFigure},
          {"systems", systems},
          {"scales", scales},
          {"generation", generation_json(study, generation_rows(study))},
          {"excluded", excluded}};
}

// ---- bpc_vs_step.png ----

// The mean in-distribution validation BPC over a system's seeds at each evaluated step.
LineSeries mean_curve(const std::string& name, const std::vector<SeedRun>& runs) {
  std::map<double, std::vector<double>> at;
  for (const SeedRun& r : runs) {
    for (const auto& [step, bpc] : r.curve) at[step].push_back(bpc);
  }
  LineSeries line;
  line.name = name;
  for (const auto& [step, values] : at) {
    line.x.push_back(step);
    line.y.push_back(summarize(values).mean);
  }
  return line;
}

// The panels one above the other.
Canvas stack_panels(const std::vector<Canvas>& panels) {
  int width = 1, height = 0;
  for (const Canvas& p : panels) {
    width = std::max(width, p.width());
    height += p.height();
  }
  Canvas out(width, std::max(height, 1));
  int top = 0;
  for (const Canvas& p : panels) {
    for (int y = 0; y < p.height(); ++y) {
      for (int x = 0; x < p.width(); ++x) out.set(x, top + y, p.get(x, y));
    }
    top += p.height();
  }
  return out;
}

Canvas bpc_figure(const Study& study) {
  std::vector<Canvas> panels;
  for (size_t i = 0; i < study.scales.size(); ++i) {
    std::vector<LineSeries> curves;
    for (const SystemData& s : study.systems) {
      if (!s.runs[i].empty()) curves.push_back(mean_curve(s.name(), s.runs[i]));
    }
    panels.push_back(
        line_chart("validation BPC, scale " + study.scales[i].name + " (mean over seeds)", "step",
                   "BPC", curves));
  }
  return stack_panels(panels);
}

}  // namespace

Status write_study_report(const std::string& study_dir) {
  MORPHEUS_ASSIGN_OR_RETURN(Study study, read_study(study_dir));
  std::vector<std::vector<Row>> rows;
  for (size_t i = 0; i < study.scales.size(); ++i) rows.push_back(scale_rows(study, i));
  MORPHEUS_RETURN_IF_ERROR(write_png(path_join(study_dir, kFigure), bpc_figure(study)));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(study_dir, "report.json"),
                                             report_json(study, rows).dump(2) + "\n"));
  return write_file_atomic(path_join(study_dir, "report.md"), report_md(study, rows));
}

}  // namespace morpheus::lm
