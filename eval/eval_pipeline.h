// SPDX-License-Identifier: MIT
// `morpheus eval` without LibTorch: loads the gold sets, runs every configured system through its
// command-line segment / encode / decode / embed commands (subprocesses) or reads its ready
// files, computes every metric, and writes report.md, report.json and figures/ (eval/report.h).
// A system whose output is missing or whose command fails gets "n/a" rows, never a crash.
// The configuration (EvalConfig, its defaults and validation) is eval/eval_config.h.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "eval/eval_config.h"

namespace morpheus::eval {

// Replaces every {key} of `vars` in `tmpl`; an unknown {placeholder} is an error.
StatusOr<std::string> expand_command(const std::string& tmpl,
                                     const std::map<std::string, std::string>& vars);

// Runs the whole evaluation and writes the report into out_dir (created if needed). `config` is
// read by eval_config_from_json (missing keys keep their defaults; unknown keys are errors); the
// published figures are read from its "published_figures" file.
Status run_eval(const nlohmann::json& config, const std::string& out_dir);

}  // namespace morpheus::eval
