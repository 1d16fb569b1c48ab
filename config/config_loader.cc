// SPDX-License-Identifier: MIT
// The sections of the project config and its resolution for the `morpheus` commands (torch-free).
#include "config/config_loader.h"

#include <nlohmann/json.hpp>

#include "config/model_config.h"
#include "config/prepare_config.h"
#include "config/train_config.h"
#include "core/config_section.h"
#include "core/json_config.h"

namespace morpheus::config {

nlohmann::json default_config() {
  return section_defaults<model::ModelConfig, train::TrainConfig, train::PrepareConfig>();
}

StatusOr<nlohmann::json> load_config(const std::vector<std::string>& files,
                                     const std::vector<std::string>& sets) {
  return resolve_config(default_config(), files, sets);
}

StatusOr<train::PrepareConfig> load_prepare_config(const std::vector<std::string>& files,
                                                   const std::vector<std::string>& sets) {
  MORPHEUS_ASSIGN_OR_RETURN(const nlohmann::json config, load_config(files, sets));
  MORPHEUS_RETURN_IF_ERROR(section_from_json<model::ModelConfig>(config, "config").status());
  MORPHEUS_RETURN_IF_ERROR(section_from_json<train::TrainConfig>(config, "config").status());
  return section_from_json<train::PrepareConfig>(config, "config");
}

}  // namespace morpheus::config
