// SPDX-License-Identifier: MIT
#include "lm/study_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
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

struct SeedRun {
  int64_t seed = 0;
  json result;                                 // result.json
  std::vector<std::pair<double, double>> bpc;  // (step, validation BPC) of metrics.jsonl
  json generate_b1, generate_b32;              // null when not measured
};

struct SystemRuns {
  json system, gate;
  std::vector<SeedRun> runs;  // finished runs only, ascending seed
  std::vector<int64_t> seeds() const;
  std::vector<double> final_bpc() const;
  double mean_of(const std::string& key) const;  // over runs' result.json; NaN when none
};

std::vector<int64_t> SystemRuns::seeds() const {
  std::vector<int64_t> out;
  for (const auto& r : runs) out.push_back(r.seed);
  return out;
}

std::vector<double> SystemRuns::final_bpc() const {
  std::vector<double> out;
  for (const auto& r : runs) out.push_back(r.result.at("valid_bpc").get<double>());
  return out;
}

double SystemRuns::mean_of(const std::string& key) const {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(r.result.value(key, std::nan("")));
  return v.empty() ? std::nan("") : summarize(v).mean;
}

json optional_json(const std::string& path) {
  if (!file_exists(path)) return nullptr;
  auto j = load_json_file(path);
  return j.ok() ? *j : json(nullptr);
}

StatusOr<SeedRun> read_run(const std::string& dir, int64_t seed) {
  SeedRun run;
  run.seed = seed;
  MORPHEUS_ASSIGN_OR_RETURN(run.result, load_json_file(path_join(dir, "result.json")));
  std::ifstream in(path_join(dir, "metrics.jsonl"));
  std::string line;
  while (std::getline(in, line)) {
    const json row = json::parse(line, nullptr, false);
    if (row.is_object() && row.contains("valid_bpc")) {
      run.bpc.emplace_back(row.at("step").get<double>(), row.at("valid_bpc").get<double>());
    }
  }
  run.generate_b1 = optional_json(path_join(dir, "generate-b1.json"));
  run.generate_b32 = optional_json(path_join(dir, "generate-b32.json"));
  return run;
}

StatusOr<std::vector<SystemRuns>> read_systems(const std::string& study_dir) {
  std::vector<SystemRuns> systems;
  const std::string root = path_join(study_dir, "systems");
  if (!dir_exists(root)) return not_found(root + " does not exist", "run scripts/lm_study.sh");
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string dir = entry.path().string();
    if (!file_exists(path_join(dir, "system.json"))) continue;
    SystemRuns s;
    MORPHEUS_ASSIGN_OR_RETURN(s.system, load_json_file(path_join(dir, "system.json")));
    s.gate = optional_json(path_join(dir, "gate.json"));
    for (const auto& run : fs::directory_iterator(dir)) {
      const std::string name = run.path().filename().string();
      if (name.rfind("seed-", 0) != 0 || !file_exists(path_join(run.path(), "result.json"))) {
        continue;
      }
      MORPHEUS_ASSIGN_OR_RETURN(SeedRun r,
                                read_run(run.path().string(), std::stoll(name.substr(5))));
      s.runs.push_back(std::move(r));
    }
    std::sort(s.runs.begin(), s.runs.end(),
              [](const SeedRun& a, const SeedRun& b) { return a.seed < b.seed; });
    systems.push_back(std::move(s));
  }
  std::sort(systems.begin(), systems.end(), [](const SystemRuns& a, const SystemRuns& b) {
    return a.system.value("order", 0) < b.system.value("order", 0);
  });
  return systems;
}

std::string fixed(double v, int digits) {
  if (std::isnan(v)) return "–";
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << v;
  return out.str();
}

std::string grouped(double v) {  // 58195968 -> 58,195,968
  if (std::isnan(v)) return "–";
  std::string digits = std::to_string(std::llround(v));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return digits;
}

// Generation characters/s: the run's tokens/s times the validation characters per token.
double generation_chars_per_s(const SystemRuns& s, bool batch32) {
  std::vector<double> v;
  for (const auto& r : s.runs) {
    const json& g = batch32 ? r.generate_b32 : r.generate_b1;
    const double tpc = r.result.value("valid_tokens_per_char", 0.0);
    if (g.is_object() && tpc > 0) v.push_back(g.at("tokens_per_s").get<double>() / tpc);
  }
  return v.empty() ? std::nan("") : summarize(v).mean;
}

std::string gate_cell(const json& gate) {
  if (!gate.is_object()) return "not checked";
  if (gate.value("reversible", false)) return "yes";
  return "not reversible (" + grouped(gate.value("failed_lines", 0.0)) + " lines)";
}

// One table row of a system that passed the gate.
std::string result_row(const SystemRuns& s, const SystemRuns* ref) {
  const Summary bpc = summarize(s.final_bpc());
  std::string delta = "–", resolved = "–";
  if (ref != nullptr && ref != &s) {
    const PairedDifference d =
        paired_difference(s.seeds(), s.final_bpc(), ref->seeds(), ref->final_bpc());
    if (d.n >= 2) {
      delta = (d.mean >= 0 ? "+" : "") + fixed(d.mean, 4) + " ± " + fixed(d.half_width, 4);
      resolved = d.resolved() ? "yes" : "no";
    } else if (d.n == 1) {
      delta = (d.mean >= 0 ? "+" : "") + fixed(d.mean, 4) + " (1 seed)";
    }
  } else if (ref == &s) {
    delta = "reference";
  }
  std::ostringstream row;
  row << "| " << s.system.value("name", "?") << " | " << s.system.value("role", "?") << " | "
      << grouped(s.system.value("vocab_size", 0.0)) << " | " << gate_cell(s.gate) << " | "
      << fixed(s.mean_of("valid_tokens_per_char"), 3) << " | " << grouped(s.mean_of("width"))
      << " | " << grouped(s.mean_of("parameters")) << " | " << bpc.n << " | " << fixed(bpc.mean, 4)
      << " ± " << fixed(bpc.sd, 4) << " | " << fixed(bpc.min, 4) << "–" << fixed(bpc.max, 4)
      << " | " << delta << " | " << resolved << " | " << grouped(s.mean_of("train_tokens_per_s"))
      << " | " << grouped(generation_chars_per_s(s, false)) << " | "
      << grouped(generation_chars_per_s(s, true)) << " | " << grouped(s.mean_of("peak_memory_mb"))
      << " |\n";
  return row.str();
}

// The mean validation BPC over seeds at each evaluated step.
LineSeries mean_curve(const SystemRuns& s) {
  std::map<double, std::vector<double>> at;
  for (const auto& r : s.runs)
    for (const auto& [step, bpc] : r.bpc) at[step].push_back(bpc);
  LineSeries line;
  line.name = s.system.value("name", "?");
  for (const auto& [step, values] : at) {
    line.x.push_back(step);
    line.y.push_back(summarize(values).mean);
  }
  return line;
}

// Lines of text the study script wrote (config, data, seeds), one per array entry.
std::string text_lines(const json& study, const std::string& key) {
  std::string out;
  for (const auto& line : study.value(key, json::array())) out += line.get<std::string>() + "\n";
  return out;
}

}  // namespace

Status write_study_report(const std::string& study_dir) {
  MORPHEUS_ASSIGN_OR_RETURN(json study, load_json_file(path_join(study_dir, "study.json")));
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<SystemRuns> systems, read_systems(study_dir));
  const std::string ref_name = study.value("reference", "");
  const SystemRuns* ref = nullptr;
  for (const auto& s : systems)
    if (s.system.value("name", "") == ref_name && !s.runs.empty()) ref = &s;
  std::ostringstream md;
  md << "# " << study.value("title", "Language-model study") << "\n\n## Setup\n\n"
     << text_lines(study, "setup") << "\n";
  md << "## Validation bits per character\n\n"
     << "| system | role | vocab | reversible | tokens/char | width | parameters | seeds | BPC "
        "mean ± SD | min–max | Δ BPC vs "
     << ref_name
     << " (95 % CI) | resolved | train tokens/s | gen chars/s b1 | gen chars/s b32 | peak MB |\n"
     << "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n";
  std::vector<LineSeries> curves;
  std::string excluded;
  for (const auto& s : systems) {
    if (!s.runs.empty()) {
      md << result_row(s, ref);
      curves.push_back(mean_curve(s));
    } else {
      excluded += "- " + s.system.value("name", "?") + " (" + s.system.value("tokenizer", "") +
                  "): " + gate_cell(s.gate) +
                  (s.gate.is_object() && s.gate.value("failed_lines", 0) > 0
                       ? "; first at line " + grouped(s.gate.value("first_failed_line", 0.0)) +
                             ": " + s.gate.value("first_failure", "")
                       : "; no finished run") +
                  "\n";
    }
  }
  if (!excluded.empty()) md << "\nNo BPC (excluded):\n\n" << excluded;
  md << "\n![validation BPC against the step](bpc_vs_step.png)\n\n";
  md << text_lines(study, "notes");
  MORPHEUS_RETURN_IF_ERROR(
      write_png(path_join(study_dir, "bpc_vs_step.png"),
                line_chart("validation BPC (mean over seeds)", "step", "BPC", curves)));
  return write_file_atomic(path_join(study_dir, "report.md"), md.str());
}

}  // namespace morpheus::lm
