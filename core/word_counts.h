// SPDX-License-Identifier: MIT
// Word lists with counts: `word<TAB>count` per line (words.tsv of `morpheus prepare`, the word
// lists of export, embed and neighbors). A line without a tab counts 1; empty lines and "<unk>"
// are skipped; a trailing \r is dropped.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus {

// The (word, count) pairs of `path` in file order; a count that is not a number is
// INVALID_ARGUMENT naming the file and line.
StatusOr<std::vector<std::pair<std::string, uint64_t>>> read_word_counts(const std::string& path);

// The words of `path` (read_word_counts without the counts).
StatusOr<std::vector<std::string>> read_word_list(const std::string& path);

}  // namespace morpheus
