// SPDX-License-Identifier: MIT
// `morpheus info --config FILE [--set k=v ...]`: parameter counts per module as one JSON object.
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "config/model_config.h"
#include "core/config_section.h"
#include "model/losses.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct InfoArgs {
  std::vector<std::string> configs;
  std::vector<std::string> sets;
};

Status run_info(const InfoArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json resolved, config::load_config(args.configs, args.sets));
  MORPHEUS_ASSIGN_OR_RETURN(model::ModelConfig config,
                            section_from_json<model::ModelConfig>(resolved, "config"));
  torch::NoGradGuard no_grad;
  model::MorpheusWithHeads all(config);
  const model::Morpheus& m = all->model;
  const int64_t mlm = all->mlm_head ? model::count_parameters(*all->mlm_head) : 0;
  nlohmann::json out = {{"char_encoder", model::count_parameters(*m->char_encoder)},
                        {"boundary_detector", model::count_parameters(*m->boundary_detector)},
                        {"segment_pooling", model::count_parameters(*m->segment_encoder)},
                        {"inference_total", model::count_parameters(*m)},
                        {"mlm_head", mlm},
                        {"sgns", model::count_parameters(*all->sgns)},
                        {"trained_total", model::count_parameters(*all)},
                        {"char_vocab_size", config.char_vocab_size},
                        {"word_vocab_size", config.word_vocab_size}};
  std::printf("%s\n", out.dump().c_str());
  return ok_status();
}

}  // namespace

void register_info_commands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Print the parameter count of every model part as one JSON object");
  cmd->add_option("--config", args->configs, "Config JSON file(s), applied in order");
  cmd->add_option("--set", args->sets, "Override one key, e.g. model.char_vocab_size=76");
  registry.add(cmd, [args]() { return run_info(*args); });
}

}  // namespace morpheus::tools
