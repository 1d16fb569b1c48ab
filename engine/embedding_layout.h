// SPDX-License-Identifier: MIT
// EmbeddingLayout: what a word vector of a tokenizer directory holds, its named parts in order
// (morpheus.json "embedding"; written by `morpheus export`, read by every runtime). Torch-free.
// D = the model's width; s_0 … s_K = the word's segments pooled under its hard boundaries
// (engine/forward.h), fuse(x) = LayerNorm(x + FFN(x)) with the pooling's weights, u(x) = x/|x|.
//   mean             one part, full [D] = fuse(mean of s_0 … s_K): the vector the training
//                    losses shape (directories without the entry have this layout).
//   root-inflection  root [D] = u(fuse(s_0)), the root segment;
//                    inflection [2D] = w·[u(fuse(r)), u(fuse(l))], r = the plain mean of the
//                    encoder rows of the suffixes' positions (outside s_0, EOS included), l = that
//                    of the last suffix's positions (number sits early in a chain, case at its
//                    end; plain means keep every suffix letter, which the attention pooling of a
//                    segment does not); fuse(0) when the word has no suffix. full = [root |
//                    inflection] [3D], so the cosine of two full vectors = (cos_root + w²·(cos_mean
//                    + cos_last)) / (1 + 2w²) and one .npy row still serves an inner-product index.
// A word longer than the model's length is the mean of its chunks' raw vectors, then normalised.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::engine {

enum class EmbeddingPooling { kMean, kRootInflection };

// "mean" / "root-inflection"; INVALID_ARGUMENT naming the choices otherwise.
StatusOr<EmbeddingPooling> parse_embedding_pooling(const std::string& name);
const char* embedding_pooling_name(EmbeddingPooling pooling);

struct EmbeddingPart {
  std::string name;
  size_t offset = 0, dim = 0;  // columns [offset, offset + dim) of the full vector
};

class EmbeddingLayout {
 public:
  static constexpr double kDefaultInflectionWeight = 0.25;

  EmbeddingLayout(EmbeddingPooling pooling, size_t model_dim,
                  double inflection_weight = kDefaultInflectionWeight);
  // The layout of a directory's morpheus.json (`config`), for a model of width model_dim: "mean"
  // without an "embedding" entry; DATA_LOSS when the entry does not match the model.
  static StatusOr<EmbeddingLayout> from_config(const nlohmann::json& config, size_t model_dim);
  // The layout of `config` whose full vectors have full_dim columns (a file of `morpheus embed`):
  // DATA_LOSS when they cannot be that directory's.
  static StatusOr<EmbeddingLayout> from_config_for_width(const nlohmann::json& config,
                                                         size_t full_dim);
  // The "embedding" entry: pooling, inflection_weight, dim and parts [{name, dim}] in order.
  nlohmann::json to_json() const;

  EmbeddingPooling pooling() const { return pooling_; }
  double inflection_weight() const { return inflection_weight_; }
  // Columns of a vector (D for mean, 3D for root-inflection); the forward pass writes raw rows of
  // the same width.
  size_t dim() const;
  const std::vector<EmbeddingPart>& parts() const { return parts_; }
  // The part `name` ("full" is every column); INVALID_ARGUMENT naming the parts otherwise.
  StatusOr<EmbeddingPart> part(const std::string& name) const;
  // Names of the parts and "full", for --help and errors: "full, root, inflection".
  std::string part_names() const;

  // Raw rows [n, dim] -> the layout's vectors in place (root-inflection: each D-block scaled
  // to unit length, the inflection blocks by the weight; mean: unchanged).
  void finish(float* rows, size_t n) const;

 private:
  EmbeddingPooling pooling_;
  size_t model_dim_;
  double inflection_weight_;
  std::vector<EmbeddingPart> parts_;
};

// Columns [part.offset, part.offset + part.dim) of rows [n, dim].
std::vector<float> take_part(const std::vector<float>& rows, size_t n, size_t dim,
                             const EmbeddingPart& part);

}  // namespace morpheus::engine
