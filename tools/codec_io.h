// SPDX-License-Identifier: MIT
// The line-oriented I/O every tokenizer command shares (DESIGN.md §6):
//   encode:  text lines in -> one line of space-separated ids per input line
//   decode:  id lines in   -> the original text lines
//   segment: one word per line in -> "word<TAB>piece piece ..." out
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::tools {

using EncodeLineFn = std::function<Status(std::string_view line, std::vector<int32_t>* ids)>;
using DecodeLineFn = std::function<Status(const std::vector<int32_t>& ids, std::string* text)>;
using SegmentWordFn = std::function<StatusOr<std::vector<std::string>>(std::string_view word)>;

// Each runs over `input` ("-" = stdin) and writes `output` ("-" = stdout, else atomically).
// Errors name the input and line number. With allow_invalid, lines are not UTF-8 validated.
Status encode_lines(const std::string& input, const std::string& output, bool allow_invalid,
                    const EncodeLineFn& encode);
Status decode_lines(const std::string& input, const std::string& output,
                    const DecodeLineFn& decode);
Status segment_lines(const std::string& input, const std::string& output,
                     const SegmentWordFn& segment);

}  // namespace morpheus::tools
