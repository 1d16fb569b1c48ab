// SPDX-License-Identifier: MIT
// CharCodec: the character-level tokenizer of the language-model comparison, reversible on every
// valid UTF-8 line. Ids 0–255 are bytes; id 256 + i is the i-th code point seen in the training
// text (ascending code point order). A code point the training text lacks is written as its UTF-8
// bytes, so decode(encode(s)) == s for any valid UTF-8 s.
//   trained on "ab" : encode("ba😀") -> 257 256 240 159 152 128; decode gives "ba😀" back.
// File: JSON {"format":"morpheus-lm-chars","version":1,"code_points":[97,98,…]}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace morpheus::lm {

class CharCodec {
 public:
  static constexpr int32_t kByteIds = 256;

  // Every code point of the (valid UTF-8) text file. INVALID_ARGUMENT naming the line otherwise.
  static StatusOr<CharCodec> train(const std::string& corpus_path);
  static CharCodec from_code_points(std::vector<char32_t> code_points);
  static StatusOr<CharCodec> load(const std::string& path);
  Status save(const std::string& path) const;  // atomically

  int64_t vocab_size() const { return kByteIds + static_cast<int64_t>(code_points_.size()); }
  const std::vector<char32_t>& code_points() const { return code_points_; }

  // INVALID_ARGUMENT at the first invalid UTF-8 byte.
  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  // INVALID_ARGUMENT for an id outside [0, vocab_size()). Byte ids are copied as they are.
  Status decode(const std::vector<int32_t>& ids, std::string* text) const;

 private:
  std::vector<char32_t> code_points_;  // ascending
  std::unordered_map<char32_t, int32_t> ids_;
};

}  // namespace morpheus::lm
