// SPDX-License-Identifier: MIT
// `morpheus train --data DIR --config FILE --out DIR [--device auto|cpu|cuda] [--resume]
//  [--set k=v]… [--nproc N] [--dist-backend B] [--dist-timeout S]`: trains the Morpheus model on a
// prepared cache (train/trainer.h); data-parallel under torchrun, Slurm or --nproc
// (train/distributed.h).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "core/logging.h"
#include "tools/commands.h"
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
  int nproc = 1;
  train::DistOptions dist;
  bool dense_embeddings = false;
};

// This process's arguments without --nproc and its value.
StatusOr<std::vector<std::string>> arguments_without_nproc() {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> args, train::own_arguments());
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--nproc") {
      ++i;
    } else if (args[i].rfind("--nproc=", 0) != 0) {
      out.push_back(args[i]);
    }
  }
  return out;
}

Status run_train(const TrainArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(train::DistEnv dist, train::dist_env_from_environment());
  if (args.nproc > 1) {
    if (dist.world_size > 1) {
      return invalid_argument("--nproc " + std::to_string(args.nproc) + " inside a " +
                                  dist.launcher + " run of " + std::to_string(dist.world_size) +
                                  " ranks",
                              "let the launcher start the ranks, or drop --nproc");
    }
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> argv, arguments_without_nproc());
    return train::launch_local_ranks(args.nproc, argv, args.dist.timeout_s);
  }
  // Ranks other than 0 print errors only.
  if (dist.rank > 0 && log_level() < LogLevel::kError) set_log_level(LogLevel::kError);
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json config, config::load_config(args.configs, args.sets));
  train::TrainOptions options;
  options.data_dir = args.data_dir;
  options.out_dir = args.out_dir;
  options.device = args.device;
  options.resume = args.resume;
  options.config = config;
  options.dist = dist;
  options.dist_options = args.dist;
  options.dist_options.sparse_embeddings = !args.dense_embeddings;
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
  cmd->add_option("--nproc", args->nproc,
                  "Start N local ranks of this command (data-parallel; under torchrun or Slurm "
                  "the ranks come from their variables instead)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--dist-backend", args->dist.backend,
                  "auto (gloo on CPU, nccl on CUDA), gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))
      ->capture_default_str();
  cmd->add_option("--dist-timeout", args->dist.timeout_s,
                  "Seconds a rank waits for the others (rendezvous, every collective) before it "
                  "exits with an error; must exceed rank 0's dev evaluation and checkpoint time")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--dist-bucket-mb", args->dist.bucket_mb, "Gradient all-reduce bucket size")
      ->check(CLI::Range(0.1, 4096.0))
      ->capture_default_str();
  cmd->add_flag("--dist-dense-embeddings", args->dense_embeddings,
                "All-reduce embedding tables densely (default: exchange touched rows only)");
  registry.add(cmd, [args] { return run_train(*args); });
}

}  // namespace morpheus::tools
