// SPDX-License-Identifier: MIT
#include "core/json_config.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus {
namespace {

using nlohmann::json;

const char* type_name(const json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number()) return "number";
  return j.type_name();
}

// Whether `value` may replace `current`.
bool compatible(const json& current, const json& value) {
  if (current.is_null()) return true;  // a nullable default accepts anything
  if (current.is_number_integer()) return value.is_number_integer();
  if (current.is_number()) return value.is_number();
  if (current.is_string()) return value.is_string() || value.is_null();
  return current.type() == value.type();
}

// dump() that cannot throw on invalid UTF-8 inside strings.
std::string safe_dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string join_path(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

Status merge_at(json& base, const json& patch, const std::string& prefix,
                const std::string& where) {
  if (!patch.is_object()) {
    return invalid_argument(where + ": " + (prefix.empty() ? "the config" : prefix) +
                            " must be a JSON object, got " + type_name(patch));
  }
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string key_path = join_path(prefix, it.key());
    auto found = base.find(it.key());
    if (found == base.end()) {
      std::string known;
      for (auto k = base.begin(); k != base.end(); ++k)
        known += (known.empty() ? "" : ", ") + k.key();
      return invalid_argument(where + ": unknown config key '" + key_path + "'",
                              "known keys here: " + known);
    }
    if (found->is_object() && !found->empty()) {
      MORPHEUS_RETURN_IF_ERROR(merge_at(*found, it.value(), key_path, where));
      continue;
    }
    if (!compatible(*found, it.value())) {
      return invalid_argument(where + ": config key '" + key_path + "' must be " +
                              type_name(*found) + ", got " + type_name(it.value()) + " (" +
                              safe_dump(it.value()) + ")");
    }
    *found = it.value();
  }
  return ok_status();
}

}  // namespace

StatusOr<json> parse_json(std::string_view text, const std::string& source) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return invalid_argument(source + ": not valid JSON: " + e.what());
  }
}

StatusOr<json> load_json_file(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse_json(text, path);
}

Status merge_config(json& base, const json& patch, const std::string& where) {
  return merge_at(base, patch, "", where);
}

Status apply_set(json& base, std::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return invalid_argument("--set " + std::string(assignment) + ": expected key=value",
                            "e.g. --set train.steps=100");
  }
  if (!utf8::is_valid(assignment)) {
    Status bad = utf8::validate(assignment);
    return bad.prepend("--set");
  }
  const std::string key(assignment.substr(0, eq));
  const std::string raw(assignment.substr(eq + 1));
  json value;
  try {
    value = json::parse(raw);
  } catch (const json::exception&) {
    value = raw;  // not JSON: take it as a string
  }
  // Split "a.b.c", then build {"a": {"b": {"c": value}}} and merge it, so the same checks apply.
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t dot = key.find('.', begin);
    parts.push_back(key.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    if (parts.back().empty()) return invalid_argument("--set " + key + ": empty key component");
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  json patch = value;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) patch = json{{*it, patch}};
  return merge_config(base, patch, "--set " + key);
}

StatusOr<json> resolve_config(const json& defaults, const std::vector<std::string>& files,
                              const std::vector<std::string>& sets) {
  json config = defaults;
  for (const std::string& file : files) {
    MORPHEUS_ASSIGN_OR_RETURN(json patch, load_json_file(file));
    MORPHEUS_RETURN_IF_ERROR(merge_config(config, patch, file));
  }
  for (const std::string& set : sets) MORPHEUS_RETURN_IF_ERROR(apply_set(config, set));
  return config;
}

}  // namespace morpheus
