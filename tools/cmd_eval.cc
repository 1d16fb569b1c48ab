// SPDX-License-Identifier: MIT
// `morpheus eval --config configs/eval.json [--run-dir DIR] --out DIR [--split report|tune|all]
// [--set k=v]…`: runs every configured system and metric (eval/eval_pipeline.h) on the artifacts
// of the run directory and writes DIR/report.md, report.json and figures/. `morpheus gold-split
// --gold SET --part tune|report FILE`: the lines of a gold file in one part of the split rule
// (eval/gold_policy.h).
#include <memory>
#include <string>
#include <vector>

#include "core/config_section.h"
#include "core/json_config.h"
#include "eval/eval_config.h"
#include "eval/eval_pipeline.h"
#include "eval/gold_policy.h"
#include "tools/cli.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct EvalArgs {
  std::vector<std::string> configs;
  std::string run_dir;
  std::string out;
  std::string split;
  std::vector<std::string> sets;
};

Status run_eval_command(const EvalArgs& args) {
  std::vector<std::string> sets = args.sets;
  if (!args.split.empty()) sets.push_back("split=" + args.split);
  MORPHEUS_ASSIGN_OR_RETURN(
      nlohmann::json config,
      resolve_config(section_defaults<eval::EvalConfig>(), args.configs, sets));
  if (!args.run_dir.empty()) config["run_dir"] = args.run_dir;  // a path, never parsed as JSON
  return eval::run_eval(config, args.out);
}

struct GoldSplitArgs {
  std::string gold, part = "report", input, output = "-";
};

Status run_gold_split(const GoldSplitArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(const eval::GoldPart part, eval::parse_gold_part(args.part));
  MORPHEUS_ASSIGN_OR_RETURN(std::string lines, eval::gold_file_part(args.input, args.gold, part));
  return write_output(args.output, lines);
}

void register_gold_split(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<GoldSplitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "gold-split",
      "Print the lines of a gold file whose word is in the tune or report part of the split "
      "rule every evaluation uses (MC2010: 50 % tune; every other set: 10 % tune)");
  cmd->add_option("--gold", args->gold,
                  "Gold set the file belongs to: mc2010, ud_types, penn, ud_stem_boundary, "
                  "morphscore_v1, sigmorphon")
      ->required();
  cmd->add_option("--part", args->part, "tune, report or all")->capture_default_str();
  cmd->add_option("input", args->input, "Gold file")->required();
  cmd->add_option("-o,--output", args->output, "Output file, - for stdout")->capture_default_str();
  registry.add(cmd, [args] { return run_gold_split(*args); });
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
  cmd->add_option("--run-dir", args->run_dir,
                  "Run directory the config's {run_dir} stands for: where scripts/main.sh left "
                  "the trained and exported systems (runs/main). No default: a config that uses "
                  "{run_dir} needs it. Wins over --set run_dir=…");
  cmd->add_option("--out", args->out, "Output directory for the report")->required();
  cmd->add_option("--split", args->split,
                  "Gold part the tables score: report (default), tune (for choosing anything) "
                  "or all; same as --set split=…");
  cmd->add_option("--set", args->sets, "Override a config value: key.path=value (repeatable)");
  registry.add(cmd, [args] { return run_eval_command(*args); });
  register_gold_split(app, registry);
}

}  // namespace morpheus::tools
