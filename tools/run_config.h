// SPDX-License-Identifier: MIT
// The whole run configuration: {"model": …, "train": …, "prepare": …} with every section's
// defaults, merged with --config files and --set overrides (core/json_config.h). A key that no
// section knows is an error, so a typo in any section is caught by every command.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::tools {

// Defaults of every section.
nlohmann::json run_config_defaults();

StatusOr<nlohmann::json> resolve_run_config(const std::vector<std::string>& files,
                                            const std::vector<std::string>& sets);

}  // namespace morpheus::tools
