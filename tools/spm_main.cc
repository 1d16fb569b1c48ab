// SPDX-License-Identifier: MIT
// `morpheus-spm`: the SentencePiece baselines. It never links LibTorch: Debian's
// libsentencepiece and LibTorch's protobuf clash in one process (segfault before main).
#include <CLI/CLI.hpp>

#include "core/version.h"
#include "tools/cli.h"
#include "tools/spm_commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "morpheus-spm: SentencePiece BPE/Unigram baselines with morpheus I/O conventions, and the "
      "Unigram pieces of the plain tokenizers",
      "morpheus-spm"};
  app.set_version_flag("--version", "morpheus-spm " + morpheus::version_string());
  app.require_subcommand(1);
  app.fallthrough();
  morpheus::tools::add_global_flags(app);
  morpheus::tools::CommandRegistry registry;
  morpheus::tools::register_spm_commands(app, registry);
  return registry.run(app, argc, argv);
}
