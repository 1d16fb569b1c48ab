// SPDX-License-Identifier: MIT
// The project-wide config: one JSON object with a section per owner: "model" (model/config.h),
// "train" (train/train_config.h), "prepare" (train/prepare.h).
// Resolution (core/json_config.h): defaults ← each --config file ← each --set a.b=v.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::train {

// Every section's defaults, e.g. {"model": {...}}.
nlohmann::json default_config();

// Resolves the defaults with `files` and `sets`; unknown keys and type changes are errors.
StatusOr<nlohmann::json> load_config(const std::vector<std::string>& files,
                                     const std::vector<std::string>& sets);

}  // namespace morpheus::train
