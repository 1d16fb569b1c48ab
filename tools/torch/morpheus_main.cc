// SPDX-License-Identifier: MIT
// `morpheus`: the LibTorch tool. Subcommands are registered from tools/cmd_*.cc.
#include <torch/utils.h>

#include <CLI/CLI.hpp>

#include "core/version.h"
#include "model/cpu_allocator.h"
#include "model/runtime.h"
#include "tools/cli.h"
#include "tools/cmd_pack.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  // Before any tensor exists: training reallocates the same large tensors every step.
  morpheus::model::install_caching_cpu_allocator();
  CLI::App app{"morpheus: morphology-aware neural tokenizer and word embedder (Turkish first)",
               "morpheus"};
  app.set_version_flag("--version", "morpheus " + morpheus::version_string());
  app.require_subcommand(1);
  app.fallthrough();
  morpheus::tools::add_global_flags(app);
  app.add_option_function<int>(
         "--threads", [](int n) { torch::set_num_threads(n); },
         "Intra-op threads for LibTorch (default: LibTorch's choice, one per core)")
      ->check(CLI::Range(1, 1024));
  app.add_option_function<int64_t>(
         "--cpu-cache-mb",
         [](int64_t mb) {
           morpheus::model::install_caching_cpu_allocator(static_cast<size_t>(mb) << 20);
         },
         "Cap in MiB on freed CPU tensor memory kept for reuse (blocks >= 1 MiB; 0 = return "
         "every block to the system; default 4096)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
  morpheus::tools::CommandRegistry registry;
  morpheus::tools::register_text_commands(app, registry);
  morpheus::tools::register_runtime_commands(app, registry);
  morpheus::tools::register_hybrid_commands(app, registry);
  morpheus::tools::register_cbpe_commands(app, registry);
  morpheus::tools::register_plain_commands(app, registry);
  morpheus::tools::register_eval_commands(app, registry);
  morpheus::tools::register_prepare_commands(app, registry);
  morpheus::tools::register_train_commands(app, registry);
  morpheus::tools::register_info_commands(app, registry);
  morpheus::tools::register_neural_commands(app, registry);
  morpheus::tools::register_index_commands(app, registry);
  morpheus::tools::register_lm_commands(app, registry);
  morpheus::tools::register_pack_commands(app, registry, morpheus::tools::torch_model_maker());
  registry.set_before_action([] { morpheus::model::warn_if_slow_blas(); });
  return registry.run(app, argc, argv);
}
