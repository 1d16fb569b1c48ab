// SPDX-License-Identifier: MIT
// Registration functions for the `morpheus` subcommands, one per tools/cmd_*.cc file.
#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli.h"

namespace morpheus::tools {

// pretokenize: text lines → JSON spans (tools/cmd_text.cc).
void register_text_commands(CLI::App& app, CommandRegistry& registry);
// device: which device --device auto resolves to, and the BLAS in use (tools/cmd_runtime.cc).
void register_runtime_commands(CLI::App& app, CommandRegistry& registry);

// info: parameter counts per model part as JSON (tools/cmd_info.cc).
void register_info_commands(CLI::App& app, CommandRegistry& registry);

}  // namespace morpheus::tools
