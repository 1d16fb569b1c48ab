// SPDX-License-Identifier: MIT
// The reference paper's published figures (its results section), printed by the report in
// its "paper §5.x" columns. They are data, kept in eval/published_figures.json:
//   {"about": "...", "tables": {"<table id>": {"<published system name>": <number>, ...}, ...}}
#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/status.h"

namespace morpheus::eval {

class PublishedFigures {
 public:
  PublishedFigures() = default;  // no figures: every lookup is nullopt

  // Reads the file; a missing file is NOT_FOUND, bad JSON or a non-numeric value INVALID_ARGUMENT
  // (both name the file).
  static StatusOr<PublishedFigures> load(const std::string& path);

  // The figure of `system` (its SystemSpec::published name) in table `table`, if published.
  std::optional<double> value(const std::string& table, const std::string& system) const;

  size_t table_count() const { return tables_.size(); }

 private:
  std::map<std::string, std::map<std::string, double>> tables_;
};

}  // namespace morpheus::eval
