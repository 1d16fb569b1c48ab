// SPDX-License-Identifier: MIT
// Training objectives: the deep-supervised aux boundary loss, the training batch of packed real
// words, loss weights (with the aux curriculum) and MorpheusWithHeads, the module a trainer
// optimises (model + SGNS context table + MLM head) with compute_losses(batch, weights).
//   Batch layout and shapes: model/README.md.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <vector>

#include "config/model_config.h"
#include "model/heads.h"
#include "model/morpheus.h"

namespace morpheus::model {

struct AuxLossOutput {
  torch::Tensor total;                   // scalar Σ_l depth_w_l · loss_l
  std::vector<torch::Tensor> per_layer;  // M scalars
};

// layer_logits M × [N,T-1]; labels [N,T-1] float 0/1 teacher gap labels; confidence [N] float
// (0 = no supervision); gaps [N,T-1] bool valid gaps. Per layer and word: conf·mean BCE over
// valid gaps (logits clamped ±30, pos_weight) + count_w·(Σσ − Σlabel)²; averaged over words with
// conf > 0 and a valid gap. depth_weights are not normalised (reference parity).
AuxLossOutput aux_boundary_loss(const std::vector<torch::Tensor>& layer_logits,
                                const torch::Tensor& labels, const torch::Tensor& confidence,
                                const torch::Tensor& gaps, const std::vector<double>& depth_weights,
                                double pos_weight, double count_weight);

// One training micro-batch. N real words packed (no empty slots run through the model), with a
// sentence view word_index for the context objectives (SGNS window, MLM context).
struct MorpheusBatch {
  torch::Tensor char_ids;         // [N,T] int64: BOS=2 at 0, lower-cased char ids, EOS=3, PAD=0
  torch::Tensor case_flags;       // [N,T] int64 0/1 (1 = upper-case character), 0 at BOS/EOS/PAD
  torch::Tensor boundary_labels;  // [N,T-1] float 0/1: gap g between positions g and g+1
  torch::Tensor confidence;       // [N] float teacher confidence in [0,1]
  torch::Tensor word_ids;         // [N] int64 word-vocab id (0 = UNK)
  torch::Tensor root_ids;         // [N] int64 root-vocab id (0 = UNK)
  // [N] int64 the identity of the teacher's suffix string (the characters after its first cut,
  // make_batch of train/batcher.h); 0 = no suffix. Equal ids = equal strings.
  torch::Tensor suffix_ids;
  torch::Tensor word_index;  // [B,W] int64: packed word in sentence slot, −1 = empty

  // Contract check of the shapes/dtypes above (TORCH_CHECK).
  void check(const ModelConfig& config) const;
  // Copy of every tensor on `device` (asynchronous from pinned memory with non_blocking).
  MorpheusBatch to(const torch::Device& device, bool non_blocking = false) const;
  // Copy of every tensor in page-locked memory (needs CUDA), for non_blocking copies to a GPU.
  MorpheusBatch pin_memory() const;
};

struct LossWeights {
  double aux = 0.5;
  double sgns = 0.7;
  double ctr = 0.3;
  double mlm = 1.0;
  double sfx = 0.0;
  // The config's weights with the aux curriculum of epoch `epoch` (0-based).
  static LossWeights for_epoch(const ModelConfig& config, int64_t epoch);
};

struct LossOutput {
  torch::Tensor total;  // scalar, Σ weight·loss (terms with weight 0 are skipped and read 0)
  torch::Tensor aux, sgns, ctr, mlm, sfx;  // scalars, unweighted
  std::vector<torch::Tensor> aux_layers;
  torch::Tensor boundary_logits;  // [N,T-1] final-layer logits (for boundary metrics)
  torch::Tensor gap_mask;         // [N,T-1] bool
};

// The suffix-contrastive loss: SupCon InfoNCE (root_family_infonce) over the inflection part of
// the words (engine/embedding_layout.h: the fusion of the mean encoder rows of the suffixes and
// of the last suffix under the soft membership, [N,2D]), positives = the same teacher suffix
// string (suffix_ids ≠ 0).
torch::Tensor suffix_infonce(MorpheusImpl& model, const MorpheusOutput& fwd,
                             const torch::Tensor& suffix_ids, double temperature);

// The trainable whole: "model" (Morpheus, the inference checkpoint), "sgns" (context table and
// negative distribution) and "mlm_head" (when config.use_mlm).
class MorpheusWithHeadsImpl : public torch::nn::Cloneable<MorpheusWithHeadsImpl> {
 public:
  explicit MorpheusWithHeadsImpl(const ModelConfig& config);
  void reset() override;
  LossOutput compute_losses(const MorpheusBatch& batch, const LossWeights& weights);

  ModelConfig config;
  Morpheus model{nullptr};
  SgnsHead sgns{nullptr};
  MlmHead mlm_head{nullptr};  // null when !config.use_mlm
};
TORCH_MODULE(MorpheusWithHeads);

}  // namespace morpheus::model
