// SPDX-License-Identifier: MIT
// EngineConfig: the hyper-parameters the engine needs to run an exported Morpheus model (a subset
// of model::ModelConfig plus the LayerNorm epsilon), stored in the JSON header of the weight file
// (engine/weight_file.h), and the list of tensors such a model has: their state-dict names (those
// of model::Morpheus) and shapes. Torch-free.
//   D = dim, H = num_heads, Dh = D/H, F = ffn_mult·D, V = vocab_size, C = cnn_channels,
//   T = max_word_len positions (BOS, the characters, EOS).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::engine {

struct EngineConfig {
  int64_t vocab_size = 0;       // V: char ids incl. PAD=0, UNK=1, BOS=2, EOS=3
  int64_t dim = 0;              // D, width of every stage
  int64_t char_embed_dim = 0;   // character embedding width
  int64_t case_embed_dim = 0;   // case-flag embedding width
  int64_t encoder_layers = 0;   // RoPE self-attention layers of the char encoder (may be 0)
  int64_t detector_layers = 0;  // detector layers (>= 1); the last one's gap scorer decides
  int64_t num_heads = 0;        // H; Dh = D/H is even
  int64_t ffn_mult = 0;         // F = ffn_mult·D (encoder, detector and pooling FFNs)
  int64_t max_word_len = 0;     // T: positions per word incl. BOS and EOS
  int64_t max_segs = 0;         // S: segments of the pooling; segment S−1 absorbs the overflow
  std::vector<int64_t> cnn_kernels;  // convolution widths; count·C == D
  int64_t cnn_channels = 0;          // C: output channels per width
  double threshold = 0.5;            // hard boundary of the embedding path when p > threshold
  double min_seg_mass = 0.01;        // a segment counts in the word mean when its mass exceeds it
  double layer_norm_eps = 1e-5;      // epsilon of every LayerNorm

  int64_t head_dim() const { return dim / num_heads; }
  int64_t ffn_dim() const { return ffn_mult * dim; }
};

// OK, or INVALID_ARGUMENT naming the first field out of range.
Status validate_config(const EngineConfig& config);

nlohmann::json config_to_json(const EngineConfig& config);
// Every field is required; unknown keys are an error. `where` names the source in messages.
StatusOr<EngineConfig> config_from_json(const nlohmann::json& j, const std::string& where);

// One tensor of the model: its model::Morpheus state-dict name and shape (float32).
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
};

// Every tensor of a model with `config`, in file order: the parameters of model::Morpheus
// (char_encoder.*, boundary_detector.*, segment_encoder.*) and the RoPE tables
// (*.rope.cos_cache, *.rope.sin_cache: [T, Dh] in the encoder, [2T, Dh] in the detector).
std::vector<TensorSpec> expected_tensors(const EngineConfig& config);

// "[2,3]".
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace morpheus::engine
