// SPDX-License-Identifier: MIT
// The files Hugging Face transformers reads in a tokenizer directory, so that
// AutoTokenizer.from_pretrained(TOKDIR) loads it as morpheus.hf.MorpheusTokenizer (after
// `import morpheus.hf`, or with trust_remote_code=True through the directory's module file):
//   tokenizer_config.json    {"tokenizer_class":"MorpheusTokenizer","auto_map":{...},
//                             "add_bos_token":false,"add_eos_token":false,
//                             "clean_up_tokenization_spaces":false, the four roles
//                             ("pad_token", ... or null), "additional_special_tokens" (the other
//                             special tokens, when any)}
//   special_tokens_map.json  the roles present and "additional_special_tokens" (when any)
//   morpheus_tokenizer.py    kHfModuleSource
// JSON with sorted keys, two-space indents and a final newline: the bytes morpheus.hf's
// hf_file_contents gives (tests/python/test_hf.py compares them). Not checksummed in
// morpheus.json: transformers' save_pretrained rewrites them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::tokenizer {

constexpr const char* kHfTokenizerConfigFile = "tokenizer_config.json";
constexpr const char* kHfSpecialTokensMapFile = "special_tokens_map.json";
constexpr const char* kHfModuleFile = "morpheus_tokenizer.py";
// The module transformers imports with trust_remote_code=True (morpheus.hf.MODULE_SOURCE).
extern const char* const kHfModuleSource;

// The three files of `tok`, as (file name, content).
std::vector<std::pair<std::string, std::string>> hf_file_contents(const Tokenizer& tok);

// Writes them into the directory `dir` (atomically; a file that already holds its content is
// left alone).
Status write_hf_files(const std::string& dir, const Tokenizer& tok);

}  // namespace morpheus::tokenizer
