// SPDX-License-Identifier: MIT
// The token ids a tokenizer's `encode` wrote for a text: one line of space-separated decimal ids
// per text line ("" for an empty line). The language model sees each line's ids followed by one
// end-of-line id, eol = vocab_size, so its vocabulary is vocab_size + 1; a stream starts with an
// end-of-line id, so its first token is predicted from "start of a line" like every other.
//   lines "3 5" and "" with vocab 10 -> stream 10 3 5 10 10.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::lm {

struct IdLines {
  std::vector<int32_t> ids;      // every line's ids, concatenated
  std::vector<int64_t> offsets;  // line i is ids[offsets[i], offsets[i+1]); size num_lines()+1
  int64_t vocab_size = 0;        // ids are < vocab_size; the end-of-line id is vocab_size

  size_t num_lines() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  int32_t eol() const { return static_cast<int32_t>(vocab_size); }
  // Tokens of the whole stream: a leading end-of-line id, then ids and one per line.
  int64_t stream_tokens() const {
    return 1 + static_cast<int64_t>(ids.size()) + static_cast<int64_t>(num_lines());
  }
};

// Parses one line of ids ("12 0 345", spaces, tabs and a trailing \r allowed) into *ids.
// INVALID_ARGUMENT naming the offending token when a token is not a decimal number in [0, 2^31).
Status parse_id_line(std::string_view line, std::vector<int32_t>* ids);

// Reads an ids file. NOT_FOUND for a missing file; INVALID_ARGUMENT for an empty file, a token
// that is not an id, or an id >= vocab_size (naming the line), with a hint.
StatusOr<IdLines> read_id_lines(const std::string& path, int64_t vocab_size);

// A permutation of [0, n) from (seed, epoch): the order of training lines in that epoch. It
// depends on n, seed and epoch only, so every tokenizer of one text sees the same order.
std::vector<int64_t> line_order(size_t n, uint64_t seed, int64_t epoch);

// The stream of the lines in `order` (every line when empty): eol, then each line's ids and eol.
std::vector<int32_t> token_stream(const IdLines& lines, const std::vector<int64_t>& order = {});

}  // namespace morpheus::lm
