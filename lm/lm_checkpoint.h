// SPDX-License-Identifier: MIT
// Language-model checkpoints: one torch archive file, written to a temp sibling and renamed into
// place (a reader sees the old file or the whole new one). It holds "format" (morpheus-lm),
// "spec" (LmSpec as JSON), "model" (every parameter of the Gpt), and for a training checkpoint
// "optimizer" (AdamW moments) and "state" (the loop state as JSON). Round trips are bit-exact and
// load on any device.
#pragma once

#include <torch/optim/optimizer.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "lm/gpt.h"

namespace morpheus::lm {

// What rebuilds the model: the tokenizer's vocabulary (the model adds the end-of-line id) and the
// Gpt's shape.
struct LmSpec {
  int64_t tokenizer_vocab = 0;
  GptOptions gpt;  // gpt.vocab == tokenizer_vocab + 1
};
nlohmann::json spec_json(const LmSpec& spec);

// optimizer may be null (a final checkpoint); state is stored as given.
Status save_lm_checkpoint(const std::string& path, const LmSpec& spec, GptImpl& model,
                          const torch::optim::Optimizer* optimizer, const nlohmann::json& state);

struct LoadedLm {
  LmSpec spec;
  Gpt model{nullptr};
  nlohmann::json state;  // {} for a final checkpoint
};
// Rebuilds the Gpt from the spec and loads it onto `device`. NOT_FOUND / DATA_LOSS naming the
// file on any problem.
StatusOr<LoadedLm> load_lm_checkpoint(const std::string& path, const torch::Device& device);
// Restores the optimizer moments of a training checkpoint (same parameters, same order) onto
// `device`, the device of the parameters.
Status load_lm_optimizer(const std::string& path, torch::optim::Optimizer& optimizer,
                         const torch::Device& device);

}  // namespace morpheus::lm
