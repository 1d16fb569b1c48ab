// SPDX-License-Identifier: MIT
// Helpers of the pack tests: a small tokenizer directory (segment table, pieces, the default
// special tokens) whose model cuts new letter runs in pairs of code points, corpus files, and
// the bytes of a file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::pack::testing {

// Writes a tokenizer directory under a fresh temp dir and returns it. `filler_pieces` distinct
// pieces come before the table's pieces, so with 65,300 of them the vocabulary passes 65,500 ids
// and the table's pieces get ids above 65,535.
std::string write_tokenizer_dir(const std::string& tag, size_t filler_pieces = 0);

// Loads `dir` with a model that cuts every letter run the table lacks in pairs of code points.
std::unique_ptr<tokenizer::Tokenizer> load_tokenizer(const std::string& dir);

// Writes `lines` (each followed by "\n") to `name` in a fresh temp dir; returns the path.
std::string write_lines(const std::string& tag, const std::string& name,
                        const std::vector<std::string>& lines);

// The bytes of `path` ("" when it cannot be read: the caller compares them).
std::string file_bytes(const std::string& path);

// The names in `dir`, sorted.
std::vector<std::string> dir_entries(const std::string& dir);

// A JSONL line {"text": text} (nlohmann's escaping).
std::string jsonl(const std::string& text);

// Documents with newlines, tabs, quotes, Turkish letters, emoji, table words and new words.
std::vector<std::string> sample_texts();

}  // namespace morpheus::pack::testing
