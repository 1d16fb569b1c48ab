// SPDX-License-Identifier: MIT
// `morpheus_nt`: a test-only build of `morpheus` with just the torch-free subcommands (pretokenize,
// hybrid, cbpe, prepare, eval), so the bad-input CLI suite also runs in the torch-free ASan job.
#include <CLI/CLI.hpp>

#include "tools/cli.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"morpheus (torch-free test build)", "morpheus"};
  app.require_subcommand(1);
  app.fallthrough();
  morpheus::tools::add_global_flags(app);
  morpheus::tools::CommandRegistry registry;
  morpheus::tools::register_text_commands(app, registry);
  morpheus::tools::register_hybrid_commands(app, registry);
  morpheus::tools::register_cbpe_commands(app, registry);
  morpheus::tools::register_plain_commands(app, registry);
  morpheus::tools::register_eval_commands(app, registry);
  morpheus::tools::register_prepare_commands(app, registry);
  return registry.run(app, argc, argv);
}
