// SPDX-License-Identifier: MIT
// The weight file's config (the model's architecture) and the tensor list of a model.
#include "engine/config.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace morpheus::engine {
namespace {

// The keys of a weight file written before the engine shared the model's schema, and the
// architecture key each stands for.
const std::pair<const char*, const char*> kLegacyKeys[] = {
    {"vocab_size", "char_vocab_size"},
    {"dim", "char_dim"},
    {"encoder_layers", "n_layers_encoder"},
    {"detector_layers", "n_layers_detector"}};

// `j` with the legacy keys renamed and the legacy layer_norm_eps checked and dropped.
StatusOr<nlohmann::json> with_model_keys(nlohmann::json j, const std::string& where) {
  if (!j.contains("vocab_size")) return j;  // written with the model's keys
  for (const auto& [legacy, key] : kLegacyKeys) {
    if (!j.contains(legacy)) continue;
    j[key] = j[legacy];
    j.erase(legacy);
  }
  if (j.contains("layer_norm_eps")) {
    const nlohmann::json eps = j["layer_norm_eps"];
    if (!eps.is_number() || eps.get<double>() != model::ModelConfig::kLayerNormEps) {
      return invalid_argument(where + ": layer_norm_eps = " + eps.dump() + ", expected " +
                              std::to_string(model::ModelConfig::kLayerNormEps));
    }
    j.erase("layer_norm_eps");
  }
  return j;
}

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

nlohmann::json config_to_json(const model::ModelConfig& config) {
  const nlohmann::json all = config;
  nlohmann::json out = nlohmann::json::object();
  for (const char* key : model::kArchitectureKeys) out[key] = all.at(key);
  return out;
}

StatusOr<model::ModelConfig> config_from_json(const nlohmann::json& given,
                                              const std::string& where) {
  if (!given.is_object()) return invalid_argument(where + ": the config is not a JSON object");
  StatusOr<nlohmann::json> j = with_model_keys(given, where);
  if (!j.ok()) return j.status();
  const std::set<std::string> known(std::begin(model::kArchitectureKeys),
                                    std::end(model::kArchitectureKeys));
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (known.count(it.key()) == 0) {
      return invalid_argument(where + ": unknown config key '" + it.key() + "'");
    }
  }
  for (const std::string& key : known) {
    if (!j->contains(key)) return invalid_argument(where + ": config key '" + key + "' is missing");
  }
  model::ModelConfig c;
  try {
    from_json(*j, c);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(where + ": bad config value: " + e.what());
  }
  Status status = c.validate_architecture();
  if (!status.ok()) return status.prepend(where);
  return c;
}

std::vector<TensorSpec> expected_tensors(const model::ModelConfig& c) {
  const int64_t d = c.char_dim, f = c.ffn_dim(), dh = c.head_dim();
  std::vector<TensorSpec> out;
  const std::string enc = "char_encoder.";
  out.push_back({enc + "char_embedding.weight", {c.char_vocab_size, c.char_embed_dim}});
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
  for (int64_t l = 0; l < c.n_layers_encoder; ++l) {
    add_attention(&out, enc + "attn_layers." + std::to_string(l) + ".", d, c.max_word_len, dh);
    add_ffn(&out, enc + "ffns." + std::to_string(l) + ".", d, f);
  }
  out.push_back({enc + "final_norm.weight", {d}});
  out.push_back({enc + "final_norm.bias", {d}});
  const std::string det = "boundary_detector.";
  for (int64_t l = 0; l < c.n_layers_detector; ++l) {
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
