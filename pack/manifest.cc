// SPDX-License-Identifier: MIT
#include "pack/manifest.h"

#include <sys/stat.h>

#include "core/file_util.h"

namespace morpheus::pack {
namespace {

using OrderedJson = nlohmann::ordered_json;

std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The value at `key` of `j` as T, or DATA_LOSS naming it.
template <typename T>
Status get(const nlohmann::json& j, const char* key, const std::string& where, T* out) {
  const auto it = j.find(key);
  if (it == j.end()) return data_loss(where + ": no \"" + key + "\"", "re-create the pack");
  try {
    *out = it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return data_loss(where + ": \"" + key + "\" has the wrong type", "re-create the pack");
  }
  return ok_status();
}

Status get_object(const nlohmann::json& j, const char* key, const std::string& where,
                  const nlohmann::json** out) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_object()) {
    return data_loss(where + ": no \"" + key + "\" object", "re-create the pack");
  }
  *out = &*it;
  return ok_status();
}

Status parse_ids(const nlohmann::json& j, const std::string& where, Manifest* m) {
  const nlohmann::json* ids = nullptr;
  MORPHEUS_RETURN_IF_ERROR(get_object(j, "special_ids", where, &ids));
  MORPHEUS_RETURN_IF_ERROR(get(*ids, "pad", where, &m->pad_id));
  MORPHEUS_RETURN_IF_ERROR(get(*ids, "bos", where, &m->bos_id));
  MORPHEUS_RETURN_IF_ERROR(get(*ids, "eos", where, &m->eos_id));
  return get(*ids, "mask", where, &m->mask_id);
}

Status parse_counts(const nlohmann::json& j, const std::string& where, Manifest* m) {
  MORPHEUS_RETURN_IF_ERROR(get(j, "vocab_size", where, &m->vocab_size));
  MORPHEUS_RETURN_IF_ERROR(get(j, "documents", where, &m->documents));
  MORPHEUS_RETURN_IF_ERROR(get(j, "tokens", where, &m->tokens));
  MORPHEUS_RETURN_IF_ERROR(get(j, "characters", where, &m->characters));
  MORPHEUS_RETURN_IF_ERROR(get(j, "documents_seen", where, &m->documents_seen));
  MORPHEUS_RETURN_IF_ERROR(get(j, "skipped_documents", where, &m->skipped_documents));
  uint64_t skipped = 0;
  MORPHEUS_RETURN_IF_ERROR(get(j, "skipped_invalid", where, &skipped));
  if (skipped != m->skipped_documents.size() || m->documents + skipped != m->documents_seen) {
    return data_loss(where + ": its document counts disagree", "re-create the pack");
  }
  return ok_status();
}

Status parse_files(const nlohmann::json& j, const std::string& where, Manifest* m) {
  const auto files = j.find("files");
  if (files == j.end() || !files->is_array()) return data_loss(where + ": no \"files\" list");
  for (const auto& f : *files) {
    std::pair<std::string, uint64_t> entry;
    MORPHEUS_RETURN_IF_ERROR(get(f, "name", where, &entry.first));
    MORPHEUS_RETURN_IF_ERROR(get(f, "bytes", where, &entry.second));
    m->files.push_back(std::move(entry));
  }
  return ok_status();
}

Status parse_provenance(const nlohmann::json& j, const std::string& where, Manifest* m) {
  const nlohmann::json* tok = nullptr;
  MORPHEUS_RETURN_IF_ERROR(get_object(j, "tokenizer", where, &tok));
  MORPHEUS_RETURN_IF_ERROR(get(*tok, "dir", where, &m->tokenizer_dir));
  MORPHEUS_RETURN_IF_ERROR(get(*tok, "id", where, &m->tokenizer_id));
  MORPHEUS_RETURN_IF_ERROR(get(*tok, "config_checksum", where, &m->tokenizer_checksum));
  MORPHEUS_RETURN_IF_ERROR(get(j, "morpheus_version", where, &m->version));
  const auto inputs = j.find("inputs");
  if (inputs == j.end() || !inputs->is_array()) return data_loss(where + ": no \"inputs\" list");
  for (const auto& in : *inputs) {
    InputInfo info;
    MORPHEUS_RETURN_IF_ERROR(get(in, "path", where, &info.path));
    MORPHEUS_RETURN_IF_ERROR(get(in, "checksum", where, &info.checksum));
    MORPHEUS_RETURN_IF_ERROR(get(in, "bytes", where, &info.bytes));
    m->inputs.push_back(std::move(info));
  }
  if (j.contains("merged_from")) {
    MORPHEUS_RETURN_IF_ERROR(get(j, "merged_from", where, &m->merged_from));
  }
  return ok_status();
}

Status parse_options(const nlohmann::json& j, const std::string& where, Manifest* m) {
  const nlohmann::json* o = nullptr;
  MORPHEUS_RETURN_IF_ERROR(get_object(j, "options", where, &o));
  std::string input;
  MORPHEUS_RETURN_IF_ERROR(get(*o, "input", where, &input));
  if (input != "plain" && input != "jsonl") return data_loss(where + ": unknown input " + input);
  m->options.plain = input == "plain";
  MORPHEUS_RETURN_IF_ERROR(get(*o, "jsonl_key", where, &m->options.jsonl_key));
  MORPHEUS_RETURN_IF_ERROR(get(*o, "append_eos", where, &m->options.append_eos));
  MORPHEUS_RETURN_IF_ERROR(get(*o, "prepend_bos", where, &m->options.prepend_bos));
  MORPHEUS_RETURN_IF_ERROR(get(*o, "skip_invalid", where, &m->options.skip_invalid));
  const nlohmann::json* shard = nullptr;
  MORPHEUS_RETURN_IF_ERROR(get_object(j, "shard", where, &shard));
  MORPHEUS_RETURN_IF_ERROR(get(*shard, "index", where, &m->shard_index));
  MORPHEUS_RETURN_IF_ERROR(get(*shard, "count", where, &m->shard_count));
  if (m->shard_count == 0 || m->shard_index >= m->shard_count) {
    return data_loss(where + ": bad shard " + std::to_string(m->shard_index) + "/" +
                     std::to_string(m->shard_count));
  }
  return ok_status();
}

}  // namespace

std::string manifest_path(const std::string& prefix) { return prefix + ".json"; }

nlohmann::ordered_json manifest_to_json(const Manifest& m) {
  OrderedJson files = OrderedJson::array();
  for (const auto& [name, bytes] : m.files) files.push_back({{"name", name}, {"bytes", bytes}});
  OrderedJson inputs = OrderedJson::array();
  for (const InputInfo& in : m.inputs) {
    inputs.push_back({{"path", in.path}, {"checksum", in.checksum}, {"bytes", in.bytes}});
  }
  OrderedJson j = {{"kind", kManifestKind},
                   {"format_version", kManifestFormatVersion},
                   {"format", format_name(m.format)},
                   {"dtype", dtype_name(m.dtype)},
                   {"vocab_size", m.vocab_size},
                   {"special_ids",
                    {{"pad", m.pad_id}, {"bos", m.bos_id}, {"eos", m.eos_id}, {"mask", m.mask_id}}},
                   {"documents", m.documents},
                   {"tokens", m.tokens},
                   {"characters", m.characters},
                   {"skipped_invalid", m.skipped_documents.size()},
                   {"documents_seen", m.documents_seen},
                   {"skipped_documents", m.skipped_documents},
                   {"files", files},
                   {"tokenizer",
                    {{"dir", m.tokenizer_dir},
                     {"id", m.tokenizer_id},
                     {"config_checksum", m.tokenizer_checksum}}},
                   {"morpheus_version", m.version},
                   {"inputs", inputs},
                   {"options",
                    {{"input", m.options.plain ? "plain" : "jsonl"},
                     {"jsonl_key", m.options.jsonl_key},
                     {"append_eos", m.options.append_eos},
                     {"prepend_bos", m.options.prepend_bos},
                     {"skip_invalid", m.options.skip_invalid}}},
                   {"shard", {{"index", m.shard_index}, {"count", m.shard_count}}}};
  if (!m.merged_from.empty()) j["merged_from"] = m.merged_from;
  return j;
}

StatusOr<Manifest> manifest_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || j.value("kind", "") != kManifestKind) {
    return data_loss(where + " is not a morpheus pack manifest",
                     "give the PREFIX of a `morpheus pack` output (PREFIX.json)");
  }
  if (j.value("format_version", 0) != kManifestFormatVersion) {
    return data_loss(where + ": manifest format " + std::to_string(j.value("format_version", 0)) +
                         ", this build reads " + std::to_string(kManifestFormatVersion),
                     "re-create the pack with this version");
  }
  Manifest m;
  std::string format;
  std::string dtype;
  MORPHEUS_RETURN_IF_ERROR(get(j, "format", where, &format));
  MORPHEUS_RETURN_IF_ERROR(get(j, "dtype", where, &dtype));
  StatusOr<Format> f = parse_format(format);
  if (!f.ok()) return data_loss(where + ": " + f.status().message());
  m.format = *f;
  MORPHEUS_ASSIGN_OR_RETURN(m.dtype, parse_dtype(dtype));
  MORPHEUS_RETURN_IF_ERROR(parse_ids(j, where, &m));
  MORPHEUS_RETURN_IF_ERROR(parse_counts(j, where, &m));
  MORPHEUS_RETURN_IF_ERROR(parse_files(j, where, &m));
  MORPHEUS_RETURN_IF_ERROR(parse_provenance(j, where, &m));
  MORPHEUS_RETURN_IF_ERROR(parse_options(j, where, &m));
  return m;
}

StatusOr<Manifest> read_manifest(const std::string& prefix) {
  const std::string path = manifest_path(prefix);
  if (!file_exists(path)) {
    return not_found("no pack at " + prefix + " (" + path + " is missing)",
                     "a pack is complete when `morpheus pack` wrote its PREFIX.json");
  }
  MORPHEUS_ASSIGN_OR_RETURN(const std::string text, read_file(path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return data_loss(path + " is not valid JSON: " + e.what(), "re-create the pack");
  }
  MORPHEUS_ASSIGN_OR_RETURN(Manifest m, manifest_from_json(j, path));
  for (const auto& [name, bytes] : m.files) {
    const std::string file = dir_of(prefix) + name;
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
      return data_loss(file + " is missing (listed in " + path + ")", "re-create the pack");
    }
    if (static_cast<uint64_t>(st.st_size) != bytes) {
      return data_loss(file + " has " + std::to_string(st.st_size) + " bytes, " + path +
                           " records " + std::to_string(bytes),
                       "the pack was changed or damaged: re-create it");
    }
  }
  return m;
}

Status write_manifest(const std::string& prefix, const Manifest& manifest) {
  Manifest m = manifest;
  for (auto& file : m.files) file.first = base_of(file.first);
  return write_file_atomic(manifest_path(prefix), manifest_to_json(m).dump(2) + "\n");
}

}  // namespace morpheus::pack
