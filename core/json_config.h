// SPDX-License-Identifier: MIT
// JSON configuration resolution:
//   1. defaults (a JSON object produced from the config structs' in-place defaults);
//   2. each --config FILE in order, merged in (objects recurse, other values replace);
//   3. each --set a.b=value, the value parsed as JSON and taken as a string when it is not JSON.
// Every key must already exist in the defaults and keep its type (numbers: int and float mix;
// a float where an integer is expected is an error): a typo is an error, never silently ignored.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus {

StatusOr<nlohmann::json> parse_json(std::string_view text, const std::string& source);
StatusOr<nlohmann::json> load_json_file(const std::string& path);

// Merges `patch` into `base`, rejecting keys not in `base` and type changes. `where` names the
// source in error messages ("configs/tiny.json").
Status merge_config(nlohmann::json& base, const nlohmann::json& patch, const std::string& where);

// Applies one "a.b.c=value" override.
Status apply_set(nlohmann::json& base, std::string_view assignment);

// Whole resolution: defaults ← files ← sets.
StatusOr<nlohmann::json> resolve_config(const nlohmann::json& defaults,
                                        const std::vector<std::string>& files,
                                        const std::vector<std::string>& sets);

}  // namespace morpheus
