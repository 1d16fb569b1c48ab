// SPDX-License-Identifier: MIT
// ModelConfig's JSON fields, validation and the aux-weight curriculum.
#include "config/model_config.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/config_section.h"

namespace morpheus::model {

MORPHEUS_CONFIG_FIELDS(ModelConfig, char_vocab_size, word_vocab_size, root_vocab_size, char_dim,
                       char_embed_dim, case_embed_dim, n_layers_encoder, n_layers_detector,
                       num_heads, ffn_mult, max_word_len, max_sent_len, max_segs, cnn_kernels,
                       cnn_channels, rope_base, dropout, threshold, min_seg_mass, pos_weight,
                       count_loss_w, depth_weights, use_mlm, mlm_ctx_layers, mlm_dec_layers,
                       mlm_ctx_ffn_mult, mlm_dec_ffn_mult, mlm_mask_rate, sgns_n_negatives,
                       sgns_window, ctr_temperature, aux_weight_start, aux_weight_end,
                       aux_weight_decay, sgns_weight, ctr_weight, mlm_weight, sfx_weight)

namespace {

Status out_of_range(const std::string& field, const std::string& value, const std::string& want) {
  return invalid_argument("model." + field + " = " + value + " is out of range",
                          "expected " + want);
}

Status check_int(const char* name, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi) {
    return out_of_range(name, std::to_string(v),
                        "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return ok_status();
}

Status check_real(const char* name, double v, double lo, double hi, bool lo_open, bool hi_open) {
  const bool bad = std::isnan(v) || (lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi);
  if (bad) {
    return out_of_range(name, std::to_string(v),
                        std::string("a number in ") + (lo_open ? "(" : "[") + std::to_string(lo) +
                            ", " + std::to_string(hi) + (hi_open ? ")" : "]"));
  }
  return ok_status();
}

constexpr double kBig = 1e30;

}  // namespace

Status ModelConfig::validate_architecture() const {
  MORPHEUS_RETURN_IF_ERROR(check_int("char_vocab_size", char_vocab_size, 5, 1000000));
  MORPHEUS_RETURN_IF_ERROR(check_int("char_dim", char_dim, 2, 65536));
  MORPHEUS_RETURN_IF_ERROR(check_int("char_embed_dim", char_embed_dim, 1, 4096));
  MORPHEUS_RETURN_IF_ERROR(check_int("case_embed_dim", case_embed_dim, 1, 4096));
  MORPHEUS_RETURN_IF_ERROR(check_int("n_layers_encoder", n_layers_encoder, 0, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("n_layers_detector", n_layers_detector, 1, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("num_heads", num_heads, 1, 256));
  MORPHEUS_RETURN_IF_ERROR(check_int("ffn_mult", ffn_mult, 1, 16));
  MORPHEUS_RETURN_IF_ERROR(check_int("max_word_len", max_word_len, 3, 1024));
  MORPHEUS_RETURN_IF_ERROR(check_int("max_segs", max_segs, 2, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("cnn_channels", cnn_channels, 1, 65536));
  if (char_dim % num_heads != 0 || head_dim() % 2 != 0) {
    return invalid_argument("model.char_dim = " + std::to_string(char_dim) +
                                " is not divisible into num_heads = " + std::to_string(num_heads) +
                                " heads of even width",
                            "RoPE needs an even head dimension char_dim/num_heads");
  }
  if (cnn_kernels.empty() || cnn_kernels.size() > 64 ||
      static_cast<int64_t>(cnn_kernels.size()) * cnn_channels != char_dim) {
    return invalid_argument("model.cnn_kernels (" + std::to_string(cnn_kernels.size()) +
                                " widths) × model.cnn_channels (" + std::to_string(cnn_channels) +
                                ") must equal model.char_dim (" + std::to_string(char_dim) + ")",
                            "the multi-scale CNN output is added residually to the hidden state");
  }
  for (int64_t k : cnn_kernels) MORPHEUS_RETURN_IF_ERROR(check_int("cnn_kernels[]", k, 1, 64));
  MORPHEUS_RETURN_IF_ERROR(check_real("threshold", threshold, 0.0, 1.0, true, true));
  return check_real("min_seg_mass", min_seg_mass, 0.0, kBig, false, false);
}

Status ModelConfig::validate() const {
  MORPHEUS_RETURN_IF_ERROR(validate_architecture());
  MORPHEUS_RETURN_IF_ERROR(check_int("word_vocab_size", word_vocab_size, 2, 100000000));
  MORPHEUS_RETURN_IF_ERROR(check_int("root_vocab_size", root_vocab_size, 1, 100000000));
  MORPHEUS_RETURN_IF_ERROR(check_int("max_sent_len", max_sent_len, 1, 4096));
  MORPHEUS_RETURN_IF_ERROR(check_int("mlm_ctx_layers", mlm_ctx_layers, 1, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("mlm_dec_layers", mlm_dec_layers, 1, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("mlm_ctx_ffn_mult", mlm_ctx_ffn_mult, 1, 16));
  MORPHEUS_RETURN_IF_ERROR(check_int("mlm_dec_ffn_mult", mlm_dec_ffn_mult, 1, 16));
  MORPHEUS_RETURN_IF_ERROR(check_int("sgns_n_negatives", sgns_n_negatives, 1, 1024));
  MORPHEUS_RETURN_IF_ERROR(check_int("sgns_window", sgns_window, 1, 64));
  if (static_cast<int64_t>(depth_weights.size()) != n_layers_detector) {
    return invalid_argument(
        "model.depth_weights has " + std::to_string(depth_weights.size()) +
            " entries, expected n_layers_detector = " + std::to_string(n_layers_detector),
        "give one deep-supervision weight per detector layer");
  }
  MORPHEUS_RETURN_IF_ERROR(check_real("rope_base", rope_base, 1.0, kBig, true, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("dropout", dropout, 0.0, 1.0, false, true));
  MORPHEUS_RETURN_IF_ERROR(check_real("pos_weight", pos_weight, 0.0, kBig, true, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("count_loss_w", count_loss_w, 0.0, kBig, false, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("mlm_mask_rate", mlm_mask_rate, 0.0, 1.0, true, true));
  MORPHEUS_RETURN_IF_ERROR(check_real("ctr_temperature", ctr_temperature, 0.0, kBig, true, false));
  MORPHEUS_RETURN_IF_ERROR(
      check_real("aux_weight_start", aux_weight_start, 0.0, kBig, false, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("aux_weight_end", aux_weight_end, 0.0, kBig, false, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("aux_weight_decay", aux_weight_decay, 0.0, 1.0, true, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("sgns_weight", sgns_weight, 0.0, kBig, false, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("ctr_weight", ctr_weight, 0.0, kBig, false, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("sfx_weight", sfx_weight, 0.0, kBig, false, false));
  MORPHEUS_RETURN_IF_ERROR(check_real("mlm_weight", mlm_weight, 0.0, kBig, false, false));
  for (double w : depth_weights) {
    MORPHEUS_RETURN_IF_ERROR(check_real("depth_weights[]", w, 0.0, kBig, false, false));
  }
  return ok_status();
}

double aux_weight_for_epoch(const ModelConfig& config, int64_t epoch) {
  const double w =
      config.aux_weight_start *
      std::pow(config.aux_weight_decay, static_cast<double>(std::max<int64_t>(0, epoch)));
  return std::max(config.aux_weight_end, w);
}

}  // namespace morpheus::model
