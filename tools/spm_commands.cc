// SPDX-License-Identifier: MIT
// SentencePiece subcommands. Filled in by the subword-baselines work; none registered yet.
#include "tools/spm_commands.h"

namespace morpheus::tools {

void register_spm_commands(CLI::App& /*app*/, CommandRegistry& /*registry*/) {}

}  // namespace morpheus::tools
