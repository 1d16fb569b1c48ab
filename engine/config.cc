// SPDX-License-Identifier: MIT
// EngineConfig: validation, JSON and the tensor list of a model.
#include "engine/config.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace morpheus::engine {
namespace {

Status check_int(const char* name, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi) {
    return invalid_argument(std::string(name) + " = " + std::to_string(v) +
                            ", expected an integer in [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]");
  }
  return ok_status();
}

// lo < v < hi (open) or lo <= v <= hi.
Status check_real(const char* name, double v, double lo, double hi, bool open) {
  const bool bad = std::isnan(v) || (open ? (v <= lo || v >= hi) : (v < lo || v > hi));
  if (bad) {
    return invalid_argument(std::string(name) + " = " + std::to_string(v) +
                            ", expected a number in " + (open ? "(" : "[") + std::to_string(lo) +
                            ", " + std::to_string(hi) + (open ? ")" : "]"));
  }
  return ok_status();
}

const char* const kConfigKeys[] = {
    "vocab_size",      "dim",          "char_embed_dim", "case_embed_dim", "encoder_layers",
    "detector_layers", "num_heads",    "ffn_mult",       "max_word_len",   "max_segs",
    "cnn_kernels",     "cnn_channels", "threshold",      "min_seg_mass",   "layer_norm_eps"};

void add_attention(std::vector<TensorSpec>* out, const std::string& p, int64_t d, int64_t rope_len,
                   int64_t dh) {
  out->push_back({p + "qkv.weight", {3 * d, d}});
  out->push_back({p + "proj.weight", {d, d}});
  out->push_back({p + "proj.bias", {d}});
  out->push_back({p + "norm.weight", {d}});
  out->push_back({p + "norm.bias", {d}});
  out->push_back({p + "rope.cos_cache", {rope_len, dh}});
  out->push_back({p + "rope.sin_cache", {rope_len, dh}});
}

// make_ffn's Sequential: 0 LayerNorm, 1 Linear(D,F), 4 Linear(F,D).
void add_ffn(std::vector<TensorSpec>* out, const std::string& p, int64_t d, int64_t f) {
  out->push_back({p + "0.weight", {d}});
  out->push_back({p + "0.bias", {d}});
  out->push_back({p + "1.weight", {f, d}});
  out->push_back({p + "1.bias", {f}});
  out->push_back({p + "4.weight", {d, f}});
  out->push_back({p + "4.bias", {d}});
}

}  // namespace

Status validate_config(const EngineConfig& c) {
  MORPHEUS_RETURN_IF_ERROR(check_int("vocab_size", c.vocab_size, 5, 1000000));
  MORPHEUS_RETURN_IF_ERROR(check_int("dim", c.dim, 2, 65536));
  MORPHEUS_RETURN_IF_ERROR(check_int("char_embed_dim", c.char_embed_dim, 1, 4096));
  MORPHEUS_RETURN_IF_ERROR(check_int("case_embed_dim", c.case_embed_dim, 1, 4096));
  MORPHEUS_RETURN_IF_ERROR(check_int("encoder_layers", c.encoder_layers, 0, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("detector_layers", c.detector_layers, 1, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("num_heads", c.num_heads, 1, 256));
  MORPHEUS_RETURN_IF_ERROR(check_int("ffn_mult", c.ffn_mult, 1, 16));
  MORPHEUS_RETURN_IF_ERROR(check_int("max_word_len", c.max_word_len, 3, 1024));
  MORPHEUS_RETURN_IF_ERROR(check_int("max_segs", c.max_segs, 2, 64));
  MORPHEUS_RETURN_IF_ERROR(check_int("cnn_channels", c.cnn_channels, 1, 65536));
  if (c.dim % c.num_heads != 0 || c.head_dim() % 2 != 0) {
    return invalid_argument("dim = " + std::to_string(c.dim) + " is not divisible into " +
                            std::to_string(c.num_heads) + " heads of even width");
  }
  if (c.cnn_kernels.empty() || c.cnn_kernels.size() > 64 ||
      static_cast<int64_t>(c.cnn_kernels.size()) * c.cnn_channels != c.dim) {
    return invalid_argument("cnn_kernels (" + std::to_string(c.cnn_kernels.size()) +
                            " widths) × cnn_channels (" + std::to_string(c.cnn_channels) +
                            ") must equal dim (" + std::to_string(c.dim) + ")");
  }
  for (int64_t k : c.cnn_kernels) MORPHEUS_RETURN_IF_ERROR(check_int("cnn_kernels[]", k, 1, 64));
  MORPHEUS_RETURN_IF_ERROR(check_real("threshold", c.threshold, 0.0, 1.0, true));
  MORPHEUS_RETURN_IF_ERROR(check_real("min_seg_mass", c.min_seg_mass, 0.0, 1e30, false));
  return check_real("layer_norm_eps", c.layer_norm_eps, 0.0, 1.0, true);
}

nlohmann::json config_to_json(const EngineConfig& c) {
  return {{"vocab_size", c.vocab_size},         {"dim", c.dim},
          {"char_embed_dim", c.char_embed_dim}, {"case_embed_dim", c.case_embed_dim},
          {"encoder_layers", c.encoder_layers}, {"detector_layers", c.detector_layers},
          {"num_heads", c.num_heads},           {"ffn_mult", c.ffn_mult},
          {"max_word_len", c.max_word_len},     {"max_segs", c.max_segs},
          {"cnn_kernels", c.cnn_kernels},       {"cnn_channels", c.cnn_channels},
          {"threshold", c.threshold},           {"min_seg_mass", c.min_seg_mass},
          {"layer_norm_eps", c.layer_norm_eps}};
}

StatusOr<EngineConfig> config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return invalid_argument(where + ": the config is not a JSON object");
  const std::set<std::string> known(std::begin(kConfigKeys), std::end(kConfigKeys));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (known.count(it.key()) == 0) {
      return invalid_argument(where + ": unknown config key '" + it.key() + "'");
    }
  }
  for (const std::string& key : known) {
    if (!j.contains(key)) return invalid_argument(where + ": config key '" + key + "' is missing");
  }
  EngineConfig c;
  try {
    c.vocab_size = j.at("vocab_size").get<int64_t>();
    c.dim = j.at("dim").get<int64_t>();
    c.char_embed_dim = j.at("char_embed_dim").get<int64_t>();
    c.case_embed_dim = j.at("case_embed_dim").get<int64_t>();
    c.encoder_layers = j.at("encoder_layers").get<int64_t>();
    c.detector_layers = j.at("detector_layers").get<int64_t>();
    c.num_heads = j.at("num_heads").get<int64_t>();
    c.ffn_mult = j.at("ffn_mult").get<int64_t>();
    c.max_word_len = j.at("max_word_len").get<int64_t>();
    c.max_segs = j.at("max_segs").get<int64_t>();
    c.cnn_kernels = j.at("cnn_kernels").get<std::vector<int64_t>>();
    c.cnn_channels = j.at("cnn_channels").get<int64_t>();
    c.threshold = j.at("threshold").get<double>();
    c.min_seg_mass = j.at("min_seg_mass").get<double>();
    c.layer_norm_eps = j.at("layer_norm_eps").get<double>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(where + ": bad config value: " + e.what());
  }
  Status status = validate_config(c);
  if (!status.ok()) return status.prepend(where);
  return c;
}

std::vector<TensorSpec> expected_tensors(const EngineConfig& c) {
  const int64_t d = c.dim, f = c.ffn_dim(), dh = c.head_dim();
  std::vector<TensorSpec> out;
  const std::string enc = "char_encoder.";
  out.push_back({enc + "char_embedding.weight", {c.vocab_size, c.char_embed_dim}});
  out.push_back({enc + "case_embedding.weight", {2, c.case_embed_dim}});
  out.push_back({enc + "embed_proj.weight", {d, c.char_embed_dim + c.case_embed_dim}});
  out.push_back({enc + "embed_proj.bias", {d}});
  for (size_t i = 0; i < c.cnn_kernels.size(); ++i) {
    const std::string conv = enc + "cnn.convs." + std::to_string(i) + ".0.";
    out.push_back({conv + "weight", {c.cnn_channels, d, c.cnn_kernels[i]}});
    out.push_back({conv + "bias", {c.cnn_channels}});
  }
  out.push_back({enc + "cnn.norm.weight", {d}});
  out.push_back({enc + "cnn.norm.bias", {d}});
  for (int64_t l = 0; l < c.encoder_layers; ++l) {
    add_attention(&out, enc + "attn_layers." + std::to_string(l) + ".", d, c.max_word_len, dh);
    add_ffn(&out, enc + "ffns." + std::to_string(l) + ".", d, f);
  }
  out.push_back({enc + "final_norm.weight", {d}});
  out.push_back({enc + "final_norm.bias", {d}});
  const std::string det = "boundary_detector.";
  for (int64_t l = 0; l < c.detector_layers; ++l) {
    const std::string layer = det + "layers." + std::to_string(l) + ".";
    add_attention(&out, layer, d, 2 * c.max_word_len, dh);
    out.push_back({layer + "boundary_scorer.0.weight", {d, 2 * d}});
    out.push_back({layer + "boundary_scorer.0.bias", {d}});
    out.push_back({layer + "boundary_scorer.2.weight", {1, d}});
    out.push_back({layer + "boundary_scorer.2.bias", {1}});
    add_ffn(&out, det + "ffns." + std::to_string(l) + ".", d, f);
  }
  const std::string pool = "segment_encoder.";
  out.push_back({pool + "char_scorer.weight", {1, d}});
  out.push_back({pool + "fusion_ffn.0.weight", {f, d}});
  out.push_back({pool + "fusion_ffn.0.bias", {f}});
  out.push_back({pool + "fusion_ffn.3.weight", {d, f}});
  out.push_back({pool + "fusion_ffn.3.bias", {d}});
  out.push_back({pool + "norm.weight", {d}});
  out.push_back({pool + "norm.bias", {d}});
  return out;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i > 0 ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace morpheus::engine
