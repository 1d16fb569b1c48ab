// SPDX-License-Identifier: MIT
// Registration of `morpheus pack` and `morpheus pack merge` (tools/cmd_pack.cc, library pack/),
// shared by the torch-free `morpheus` front and `morpheus-torch`, which differ in the model
// segmenter they name (cmd_tokenize.h ModelMaker): the engine on the CPU in both, LibTorch for
// --device cuda in `morpheus-torch`.
#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli.h"
#include "tools/cmd_tokenize.h"

namespace morpheus::tools {

// pack --model TOKDIR --out PREFIX INPUT... and pack merge --out PREFIX PART...
void register_pack_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model);

}  // namespace morpheus::tools
