// SPDX-License-Identifier: MIT
// `morpheus eval --config configs/eval.json --out DIR [--set k=v]…`: runs every configured system
// and metric (eval/eval_pipeline.h) and writes DIR/report.md, report.json and figures/.
#include <memory>
#include <string>
#include <vector>

#include "core/json_config.h"
#include "eval/eval_pipeline.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct EvalArgs {
  std::vector<std::string> configs;
  std::string out;
  std::vector<std::string> sets;
};

Status run_eval_command(const EvalArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json config,
                            resolve_config(eval::eval_config_defaults(), args.configs, args.sets));
  return eval::run_eval(config, args.out);
}

}  // namespace

void register_eval_commands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval",
      "Compare every configured system (segment/encode/decode/embed commands or ready files) on "
      "every gold metric; writes report.md, report.json and PNG figures");
  cmd->add_option("--config", args->configs, "Eval config JSON (repeatable; later files win)")
      ->required();  // a missing file is a runtime error (exit 1) naming it, as elsewhere
  cmd->add_option("--out", args->out, "Output directory for the report")->required();
  cmd->add_option("--set", args->sets, "Override a config value: key.path=value (repeatable)");
  registry.add(cmd, [args] { return run_eval_command(*args); });
}

}  // namespace morpheus::tools
