// SPDX-License-Identifier: MIT
// ModelConfig: every hyper-parameter of the Morpheus model, its training heads and its loss
// weights. Defaults are the paper configuration (configs/paper.json). The "model" section of a
// config file (core/config_section.h: section_from_json<ModelConfig>); its JSON fields are in
// config.cc.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/status.h"

namespace morpheus::model {

struct ModelConfig {
  static constexpr const char* kSection = "model";
  // Vocabularies.
  int64_t char_vocab_size = 76;      // symbols incl. PAD=0, UNK=1, BOS=2, EOS=3; [5, 1e6]
  int64_t word_vocab_size = 120000;  // SGNS context table rows incl. UNK=0; [2, 1e8]
  int64_t root_vocab_size = 30000;   // root ids for the contrastive loss, UNK=0; [1, 1e8]
  // Shapes.
  int64_t char_dim = 320;         // D, hidden width of every stage; multiple of num_heads
  int64_t char_embed_dim = 96;    // character embedding width; [1, 4096]
  int64_t case_embed_dim = 16;    // case-flag embedding width; [1, 4096]
  int64_t n_layers_encoder = 3;   // RoPE self-attention layers in the CharEncoder; [0, 64]
  int64_t n_layers_detector = 4;  // RoPE layers (each with a gap scorer) in the detector; [1, 64]
  int64_t num_heads = 5;          // H, attention heads; Dh = D/H must be even (RoPE)
  int64_t ffn_mult = 2;           // encoder/detector FFN width = ffn_mult·D; [1, 16]
  int64_t max_word_len = 32;      // T, positions per word incl. BOS and EOS; [3, 1024]
  int64_t max_sent_len = 32;      // word slots per sentence row (SGNS/MLM positions); [1, 4096]
  int64_t max_segs = 12;          // S, segments; the last one is the overflow sink; [2, 64]
  std::vector<int64_t> cnn_kernels = {2, 3, 4, 5, 6};  // conv widths; count·cnn_channels == D
  int64_t cnn_channels = 64;                           // output channels per kernel width
  double rope_base = 10000.0;                          // RoPE frequency base; > 1
  double dropout = 0.1;                                // dropout probability; [0, 1)
  double threshold = 0.5;      // hard boundary when p > threshold (inference); (0, 1)
  double min_seg_mass = 0.01;  // a segment is valid when its membership mass exceeds this; >= 0
  // Auxiliary boundary loss.
  double pos_weight = 4.0;    // BCE weight of positive gaps; > 0
  double count_loss_w = 0.2;  // weight of the squared boundary-count error; >= 0
  std::vector<double> depth_weights = {0.8875, 0.925, 0.9625, 1.0};  // one per detector layer
  // MLM head.
  bool use_mlm = true;           // build and train the character MLM head
  int64_t mlm_ctx_layers = 4;    // pre-LN context transformer layers; [1, 64]
  int64_t mlm_dec_layers = 2;    // pre-LN causal character decoder layers; [1, 64]
  int64_t mlm_ctx_ffn_mult = 4;  // context FFN width = mult·D
  int64_t mlm_dec_ffn_mult = 2;  // decoder FFN width = mult·D
  double mlm_mask_rate = 0.20;   // Bernoulli probability a valid word slot is masked; (0, 1)
  // SGNS and contrastive heads.
  int64_t sgns_n_negatives = 16;  // negatives per (centre, context) pair; [1, 1024]
  int64_t sgns_window = 6;        // context offsets ±1..±window inside a sentence row; [1, 64]
  double ctr_temperature = 0.10;  // InfoNCE temperature; > 0
  // Loss weights; the aux weight follows a per-epoch curriculum (aux_weight_for_epoch).
  double aux_weight_start = 0.5;   // aux weight used in epochs 0 and 1; >= 0
  double aux_weight_end = 0.08;    // floor of the aux weight; >= 0
  double aux_weight_decay = 0.80;  // per-epoch multiplicative decay; (0, 1]
  double sgns_weight = 0.7;        // >= 0
  double ctr_weight = 0.3;         // >= 0
  double mlm_weight = 1.0;         // >= 0
  // The suffix-contrastive loss on the inflection part (losses.h); 0 = off. >= 0
  double sfx_weight = 0.0;

  // Every LayerNorm of the model uses LibTorch's default epsilon; the engine uses the same.
  static constexpr double kLayerNormEps = 1e-5;

  int64_t head_dim() const { return char_dim / num_heads; }
  int64_t ffn_dim() const { return ffn_mult * char_dim; }  // F, the FFNs' hidden width
  // OK, or INVALID_ARGUMENT naming the first field out of range.
  Status validate() const;
  // The same for the fields of kArchitectureKeys alone (what the engine runs on).
  Status validate_architecture() const;
};

// The fields a trained model's forward pass reads (shapes, threshold, segment mass): what the
// engine's weight file stores (engine/config.h), under these JSON keys.
inline constexpr const char* kArchitectureKeys[] = {
    "char_vocab_size",   "char_dim",     "char_embed_dim", "case_embed_dim", "n_layers_encoder",
    "n_layers_detector", "num_heads",    "ffn_mult",       "max_word_len",   "max_segs",
    "cnn_kernels",       "cnn_channels", "threshold",      "min_seg_mass"};

// The aux weight used in epoch `epoch` (0-based): max(end, start·decay^epoch). The reference
// keeps the start weight for epochs 0 and 1 (its scheduler is off by one, §7.3 item 10); the
// trainer, the benches and the docs all use this one function.
double aux_weight_for_epoch(const ModelConfig& config, int64_t epoch);

// Every field; missing keys keep their defaults (section_from_json<ModelConfig> rejects unknown
// keys and returns a Status).
void to_json(nlohmann::json& j, const ModelConfig& config);
void from_json(const nlohmann::json& j, ModelConfig& config);

}  // namespace morpheus::model
