// SPDX-License-Identifier: MIT
#include "exporter/model_card.h"

#include <algorithm>
#include <sstream>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/version.h"

namespace morpheus::exporter {
namespace {

using nlohmann::json;

// A checkpoint file as JSON, or null when it is absent.
StatusOr<json> optional_json(const std::string& path) {
  if (!file_exists(path)) return json();
  return load_json_file(path);
}

// `value` at `key` of `j` as text ("?" when absent).
std::string field(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "?";
  const json& v = j.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// ", N <key with spaces> (`a` `b`)" for a non-empty array at `key` of `config`, else "".
std::string listed(const json& config, const char* key) {
  const json& list = config.value(key, json::array());
  if (!list.is_array() || list.empty()) return "";
  std::string name = key;
  std::replace(name.begin(), name.end(), '_', ' ');
  std::string out = ", " + std::to_string(list.size()) + " " + name + " (";
  for (size_t i = 0; i < list.size(); ++i) {
    out += (i > 0 ? " `" : "`") + list[i].get<std::string>() + "`";
  }
  return out + ")";
}

// Markdown `text` with every heading one level deeper.
std::string demote_headings(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#') line.insert(0, "#");
    out += line + "\n";
  }
  return out;
}

// `key` of `j` when `j` is an object and holds an object there, else an empty object.
json object_at(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_object()) return json::object();
  return j.at(key);
}

void card_training(const json& provenance, std::string* out) {
  *out += "## How it was trained\n\n";
  const json inputs = object_at(provenance, "inputs");
  for (const auto& [role, file] : inputs.items()) {
    *out += "- " + role + ": `" + field(file, "path") + "` (" + field(file, "checksum") + ")\n";
  }
  const json options = object_at(provenance, "export");
  if (options.contains("checkpoint")) {
    const json train = object_at(provenance, "train");
    const json meta = object_at(train, "meta");
    *out += "- checkpoint: `" + field(options, "checkpoint") + "` (" + field(meta, "kind") +
            ", model.pt " + field(meta, "model_pt_fnv1a64") + ")\n";
    *out +=
        "\nThe checkpoint's training configuration (`provenance.train.config` of the config "
        "file holds it whole):\n\n```json\n" +
        train.value("config", json()).dump(2) + "\n```\n";
  }
  *out += "\nExport options:\n\n```json\n" + options.dump(2) + "\n```\n\n";
}

}  // namespace

StatusOr<json> export_provenance(const ProvenanceInputs& inputs) {
  json files = json::object();
  for (const auto& [role, path] : inputs.inputs) {
    if (path.empty()) continue;
    MORPHEUS_ASSIGN_OR_RETURN(std::string sum, file_checksum(path));
    files[role] = json{{"path", path}, {"checksum", sum}};
  }
  MORPHEUS_ASSIGN_OR_RETURN(json config,
                            optional_json(path_join(inputs.checkpoint, "config.json")));
  MORPHEUS_ASSIGN_OR_RETURN(json meta, optional_json(path_join(inputs.checkpoint, "meta.json")));
  return json{{"tool", "morpheus"},
              {"version", std::string(version())},
              {"git_describe", std::string(git_describe())},
              {"inputs", std::move(files)},
              {"train", json{{"config", std::move(config)}, {"meta", std::move(meta)}}},
              {"export", inputs.export_options}};
}

namespace {

// The id stream's layout (format 4's "stream"; older directories: every space an id).
std::string stream_line(const json& stream) {
  if (!stream.value("word_initial", false) && !stream.value("merge_pieces", false)) {
    return "- id stream: every space is an id of its own\n";
  }
  std::string line = "- id stream: ";
  if (stream.value("word_initial", false)) {
    line += "a single space before a word travels inside the word's first id (" +
            field(stream, "word_initial_pieces") +
            " word-initial pieces); a word at the start of a line gets the same ids";
  } else {
    line += "every space is an id of its own";
  }
  if (stream.value("merge_pieces", false)) {
    line += "; " + field(stream, "merged_pieces") +
            " pieces join whole morphemes of a word (never cutting inside one)";
  }
  return line + "\n";
}

// The word vectors' parts (morpheus.json "embedding"; older directories: one mean vector).
std::string embedding_line(const json& config) {
  const json embedding = object_at(config, "embedding");
  if (embedding.value("pooling", "") != "root-inflection") {
    return "- word vectors (`morpheus embed`): one part, full = the mean of the word's segments "
           "through the pooling's fusion\n";
  }
  std::string parts;
  for (const json& p : embedding.value("parts", json::array())) {
    parts += (parts.empty() ? "" : ", ") + field(p, "name") + " [" + field(p, "dim") + "]";
  }
  return "- word vectors (`morpheus embed --part full|root|inflection`): full [" +
         field(embedding, "dim") + "] = " + parts +
         " in this order; root = the root segment, inflection = the mean encoder states of the "
         "suffixes' letters and of the last suffix's, each block of length " +
         field(embedding, "inflection_weight") + " against the unit root block\n";
}

}  // namespace

std::string model_card(const json& config, const std::string& eval_report) {
  const json provenance = object_at(config, "provenance");
  const std::string commit = field(provenance, "git_describe");
  const std::string segmenter =
      config.value("segmenter", json::object()).value("name", "morpheus-model");
  const bool neural = segmenter == "morpheus-model";
  std::string out =
      std::string(neural ? "# Morpheus tokenizer, " : "# Plain " + segmenter + " tokenizer, ") +
      field(config, "vocab_size") + " ids\n\n";
  out += std::string(neural ? "A Morpheus tokenizer for Turkish: a neural boundary model segments "
                              "each word into morpheme-like pieces"
                            : "A tokenizer in the Morpheus format whose letter runs are cut by "
                              "plain " +
                                  segmenter + " instead of the neural model") +
         ", and ids are pieces, 256 byte tokens and case tokens, so every UTF-8 text encodes and "
         "decodes back exactly. Written by `morpheus " +
         (neural ? "export" : "export-plain") + "` " + field(provenance, "version") + " (commit " +
         (commit.empty() ? "unknown" : commit) + ").\n\n";
  out += "## Vocabulary\n\n- " + field(config, "vocab_size") +
         " ids: " + field(config, "byte_tokens") + " byte tokens, " +
         std::to_string(config.value("case_tokens", json::array()).size()) + " case tokens, " +
         field(config, "num_pieces") + " pieces" + listed(config, "special_tokens") +
         listed(config, "user_symbols") + "\n";
  out += "- segment table of " + field(config, "table_runs") + " letter runs from " +
         field(config, "word_types") + " word types; other runs go to the " +
         (neural ? "model" : segmenter) + "\n";
  out += "- boundary threshold " + field(config, "threshold") + ", root snap " +
         field(config, "root_snap") + "\n";
  out += stream_line(config.value("stream", json::object()));
  if (neural) out += embedding_line(config);
  out += "\n";
  card_training(provenance, &out);
  out += "## Evaluation\n\n";
  out += eval_report.empty()
             ? "No evaluation report was attached (`morpheus export --card-eval REPORT.md`).\n\n"
             : demote_headings(eval_report) + "\n";
  out +=
      "## How to load it\n\nWith `TOKDIR` this directory:\n\n```sh\n"
      "morpheus encode --model TOKDIR input.txt   # one line of ids per line\n"
      "morpheus segment --model TOKDIR words.txt\n```\n\n```python\nimport morpheus\n"
      "tok = morpheus.Tokenizer(\"TOKDIR\")\n"
      "ids = tok.encode(\"Kitaplarımızdan birini okudum.\")\n"
      "vectors = morpheus.Embedder(\"TOKDIR\").embed([\"kitap\", \"ev\"])\n```\n\n";
  out += "## Licence\n\nMIT, as the Morpheus code that wrote it.\n";
  return out;
}

}  // namespace morpheus::exporter
