// SPDX-License-Identifier: MIT
// Default config sections and resolution for the `morpheus` commands.
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

}  // namespace morpheus::train
