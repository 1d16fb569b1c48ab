// SPDX-License-Identifier: MIT
// Default config sections and resolution for the `morpheus` commands (torch-free).
#include "train/config_loader.h"

#include <nlohmann/json.hpp>

#include "core/json_config.h"
#include "model/config.h"
#include "train/prepare.h"
#include "train/train_config.h"

namespace morpheus::train {

nlohmann::json default_config() {
  nlohmann::json defaults = nlohmann::json::object();
  model::add_model_config_defaults(defaults);
  train::add_train_config_defaults(defaults);
  defaults.update(train::prepare_config_defaults());
  return defaults;
}

StatusOr<nlohmann::json> load_config(const std::vector<std::string>& files,
                                     const std::vector<std::string>& sets) {
  return resolve_config(default_config(), files, sets);
}

StatusOr<PrepareConfig> load_prepare_config(const std::vector<std::string>& files,
                                            const std::vector<std::string>& sets) {
  MORPHEUS_ASSIGN_OR_RETURN(const nlohmann::json config, load_config(files, sets));
  MORPHEUS_RETURN_IF_ERROR(model::model_config_from_json(config, "config").status());
  MORPHEUS_RETURN_IF_ERROR(train_config_from_json(config, "config").status());
  return prepare_config_from_json(config);
}

}  // namespace morpheus::train
