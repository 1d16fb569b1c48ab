// SPDX-License-Identifier: MIT
// EmbeddingLayout: parts, the "embedding" entry of morpheus.json, finishing and slicing rows.
#include "engine/embedding_layout.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace morpheus::engine {

using nlohmann::json;

StatusOr<EmbeddingPooling> parse_embedding_pooling(const std::string& name) {
  if (name == "mean") return EmbeddingPooling::kMean;
  if (name == "root-inflection") return EmbeddingPooling::kRootInflection;
  return invalid_argument("unknown embedding pooling \"" + name + "\"",
                          "choose mean or root-inflection");
}

const char* embedding_pooling_name(EmbeddingPooling pooling) {
  return pooling == EmbeddingPooling::kMean ? "mean" : "root-inflection";
}

EmbeddingLayout::EmbeddingLayout(EmbeddingPooling pooling, size_t model_dim,
                                 double inflection_weight)
    : pooling_(pooling), model_dim_(model_dim), inflection_weight_(inflection_weight) {
  if (pooling_ == EmbeddingPooling::kMean) {
    parts_ = {{"full", 0, model_dim_}};
  } else {
    parts_ = {{"root", 0, model_dim_}, {"inflection", model_dim_, 2 * model_dim_}};
  }
}

StatusOr<EmbeddingLayout> EmbeddingLayout::from_config(const json& config, size_t model_dim) {
  if (!config.contains("embedding")) return EmbeddingLayout(EmbeddingPooling::kMean, model_dim);
  const json& e = config["embedding"];
  StatusOr<EmbeddingPooling> pooling =
      e.is_object() && e.value("pooling", json()).is_string()
          ? parse_embedding_pooling(e["pooling"].get<std::string>())
          : StatusOr<EmbeddingPooling>(invalid_argument("no pooling"));
  const double weight = e.is_object() ? e.value("inflection_weight", -1.0) : -1.0;
  if (!pooling.ok() || !(weight > 0)) {
    return data_loss("morpheus.json: the \"embedding\" entry " + e.dump() + " is not valid",
                     "re-run morpheus export");
  }
  EmbeddingLayout layout(*pooling, model_dim, weight);
  if (e != layout.to_json()) {
    return data_loss("morpheus.json: the \"embedding\" entry " + e.dump() +
                         " does not match the model (" + layout.to_json().dump() + ")",
                     "re-run morpheus export");
  }
  return layout;
}

StatusOr<EmbeddingLayout> EmbeddingLayout::from_config_for_width(const json& config,
                                                                 size_t full_dim) {
  const bool parts = config.contains("embedding") && config["embedding"].is_object() &&
                     config["embedding"].value("pooling", "") == "root-inflection";
  const size_t blocks = parts ? 3 : 1;
  if (full_dim == 0 || full_dim % blocks != 0) {
    return data_loss(std::to_string(full_dim) + "-dimensional vectors are not this directory's",
                     "embed them with morpheus embed --model of this directory, --part full");
  }
  return from_config(config, full_dim / blocks);
}

json EmbeddingLayout::to_json() const {
  json parts = json::array();
  for (const EmbeddingPart& p : parts_) parts.push_back({{"name", p.name}, {"dim", p.dim}});
  return json{{"pooling", embedding_pooling_name(pooling_)},
              {"inflection_weight", inflection_weight_},
              {"dim", dim()},
              {"parts", parts}};
}

size_t EmbeddingLayout::dim() const { return parts_.back().offset + parts_.back().dim; }

StatusOr<EmbeddingPart> EmbeddingLayout::part(const std::string& name) const {
  if (name == "full") return EmbeddingPart{"full", 0, dim()};
  for (const EmbeddingPart& p : parts_) {
    if (p.name == name) return p;
  }
  return invalid_argument("no embedding part \"" + name + "\"",
                          "this directory's parts: " + part_names());
}

std::string EmbeddingLayout::part_names() const {
  std::string names = "full";
  for (const EmbeddingPart& p : parts_) {
    if (p.name != "full") names += ", " + p.name;
  }
  return names;
}

void EmbeddingLayout::finish(float* rows, size_t n) const {
  if (pooling_ == EmbeddingPooling::kMean) return;
  const size_t d = model_dim_, blocks = dim() / d;
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < blocks; ++b) {
      float* x = rows + (i * blocks + b) * d;
      double norm = 0;
      for (size_t e = 0; e < d; ++e) norm += static_cast<double>(x[e]) * x[e];
      norm = std::sqrt(norm);
      if (!(norm > 0)) continue;
      const double scale = (b == 0 ? 1.0 : inflection_weight_) / norm;
      for (size_t e = 0; e < d; ++e) x[e] = static_cast<float>(x[e] * scale);
    }
  }
}

std::vector<float> take_part(const std::vector<float>& rows, size_t n, size_t dim,
                             const EmbeddingPart& part) {
  std::vector<float> out(n * part.dim);
  for (size_t i = 0; i < n; ++i) {
    std::copy_n(&rows[i * dim + part.offset], part.dim, &out[i * part.dim]);
  }
  return out;
}

}  // namespace morpheus::engine
