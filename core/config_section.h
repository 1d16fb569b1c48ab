// SPDX-License-Identifier: MIT
// Config sections: every struct that a config file configures is read by the one function
// section_from_json<T>. A section is a struct T with
//   static constexpr const char* kSection   its key in a config object ("model", "train", ...);
//                                           "" when the section is the whole object
//                                           (configs/eval.json)
//   to_json / from_json                     its fields, each named once
//                                           (MORPHEUS_CONFIG_FIELDS below, in its .cc)
//   Status validate() const                 ranges and relations of the values
// and, where the fields alone cannot say what a valid section is,
//   static Status check_json(nlohmann::json& section)
//                                           checks (and rewrites) of the merged JSON before it
//                                           is read into T (eval: the systems and placeholders)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/json_config.h"
#include "core/status.h"

namespace morpheus {

namespace config_section_internal {

template <typename T>
constexpr bool is_whole_object() {
  return T::kSection[0] == '\0';
}

// `value` at T's place in a config object: {kSection: value}, or `value` itself.
template <typename T>
nlohmann::json at_section(nlohmann::json value) {
  if constexpr (is_whole_object<T>()) {
    return value;
  } else {
    return nlohmann::json{{T::kSection, std::move(value)}};
  }
}

// What `config` says about T, placed like at_section: nothing when it has no T section, the
// value as it is when `config` is no object (merge_config reports it).
template <typename T>
nlohmann::json patch_for(const nlohmann::json& config) {
  if constexpr (is_whole_object<T>()) {
    return config;
  } else {
    if (!config.is_object()) return config;
    if (!config.contains(T::kSection)) return nlohmann::json::object();
    return at_section<T>(config.at(T::kSection));
  }
}

template <typename T, typename = void>
struct HasCheckJson : std::false_type {};
template <typename T>
struct HasCheckJson<T, std::void_t<decltype(T::check_json(std::declval<nlohmann::json&>()))>>
    : std::true_type {};

// T's checks of its merged JSON, OK for a section without them.
template <typename T>
Status check_json(nlohmann::json& section) {
  if constexpr (HasCheckJson<T>::value) {
    return T::check_json(section);
  } else {
    (void)section;
    return ok_status();
  }
}

}  // namespace config_section_internal

// {kSection: T{}} of every section, merged into one object: the defaults a config file is
// resolved against (core/json_config.h).
template <typename... Sections>
nlohmann::json section_defaults() {
  nlohmann::json defaults = nlohmann::json::object();
  (defaults.update(config_section_internal::at_section<Sections>(Sections{})), ...);
  return defaults;
}

// Reads section T of `config` (config[T::kSection], or the whole object): the defaults of T{}
// with the section merged over them key by key (merge_config: an unknown key or a changed type
// is INVALID_ARGUMENT naming the key path, the known keys in the hint; a config without the
// section is the defaults), T::check_json when T has it, the JSON read into T, then
// T::validate(). `where` names the source ("configs/tiny.json") in front of every message.
template <typename T>
StatusOr<T> section_from_json(const nlohmann::json& config, const std::string& where) {
  namespace internal = config_section_internal;
  nlohmann::json merged = internal::at_section<T>(T{});
  MORPHEUS_RETURN_IF_ERROR(merge_config(merged, internal::patch_for<T>(config), where));
  nlohmann::json& section = internal::is_whole_object<T>() ? merged : merged.at(T::kSection);
  Status checked = internal::check_json<T>(section);
  if (!checked.ok()) return checked.prepend(where);
  T value;
  try {
    value = section.get<T>();
  } catch (const nlohmann::json::exception& e) {
    const std::string name = internal::is_whole_object<T>() ? "" : std::string(": ") + T::kSection;
    return invalid_argument(where + name + ": " + e.what(),
                            "every key keeps the type of its default");
  }
  Status valid = value.validate();
  if (!valid.ok()) return valid.prepend(where);
  return value;
}

// The config of a program whose files hold section T alone (configs/lm_*.json): T's defaults ←
// each file ← each --set (resolve_config), then section_from_json.
template <typename T>
StatusOr<T> load_section(const std::vector<std::string>& files,
                         const std::vector<std::string>& sets) {
  MORPHEUS_ASSIGN_OR_RETURN(const nlohmann::json resolved,
                            resolve_config(section_defaults<T>(), files, sets));
  return section_from_json<T>(resolved, "config");
}

}  // namespace morpheus

// Defines to_json and from_json of a config struct (a section or a struct inside one) from its
// field list, in the struct's .cc (its header declares both): every field under its own name, a
// missing key keeps the value of Type{}. The functions of nlohmann's
// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT, defined once instead of inline, so every
// translation unit that reads the struct links to them.
#define MORPHEUS_CONFIG_FIELDS(Type, ...)                                                   \
  void to_json(nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {              \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                \
  }                                                                                         \
  void from_json(const nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {            \
    const Type nlohmann_json_default_obj;                                                   \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__)) \
  }
