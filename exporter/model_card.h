// SPDX-License-Identifier: MIT
// The provenance of an exported tokenizer directory (the "provenance" object of its config:
// what wrote it, from which inputs, with which options) and its model card README.md, generated
// from that config. Torch-free: `morpheus export` (exporter/torch/export.h) calls both.
//   provenance   {"tool":"morpheus","version","git_describe",
//                 "inputs":{role:{"path","checksum"}} (words, text, eval report),
//                 "train":{"config":<checkpoint config.json>,"meta":<checkpoint meta.json>},
//                 "export":{the export options, the special tokens and user symbols among them}}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus::exporter {

struct ProvenanceInputs {
  std::string checkpoint;  // the checkpoint directory: its config.json and meta.json
  // (role, path) of every input file export read, e.g. ("words", words.tsv), ("text",
  // corpus.txt), ("eval_report", REPORT.md); an empty path is left out.
  std::vector<std::pair<std::string, std::string>> inputs;
  nlohmann::json export_options;  // as given to export
};

// The provenance object; errors name an unreadable input or a checkpoint file that is not JSON
// (a missing meta.json or config.json is recorded as null).
StatusOr<nlohmann::json> export_provenance(const ProvenanceInputs& inputs);

// README.md of a tokenizer directory with config `config` (morpheus.json with its provenance):
// what it is, how it was trained, its vocabulary, the evaluation report `eval_report`
// (Markdown; its headings go one level down; "" says none was given), the licence and how to
// load it. It depends on nothing else (not the directory's name), so an export is reproducible.
std::string model_card(const nlohmann::json& config, const std::string& eval_report);

}  // namespace morpheus::exporter
