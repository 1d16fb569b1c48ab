// SPDX-License-Identifier: MIT
// Registration of the `morpheus-spm` subcommands (tools/spm_commands.cc).
#pragma once

#include <CLI/CLI.hpp>

#include "tools/cli.h"

namespace morpheus::tools {

void register_spm_commands(CLI::App& app, CommandRegistry& registry);

}  // namespace morpheus::tools
