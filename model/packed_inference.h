// SPDX-License-Identifier: MIT
// Forward-only boundary logits with the valid rows packed once for the whole stack: the
// segmentation path of inference (CharEncoder + BoundaryDetector's final layer) on float CPU
// tensors without gradient. The embeddings, projection and CNN run on the padded [B,T] batch as
// in training; then the valid rows are gathered once into [R,D], every attention layer, LayerNorm,
// FFN and the final gap scorer run on those rows (attention per word, RoPE fused), and the logits
// are scattered back once. Same result as the padded path up to float rounding.
//   boundary_logits(model, char_ids [B,T] int64, mask [B,T] bool true=valid)
//     -> logits [B,T-1] float, the final detector layer's gap logits, 0 at invalid gaps.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "model/morpheus.h"

namespace morpheus::model {

// The valid rows of a [B,T] mask whose valid positions are a prefix of every row.
struct PackedWords {
  // nullopt when some row's valid positions are not a prefix (then the padded path applies).
  static std::optional<PackedWords> from_prefix_mask(const torch::Tensor& mask);
  int64_t batch = 0, time = 0;
  std::vector<int64_t> offsets;  // [B+1]: word b holds packed rows [offsets[b], offsets[b+1])
  torch::Tensor rows;            // [R] int64: flat index b·T + position of each packed row
  torch::Tensor gaps;            // [G] int64: packed row of each gap's left position
  torch::Tensor gap_slots;       // [G] int64: flat index b·(T−1) + position of each gap
};

// Whether boundary_logits takes the packed path for these inputs: CPU, no gradient recording,
// row packing enabled (ValidRows::packing_enabled) and the packed path enabled (below); the model
// must also be float and the mask a prefix mask.
bool packed_inference_applies(const torch::Tensor& mask);
// The packed path can be switched off (benchmarks compare it with the padded modules). Global.
void set_packed_inference_enabled(bool enabled);

// The final-layer gap logits of the segmentation path (see the file comment): packed when
// packed_inference_applies, else model->boundary_detector(model->char_encoder(...)).logits.
// Case flags are all 0 (segmentation sees lower-cased words).
torch::Tensor boundary_logits(Morpheus& model, const torch::Tensor& char_ids,
                              const torch::Tensor& mask);

}  // namespace morpheus::model
