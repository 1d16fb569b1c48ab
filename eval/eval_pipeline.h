// SPDX-License-Identifier: MIT
// `morpheus eval` without LibTorch: loads the gold sets (eval/gold_sets.h), runs every configured
// system through its command-line segment / encode / decode / embed commands on prepared
// artifacts or reads its ready files (eval/system_runs.h), computes every table and figure
// (eval/report_tables.h), and writes report.md, report.json and figures/ (eval/report.h).
// A system whose output is missing or whose command fails gets "n/a" rows, never a crash; a
// system whose `artifact` is missing stops the evaluation before anything runs (the artifacts
// are made by scripts/main.sh, never by eval). The configuration is eval/eval_config.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "eval/eval_config.h"

namespace morpheus::eval {

// Runs the whole evaluation and writes the report into out_dir (created if needed). `config` is
// read by section_from_json<EvalConfig> (missing keys keep their defaults; unknown keys are
// errors); the published figures are read from its "published_figures" file.
Status run_eval(const nlohmann::json& config, const std::string& out_dir);

}  // namespace morpheus::eval
