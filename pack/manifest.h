// SPDX-License-Identifier: MIT
// PREFIX.json, the manifest of a pack: what is in the token files and how they were made. It is
// written last, after the token files are in place, so a pack is complete exactly when its
// manifest exists and the files it lists have the sizes it records (read_manifest checks).
//   {"kind": "morpheus-pack", "format_version": 1, "format", "dtype", "vocab_size",
//    "special_ids": {"pad", "bos", "eos", "mask"} (-1 when absent),
//    "documents", "tokens", "characters" (code points of the texts), "skipped_invalid",
//    "documents_seen" (the documents of this shard in the inputs, kept or skipped),
//    "skipped_documents" (their numbers k, counted from 1 over all inputs),
//    "files": [{"name", "bytes"}] (names relative to the manifest's directory),
//    "tokenizer": {"dir", "id", "config_checksum"}, "morpheus_version",
//    "inputs": [{"path", "checksum", "bytes"}],
//    "options": {"input", "jsonl_key", "append_eos", "prepend_bos", "skip_invalid"},
//    "shard": {"index", "count"}, "merged_from": [prefixes] (merge only)}
// "options" holds exactly what changes the tokens; merge refuses parts that differ in it, the
// tokenizer, the format or the token type.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "pack/format.h"

namespace morpheus::pack {

constexpr int kManifestFormatVersion = 1;
constexpr const char* kManifestKind = "morpheus-pack";

struct InputInfo {
  std::string path;
  std::string checksum;  // "fnv1a64:<hex>" of the file's bytes
  uint64_t bytes = 0;
};

// The options that change the tokens.
struct ContentOptions {
  bool plain = false;  // "input": "plain" or "jsonl"
  std::string jsonl_key = "text";
  bool append_eos = false;
  bool prepend_bos = false;
  bool skip_invalid = false;
};

struct Manifest {
  Format format = Format::kMegatron;
  DType dtype = DType::kUint16;
  int64_t vocab_size = 0;
  int32_t pad_id = -1;
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  int32_t mask_id = -1;
  uint64_t documents = 0;
  uint64_t tokens = 0;
  uint64_t characters = 0;
  uint64_t documents_seen = 0;
  std::vector<uint64_t> skipped_documents;
  std::vector<std::pair<std::string, uint64_t>> files;  // name relative to the manifest, bytes
  std::string tokenizer_dir;
  std::string tokenizer_id;        // Tokenizer::id() as 16 hex digits
  std::string tokenizer_checksum;  // file checksum of the tokenizer's morpheus.json
  std::string version;             // morpheus version_string() of the writer
  std::vector<InputInfo> inputs;
  ContentOptions options;
  uint64_t shard_index = 0;
  uint64_t shard_count = 1;
  std::vector<std::string> merged_from;
};

// PREFIX.json.
std::string manifest_path(const std::string& prefix);
nlohmann::ordered_json manifest_to_json(const Manifest& manifest);
// DATA_LOSS naming `where` and the key for a missing or mistyped entry.
StatusOr<Manifest> manifest_from_json(const nlohmann::json& j, const std::string& where);
// Reads PREFIX.json and checks that the files it lists exist with the sizes it records.
StatusOr<Manifest> read_manifest(const std::string& prefix);
// Writes PREFIX.json atomically.
Status write_manifest(const std::string& prefix, const Manifest& manifest);

}  // namespace morpheus::pack
