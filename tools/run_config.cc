// SPDX-License-Identifier: MIT
#include "tools/run_config.h"

#include "core/json_config.h"
#include "model/config.h"
#include "train/prepare.h"
#include "train/train_config.h"

namespace morpheus::tools {

nlohmann::json run_config_defaults() {
  nlohmann::json defaults = nlohmann::json::object();
  model::add_model_config_defaults(defaults);
  train::add_train_config_defaults(defaults);
  defaults.update(train::prepare_config_defaults());
  return defaults;
}

StatusOr<nlohmann::json> resolve_run_config(const std::vector<std::string>& files,
                                            const std::vector<std::string>& sets) {
  return resolve_config(run_config_defaults(), files, sets);
}

}  // namespace morpheus::tools
