// SPDX-License-Identifier: MIT
// The transformers files of a tokenizer directory.
#include "tokenizer/hf_files.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/file_util.h"

namespace morpheus::tokenizer {

const char* const kHfModuleSource =
    R"(# SPDX-License-Identifier: MIT
"""The tokenizer of this directory for AutoTokenizer.from_pretrained(DIR, trust_remote_code=True):
morpheus.hf.MorpheusTokenizer of the installed morpheus package (its C++ tokenizer gives the
ids). Written by morpheus.hf.write_hf_files; see that module's documentation."""
from morpheus.hf import MorpheusTokenizer as _MorpheusTokenizer


class MorpheusTokenizer(_MorpheusTokenizer):
    """morpheus.hf.MorpheusTokenizer, loaded as this directory's code."""
)";

std::vector<std::pair<std::string, std::string>> hf_file_contents(const Tokenizer& tok) {
  using nlohmann::json;
  const std::pair<const char*, int32_t> roles[] = {{"pad_token", tok.pad_id()},
                                                   {"bos_token", tok.bos_id()},
                                                   {"eos_token", tok.eos_id()},
                                                   {"mask_token", tok.mask_id()}};
  json config = {
      {"tokenizer_class", "MorpheusTokenizer"},
      {"auto_map", {{"AutoTokenizer", {"morpheus_tokenizer.MorpheusTokenizer", nullptr}}}},
      {"add_bos_token", false},
      {"add_eos_token", false},
      {"clean_up_tokenization_spaces", false}};
  json present = json::object();
  std::vector<std::string> named;
  for (const auto& [role, id] : roles) {
    config[role] = id >= 0 ? json(tok.id_to_piece(id)) : json(nullptr);
    if (id >= 0) {
      present[role] = tok.id_to_piece(id);
      named.push_back(tok.id_to_piece(id));
    }
  }
  json additional = json::array();
  for (const std::string& s : tok.special_tokens()) {
    if (std::find(named.begin(), named.end(), s) == named.end()) additional.push_back(s);
  }
  if (!additional.empty()) {
    config["additional_special_tokens"] = additional;
    present["additional_special_tokens"] = additional;
  }
  return {{kHfTokenizerConfigFile, config.dump(2) + "\n"},
          {kHfSpecialTokensMapFile, present.dump(2) + "\n"},
          {kHfModuleFile, kHfModuleSource}};
}

Status write_hf_files(const std::string& dir, const Tokenizer& tok) {
  for (const auto& [name, content] : hf_file_contents(tok)) {
    const std::string path = path_join(dir, name);
    if (file_exists(path)) {
      StatusOr<std::string> old = read_file(path);
      if (old.ok() && *old == content) continue;
    }
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path, content));
  }
  return ok_status();
}

}  // namespace morpheus::tokenizer
