// SPDX-License-Identifier: MIT
// The model's hyper-parameters as the engine reads them: model::ModelConfig (config/
// model_config.h, the one schema the LibTorch model and the engine share), of which the forward
// pass reads the architecture (ModelConfig::validate_architecture), stored in the JSON header of
// the weight file (engine/weight_file.h) under ModelConfig's own keys; and the list of tensors
// such a model has: their state-dict names (those of model::Morpheus) and shapes. Torch-free.
//   D = char_dim, H = num_heads, Dh = D/H, F = ffn_mult·D, V = char_vocab_size,
//   C = cnn_channels, T = max_word_len positions (BOS, the characters, EOS).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "config/model_config.h"
#include "core/status.h"

namespace morpheus::engine {

// The architecture of `config` (model::kArchitectureKeys, ModelConfig's JSON) as the weight
// file's "config".
nlohmann::json config_to_json(const model::ModelConfig& config);
// The weight file's "config": every architecture key is required and no other key is allowed;
// a file written before the engine shared the model's schema (keys vocab_size, dim,
// encoder_layers, detector_layers and layer_norm_eps, which must be
// ModelConfig::kLayerNormEps) reads as the same config. The other fields keep ModelConfig's
// defaults. `where` names the source in messages.
StatusOr<model::ModelConfig> config_from_json(const nlohmann::json& j, const std::string& where);

// One tensor of the model: its model::Morpheus state-dict name and shape (float32).
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
};

// Every tensor of a model with `config`, in file order: the parameters of model::Morpheus
// (char_encoder.*, boundary_detector.*, segment_encoder.*) and the RoPE tables
// (*.rope.cos_cache, *.rope.sin_cache: [T, Dh] in the encoder, [2T, Dh] in the detector).
std::vector<TensorSpec> expected_tensors(const model::ModelConfig& config);

// "[2,3]".
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace morpheus::engine
