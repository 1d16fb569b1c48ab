// SPDX-License-Identifier: MIT
// The project config: one JSON object with a section per owner: "model" (config/model_config.h),
// "train" (config/train_config.h), "prepare" (config/prepare_config.h). Every command that reads it
// (prepare, train, info) resolves the whole object, so a typo in any section fails at once; each
// owner reads its section with section_from_json (core/config_section.h).
// Resolution (core/json_config.h): defaults ← each --config file ← each --set a.b=v.
// Torch-free (library morpheus_config).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "config/prepare_config.h"
#include "core/status.h"

namespace morpheus::config {

// Every section's defaults, e.g. {"model": {...}}.
nlohmann::json default_config();

// Resolves the defaults with `files` and `sets`; unknown keys and type changes are errors.
StatusOr<nlohmann::json> load_config(const std::vector<std::string>& files,
                                     const std::vector<std::string>& sets);

// `morpheus prepare`'s config: load_config, every section checked (the model and train values
// too, though prepare reads only its own section), then the prepare section.
StatusOr<train::PrepareConfig> load_prepare_config(const std::vector<std::string>& files,
                                                   const std::vector<std::string>& sets);

}  // namespace morpheus::config
