// SPDX-License-Identifier: MIT
// `morpheus train --data DIR --config FILE --out DIR [--device auto|cpu|cuda] [--resume]
//  [--set k=v]…`: trains the Morpheus model on a prepared cache (train/trainer.h).
#include <memory>
#include <string>
#include <vector>

#include "core/logging.h"
#include "tools/commands.h"
#include "tools/config_loader.h"
#include "train/trainer.h"

namespace morpheus::tools {
namespace {

struct TrainArgs {
  std::string data_dir;
  std::vector<std::string> configs;
  std::vector<std::string> sets;
  std::string out_dir;
  std::string device = "auto";
  bool resume = false;
};

Status run_train(const TrainArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json config, load_config(args.configs, args.sets));
  train::TrainOptions options;
  options.data_dir = args.data_dir;
  options.out_dir = args.out_dir;
  options.device = args.device;
  options.resume = args.resume;
  options.config = config;
  MORPHEUS_ASSIGN_OR_RETURN(train::TrainSummary summary, train::run_training(options));
  MORPHEUS_LOG(kInfo, "trained ", summary.steps, " steps in ", summary.seconds, " s; run in ",
               args.out_dir, " (inference checkpoint: ", args.out_dir, "/final)");
  if (!summary.dev.is_null()) MORPHEUS_LOG(kInfo, "dev: ", summary.dev.dump());
  return ok_status();
}

}  // namespace

void register_train_commands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "train", "Train the Morpheus model on a prepared cache (CPU or CUDA), resumable");
  cmd->add_option("--data", args->data_dir, "Directory written by `morpheus prepare`")->required();
  cmd->add_option("--config", args->configs, "Config JSON file(s), merged in order")->required();
  cmd->add_option("--out", args->out_dir, "Run directory (checkpoints, metrics.jsonl, final/)")
      ->required();
  cmd->add_option("--device", args->device, "auto, cpu or cuda[:N]")->capture_default_str();
  cmd->add_flag("--resume", args->resume, "Continue from the newest checkpoint in --out");
  cmd->add_option("--set", args->sets, "Override a config key, e.g. --set train.max_steps=100");
  registry.add(cmd, [args] { return run_train(*args); });
}

}  // namespace morpheus::tools
