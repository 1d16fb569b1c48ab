// SPDX-License-Identifier: MIT
// Registration of `encode|decode|segment --model TOKDIR` (tools/cmd_tokenize.cc), shared by the
// LibTorch `morpheus-torch` (model in process) and the torch-free `morpheus` front (model server).
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>

#include "tokenizer/segmenter.h"
#include "tools/cli.h"
#include "tools/tokenizer_dir.h"

namespace morpheus::tools {

// The spec (tokenizer/segmenter.h) of the segmenter of letter runs outside the segmentation table
// (created on the first such run), for an LRU cache of `cache` runs.
using ModelMaker = std::function<tokenizer::SegmenterSpec(size_t cache)>;

// encode|decode|segment --model TOKDIR over TokenizerDir (torch-free).
void register_tokenize_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model);

}  // namespace morpheus::tools
