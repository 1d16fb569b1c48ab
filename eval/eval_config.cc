// SPDX-License-Identifier: MIT
// EvalConfig (de)serialization, validation and the {shared_data} substitution.
#include "eval/eval_config.h"

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/json_config.h"

namespace morpheus::eval {

namespace {
using json = nlohmann::json;
}  // namespace

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SystemSpec, name, setup, setup_creates, segment,
                                                encode, decode, embed, segmentations, embeddings,
                                                published, builtin, table_words, supervision)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(GoldPaths, mc2010, ud_stem_boundary, morphscore_v1,
                                                ud_types, penn, sigmorphon, ud_dir, hybrid_lexicon,
                                                sentences)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SpeedOptions, warm_runs, max_chars)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EmbeddingOptions, min_family_forms, max_words,
                                                max_pairs, probe_folds, probe_max_items,
                                                probe_min_class, probe_iterations, pca_families,
                                                pca_max_forms, seed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EvalConfig, shared_data, gold, training_text, split,
                                                tuning, speed, embeddings, published_figures,
                                                systems)

json eval_config_defaults() { return EvalConfig{}; }

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

namespace {

// "{shared_data}" in `text` replaced by `value`.
std::string replace_shared_data(std::string text, const std::string& value) {
  static const std::string kKey = "{shared_data}";
  for (size_t pos = text.find(kKey); pos != std::string::npos; pos = text.find(kKey, pos)) {
    text.replace(pos, kKey.size(), value);
    pos += value.size();
  }
  return text;
}

// Replaces "{shared_data}" ($MORPHEUS_SHARED_DATA when set, else c->shared_data) everywhere.
void expand_shared_data(EvalConfig* c) {
  const char* env = std::getenv("MORPHEUS_SHARED_DATA");
  const std::string shared = env != nullptr && *env != '\0' ? env : c->shared_data;
  GoldPaths& g = c->gold;
  for (std::string* path : {&g.mc2010, &g.ud_stem_boundary, &g.morphscore_v1, &g.ud_types, &g.penn,
                            &g.sigmorphon, &g.ud_dir, &g.hybrid_lexicon, &g.sentences}) {
    *path = replace_shared_data(*path, shared);
  }
  for (SystemSpec& s : c->systems) {
    for (std::string* command : {&s.setup, &s.segment, &s.encode, &s.decode, &s.embed}) {
      *command = replace_shared_data(*command, shell_quote(shared));
    }
    for (std::string* path : {&s.setup_creates, &s.segmentations, &s.embeddings, &s.table_words}) {
      *path = replace_shared_data(*path, shared);
    }
  }
}

}  // namespace

StatusOr<SystemSpec> parse_system(const json& j, size_t index) {
  const std::string where = "eval config: systems[" + std::to_string(index) + "]";
  if (!j.is_object()) return invalid_argument(where + " must be an object");
  const json known = SystemSpec{};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!known.contains(it.key())) {
      std::string keys;
      for (auto k = known.begin(); k != known.end(); ++k) {
        keys += (keys.empty() ? "" : ", ") + k.key();
      }
      return invalid_argument(where + ": unknown key '" + it.key() + "'", "known keys: " + keys);
    }
    if (!it.value().is_string()) {
      return invalid_argument(where + "." + it.key() + " must be a string");
    }
  }
  const SystemSpec s = j.get<SystemSpec>();
  if (s.name.empty()) return invalid_argument(where + ": 'name' is required");
  if (s.name.find_first_of("/ \t") != std::string::npos) {
    return invalid_argument(where + ": name '" + s.name + "' must not hold '/' or whitespace");
  }
  if (!s.builtin.empty() && s.builtin != "whole-word" && s.builtin != "characters") {
    return invalid_argument(where + " (" + s.name + "): unknown builtin '" + s.builtin + "'",
                            "builtin segmenters: whole-word, characters");
  }
  if (s.encode.empty() != s.decode.empty()) {
    return invalid_argument(where + " (" + s.name + "): 'encode' and 'decode' go together");
  }
  return s;
}

Status EvalConfig::validate() const {
  MORPHEUS_RETURN_IF_ERROR(parse_gold_part(split).status());
  if (embeddings.probe_folds < 2) {
    return invalid_argument("eval config: embeddings.probe_folds must be ≥ 2");
  }
  if (embeddings.min_family_forms < 2) {
    return invalid_argument("eval config: embeddings.min_family_forms must be ≥ 2");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < systems.size(); ++i) {
    if (!names.insert(systems[i].name).second) {
      return invalid_argument("eval config: systems[" + std::to_string(i) + "]: duplicate name '" +
                              systems[i].name + "'");
    }
  }
  return ok_status();
}

GoldPart EvalConfig::part() const {
  const StatusOr<GoldPart> p = parse_gold_part(split);
  return p.ok() ? *p : GoldPart::kReport;
}

StatusOr<EvalConfig> eval_config_from_json(const json& j) {
  json merged = eval_config_defaults();
  MORPHEUS_RETURN_IF_ERROR(merge_config(merged, j, "eval config"));
  const json& systems = merged.at("systems");
  if (!systems.is_array()) return invalid_argument("eval config: 'systems' must be an array");
  for (size_t i = 0; i < systems.size(); ++i) {
    MORPHEUS_RETURN_IF_ERROR(parse_system(systems[i], i).status());
  }
  EvalConfig c;
  try {
    c = merged.get<EvalConfig>();
  } catch (const json::exception& ex) {
    return invalid_argument(std::string("eval config: ") + ex.what(),
                            "compare with configs/eval.json");
  }
  MORPHEUS_RETURN_IF_ERROR(c.validate());
  expand_shared_data(&c);
  return c;
}

}  // namespace morpheus::eval
