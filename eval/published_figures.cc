// SPDX-License-Identifier: MIT
#include "eval/published_figures.h"

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/json_config.h"

namespace morpheus::eval {

StatusOr<PublishedFigures> PublishedFigures::load(const std::string& path) {
  if (!file_exists(path)) {
    return not_found("published figures: " + path + " not found",
                     "run from the repo root, or set \"published_figures\" in the eval config "
                     "(an empty path leaves the paper columns n/a)");
  }
  MORPHEUS_ASSIGN_OR_RETURN(const nlohmann::json j, load_json_file(path));
  const std::string hint = "expected {\"tables\": {\"<table id>\": {\"<system>\": number}}}";
  if (!j.is_object() || !j.contains("tables") || !j.at("tables").is_object()) {
    return invalid_argument(path + ": no \"tables\" object", hint);
  }
  PublishedFigures figures;
  for (const auto& [table, systems] : j.at("tables").items()) {
    if (!systems.is_object()) {
      return invalid_argument(path + ": tables." + table + " must be an object", hint);
    }
    for (const auto& [system, value] : systems.items()) {
      if (!value.is_number()) {
        return invalid_argument(
            path + ": tables." + table + "." + system + " must be a number, got " + value.dump(),
            hint);
      }
      figures.tables_[table][system] = value.get<double>();
    }
  }
  return figures;
}

std::optional<double> PublishedFigures::value(const std::string& table,
                                              const std::string& system) const {
  auto t = tables_.find(table);
  if (t == tables_.end() || system.empty()) return std::nullopt;
  auto v = t->second.find(system);
  return v == t->second.end() ? std::nullopt : std::optional<double>(v->second);
}

}  // namespace morpheus::eval
