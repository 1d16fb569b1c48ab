// SPDX-License-Identifier: MIT
// Model: a loaded weight file (engine/weight_file.h) as the forward passes read it: pointers into
// the read-only mapping, plus three small tables derived once at load (the projected character
// table, the convolution as one fused weight, its bias). Immutable after load; share it between
// threads and segmenters. Torch-free. Shapes (legend of engine/config.h):
//   char_embedding [V,Ec], case_embedding [2,Ecase], embed_proj [D,Ec+Ecase] + [D]
//   projected [2,V,D]: embed_proj(char ⊕ case) of every (case, char)
//   cnn_weight [D, W·D]: output channel i·C + c of kernel width k_i holds its taps at window
//     offsets P − ⌊k_i/2⌋ … (zeros elsewhere); cnn_bias [D]; W = cnn_window, P = cnn_pad
//   attention: qkv [3D,D] (no bias), proj [D,D] + [D], post-norm LayerNorm [D], RoPE [L,Dh]
//   ffn: LayerNorm [D], Linear [F,D] + [F], Linear [D,F] + [D]
//   scorer (detector layers): Linear [D,2D] + [D], Linear [1,D] + [1]
//   pooling: char_scorer [1,D], fusion Linear [F,D] + [F], Linear [D,F] + [D], LayerNorm [D]
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/config.h"
#include "engine/weight_file.h"

namespace morpheus::engine {

inline constexpr int32_t kPadId = 0;
inline constexpr int32_t kUnkId = 1;
inline constexpr int32_t kBosId = 2;
inline constexpr int32_t kEosId = 3;

// One word (a chunk of at most T − 2 characters) as the model reads it: ids[0] = BOS, ids[1..n]
// the characters' ids, ids[n+1] = EOS; cases[i] = 1 for an upper-case character (0 at BOS/EOS).
struct WordIds {
  std::vector<int32_t> ids;
  std::vector<uint8_t> cases;
  size_t positions() const { return ids.size(); }
};

struct LayerNormWeights {
  const float* gamma = nullptr;
  const float* beta = nullptr;
};

struct AttentionWeights {
  const float* qkv = nullptr;   // [3D,D]
  const float* proj = nullptr;  // [D,D]
  const float* proj_bias = nullptr;
  LayerNormWeights norm;
  const float* cos = nullptr;  // [rope_len, Dh]
  const float* sin = nullptr;
  size_t rope_len = 0;
};

struct FfnWeights {
  LayerNormWeights norm;
  const float* w1 = nullptr;  // [F,D]
  const float* b1 = nullptr;
  const float* w2 = nullptr;  // [D,F]
  const float* b2 = nullptr;
};

struct ScorerWeights {
  const float* w0 = nullptr;  // [D,2D]
  const float* b0 = nullptr;
  const float* w2 = nullptr;  // [1,D]
  float b2 = 0;
};

struct PoolingWeights {
  const float* char_scorer = nullptr;  // [1,D]
  const float* w0 = nullptr;           // [F,D]
  const float* b0 = nullptr;
  const float* w3 = nullptr;  // [D,F]
  const float* b3 = nullptr;
  LayerNormWeights norm;
};

class Model {
 public:
  // Loads and verifies `path`; errors are those of WeightFile::open.
  static StatusOr<std::shared_ptr<const Model>> load(const std::string& path);
  explicit Model(std::unique_ptr<WeightFile> file);

  const model::ModelConfig& config() const { return file_->config(); }
  const WeightFile& file() const { return *file_; }

  // Sizes as the loops use them.
  size_t dim = 0, heads = 0, head_dim = 0, ffn_dim = 0, vocab = 0, max_segs = 0;
  size_t max_positions = 0;  // T
  float eps = 0;

  // Embeddings and the projection (kept for the double-precision path).
  const float* char_embedding = nullptr;
  const float* case_embedding = nullptr;
  const float* embed_proj = nullptr;
  const float* embed_proj_bias = nullptr;
  std::vector<const float*> conv_weight, conv_bias;  // per kernel width: [C,D,k], [C]
  LayerNormWeights cnn_norm, final_norm;
  std::vector<AttentionWeights> encoder_attention, detector_attention;
  std::vector<FfnWeights> encoder_ffn, detector_ffn;
  ScorerWeights scorer;  // the last detector layer's
  PoolingWeights pooling;

  // Derived at load.
  std::vector<float> projected;   // [2,V,D]
  std::vector<float> cnn_weight;  // [D, W·D]
  std::vector<float> cnn_bias;    // [D]
  size_t cnn_window = 0, cnn_pad = 0;

 private:
  void bind_weights();
  void derive_tables();

  std::unique_ptr<WeightFile> file_;
};

}  // namespace morpheus::engine
