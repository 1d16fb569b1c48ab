// SPDX-License-Identifier: MIT
// `morpheus`: a torch-free front that starts in milliseconds. `encode|decode|segment|cache` and
// `tokenizer-info` run
// here (letter runs outside the segment table go to `morpheus-model-server`, started only
// when needed); every other command (and --help) is handed to `morpheus-torch` with execv.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/install_dirs.h"
#include "tokenizer/model_client.h"
#include "tools/cli.h"
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

}  // namespace

int main(int argc, char** argv) {
  const std::string command = command_of(argc, argv);
  if (command == "encode" || command == "decode" || command == "segment" || command == "cache" ||
      command == "tokenizer-info") {
    CLI::App app{"morpheus: morphology-aware neural tokenizer and word embedder (Turkish first)",
                 "morpheus"};
    app.require_subcommand(1);
    app.fallthrough();
    morpheus::tools::add_global_flags(app);
    morpheus::tools::CommandRegistry registry;
    const std::string server = sibling("morpheus-model-server");
    morpheus::tools::register_tokenize_commands(
        app, registry, [server](const morpheus::tokenizer::ModelRequest& request) {
          return morpheus::tokenizer::model_server_factory(server, request);
        });
    return registry.run(app, argc, argv);
  }
  const std::string torch = sibling("morpheus-torch");
  argv[0] = const_cast<char*>(torch.c_str());
  ::execv(torch.c_str(), argv);
  std::fprintf(stderr, "error: cannot run %s: %s\nhint: morpheus-torch is built next to morpheus\n",
               torch.c_str(), std::strerror(errno));
  return 1;
}
