// SPDX-License-Identifier: MIT
// EvalConfig (de)serialization, validation and the {shared_data} / {run_dir} substitution.
#include "eval/eval_config.h"

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "core/config_section.h"

namespace morpheus::eval {

namespace {
using json = nlohmann::json;
}  // namespace

MORPHEUS_CONFIG_FIELDS(SystemSpec, name, artifact, segment, encode, decode, embed, segmentations,
                       embeddings, published, builtin, table_words, supervision)
MORPHEUS_CONFIG_FIELDS(GoldPaths, mc2010, ud_stem_boundary, morphscore_v1, ud_types, penn,
                       sigmorphon, ud_dir, hybrid_lexicon, sentences)
MORPHEUS_CONFIG_FIELDS(SpeedOptions, warm_runs, max_chars)
MORPHEUS_CONFIG_FIELDS(EmbeddingOptions, min_family_forms, max_words, max_pairs, probe_folds,
                       probe_max_items, probe_min_class, probe_iterations, pca_families,
                       pca_max_forms, lemma_max_queries, seed)
MORPHEUS_CONFIG_FIELDS(EvalConfig, shared_data, run_dir, gold, training_text, split, speed,
                       embeddings, published_figures, systems)

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

constexpr std::string_view kSharedData = "{shared_data}";
constexpr std::string_view kRunDir = "{run_dir}";

// Every `key` in `text` replaced by `value`.
std::string replace_all(std::string text, std::string_view key, const std::string& value) {
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos)) {
    text.replace(pos, key.size(), value);
    pos += value.size();
  }
  return text;
}

// The placeholders of one string value at `where`; shell-quoted values in commands.
Status expand_value(json& value, const std::string& where, bool command, const std::string& shared,
                    const std::string& run_dir) {
  if (!value.is_string()) return ok_status();  // null: reported as a type error later
  std::string text = value.get<std::string>();
  if (run_dir.empty() && text.find(kRunDir) != std::string::npos) {
    return invalid_argument(where + " uses {run_dir} but no run directory is set",
                            "pass --run-dir DIR (the directory scripts/main.sh writes: runs/main) "
                            "or --set run_dir=DIR");
  }
  text = replace_all(std::move(text), kSharedData, command ? shell_quote(shared) : shared);
  value = replace_all(std::move(text), kRunDir, command ? shell_quote(run_dir) : run_dir);
  return ok_status();
}

// Replaces "{shared_data}" ($MORPHEUS_SHARED_DATA when set, else "shared_data") and "{run_dir}"
// in every gold path, the training text and every string of every system (parse_system checked
// that they are strings).
Status expand_placeholders(json& config) {
  const auto string_of = [&config](const char* key) {
    const json& v = config.at(key);
    return v.is_string() ? v.get<std::string>() : std::string();
  };
  const char* env = std::getenv("MORPHEUS_SHARED_DATA");
  const std::string shared = env != nullptr && *env != '\0' ? env : string_of("shared_data");
  const std::string run_dir = string_of("run_dir");
  static const std::set<std::string> kCommands = {"segment", "encode", "decode", "embed"};
  for (auto& [key, value] : config.at("gold").items()) {
    MORPHEUS_RETURN_IF_ERROR(expand_value(value, "gold." + key, false, shared, run_dir));
  }
  MORPHEUS_RETURN_IF_ERROR(
      expand_value(config.at("training_text"), "training_text", false, shared, run_dir));
  json& systems = config.at("systems");
  for (size_t i = 0; i < systems.size(); ++i) {
    for (auto& [key, value] : systems[i].items()) {
      const std::string where = "systems[" + std::to_string(i) + "]." + key;
      MORPHEUS_RETURN_IF_ERROR(
          expand_value(value, where, kCommands.count(key) > 0, shared, run_dir));
    }
  }
  return ok_status();
}

}  // namespace

StatusOr<SystemSpec> parse_system(const json& j, size_t index) {
  const std::string where = "systems[" + std::to_string(index) + "]";
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
    return invalid_argument("embeddings.probe_folds must be ≥ 2");
  }
  if (embeddings.min_family_forms < 2) {
    return invalid_argument("embeddings.min_family_forms must be ≥ 2");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < systems.size(); ++i) {
    if (!names.insert(systems[i].name).second) {
      return invalid_argument("systems[" + std::to_string(i) + "]: duplicate name '" +
                              systems[i].name + "'");
    }
  }
  return ok_status();
}

GoldPart EvalConfig::part() const {
  const StatusOr<GoldPart> p = parse_gold_part(split);
  return p.ok() ? *p : GoldPart::kReport;
}

Status EvalConfig::check_json(json& config) {
  const json& systems = config.at("systems");
  if (!systems.is_array()) return invalid_argument("'systems' must be an array");
  for (size_t i = 0; i < systems.size(); ++i) {
    MORPHEUS_RETURN_IF_ERROR(parse_system(systems[i], i).status());
  }
  return expand_placeholders(config);
}

}  // namespace morpheus::eval
