// SPDX-License-Identifier: MIT
// Registration of `encode|decode|segment --model TOKDIR` (tools/cmd_tokenize.cc), shared by the
// LibTorch `morpheus-torch` (model in process) and the torch-free `morpheus` front (model server).
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>

#include "tokenizer/model_client.h"
#include "tokenizer/segmenter.h"
#include "tokenizer/tokenizer.h"
#include "tools/cli.h"

namespace morpheus::tools {

// The spec (tokenizer/segmenter.h) of the segmenter of letter runs outside the segment table
// (created on the first such run), as --cache and --model-threads ask.
using ModelMaker = std::function<tokenizer::SegmenterSpec(const tokenizer::ModelRequest& request)>;

// encode|decode|segment --model TOKDIR over Tokenizer (torch-free).
void register_tokenize_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model);

}  // namespace morpheus::tools
