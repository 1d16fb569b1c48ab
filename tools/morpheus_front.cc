// SPDX-License-Identifier: MIT
// `morpheus`: a torch-free front that starts in milliseconds. `encode|decode|segment|cache`,
// `tokenizer-info` and `embed` run here, the model on the torch-free engine (engine/directory.h);
// with --device other than cpu, and for every other command (and --help), the arguments are
// handed to `morpheus-torch` with execv.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/install_dirs.h"
#include "tools/cli.h"
#include "tools/cmd_embed.h"
#include "tools/cmd_pack.h"
#include "tools/cmd_tokenize.h"

namespace {

// The executable `name` next to this one.
std::string sibling(const std::string& name) { return morpheus::executable_dir() + "/" + name; }

// The command word: the first argument after the front's own flags (-q/-v and their long forms).
std::string command_of(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-q" || a == "--quiet" || a == "-v" || a == "--verbose") continue;
    return a;
  }
  return "";
}

// Whether the arguments ask for a device other than the CPU (--device X or --device=X).
bool wants_device(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) return std::string(argv[i + 1]) != "cpu";
    if (a.rfind("--device=", 0) == 0) return a != "--device=cpu";
  }
  return false;
}

bool runs_here(const std::string& command) {
  return command == "encode" || command == "decode" || command == "segment" || command == "cache" ||
         command == "tokenizer-info" || command == "embed" || command == "pack";
}

}  // namespace

int main(int argc, char** argv) {
  if (runs_here(command_of(argc, argv)) && !wants_device(argc, argv)) {
    CLI::App app{"morpheus: morphology-aware neural tokenizer and word embedder (Turkish first)",
                 "morpheus"};
    app.require_subcommand(1);
    app.fallthrough();
    morpheus::tools::add_global_flags(app);
    morpheus::tools::CommandRegistry registry;
    const morpheus::tools::ModelMaker engine = morpheus::tools::engine_model_maker();
    morpheus::tools::register_tokenize_commands(app, registry, engine);
    morpheus::tools::register_embed_command(app, registry);
    morpheus::tools::register_pack_commands(app, registry, engine);
    return registry.run(app, argc, argv);
  }
  const std::string torch = sibling("morpheus-torch");
  argv[0] = const_cast<char*>(torch.c_str());
  ::execv(torch.c_str(), argv);
  std::fprintf(stderr, "error: cannot run %s: %s\nhint: morpheus-torch is built next to morpheus\n",
               torch.c_str(), std::strerror(errno));
  return 1;
}
