// SPDX-License-Identifier: MIT
// Registration of `encode|decode|segment --model TOKDIR` (tools/cmd_tokenize.cc), shared by the
// torch-free `morpheus` front and `morpheus-torch`: the model is the engine on the CPU
// (engine/directory.h) in both; `morpheus-torch` runs LibTorch for --device cuda.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <string>

#include "tokenizer/segmenter.h"
#include "tokenizer/tokenizer.h"
#include "tools/cli.h"

namespace morpheus::tools {

// What a tokenizer command asks of the model that segments the letter runs its table lacks.
struct ModelRequest {
  size_t cache = size_t{1} << 20;  // runs kept in the LibTorch model's LRU cache (--device cuda)
  int threads = 0;                 // threads of the model per call; 0: one (the engine)
  std::string device = "cpu";      // where the model runs: cpu (the engine), auto, cuda, cuda:N
};

// The spec (tokenizer/segmenter.h) of the segmenter of letter runs outside the segment table
// (created on the first such run), as --cache and --model-threads ask.
using ModelMaker = std::function<StatusOr<tokenizer::SegmenterSpec>(const ModelRequest& request)>;

// encode|decode|segment --model TOKDIR over Tokenizer (torch-free).
void register_tokenize_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model);

// The model maker of the torch-free runtime: the engine (engine/directory.h) with
// --model-threads threads; INVALID_ARGUMENT for a device other than the CPU.
ModelMaker engine_model_maker();

}  // namespace morpheus::tools
