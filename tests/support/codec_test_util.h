// SPDX-License-Identifier: MIT
// Helpers of the piece codec's tests: FnSegmenter, a Segmenter over a function of one folded word
// (the stand-in of a model or a rule), round_trip and id_strings.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/piece_codec.h"
#include "tokenizer/segmenter.h"

namespace morpheus::testing {

class FnSegmenter : public tokenizer::WordSegmenter {
 public:
  using Fn = std::function<std::vector<std::string>(std::string_view)>;
  explicit FnSegmenter(Fn fn) : fn_(std::move(fn)) {}
  std::vector<std::string> cut(std::string_view word) const override { return fn_(word); }
  std::string name() const override { return "test-fn"; }

 private:
  Fn fn_;
};

// decode(encode(text)) through `codec`, each step expected to succeed.
inline std::string round_trip(const tokenizer::PieceCodec& codec, const std::string& text) {
  StatusOr<std::vector<int32_t>> ids = codec.encode(text);
  EXPECT_TRUE(ids.ok()) << ids.status().to_string();
  if (!ids.ok()) return "";
  StatusOr<std::string> back = codec.decode(*ids);
  EXPECT_TRUE(back.ok()) << back.status().to_string();
  return back.ok() ? *back : "";
}

// The strings of the ids `text` encodes to (id_to_string: "<cap>", "<0x78>", pieces).
inline std::vector<std::string> id_strings(const tokenizer::PieceCodec& codec,
                                           const std::string& text) {
  StatusOr<std::vector<int32_t>> ids = codec.encode(text);
  EXPECT_TRUE(ids.ok()) << ids.status().to_string();
  std::vector<std::string> out;
  if (ids.ok()) {
    for (const int32_t id : *ids) out.push_back(codec.id_to_string(id));
  }
  return out;
}

}  // namespace morpheus::testing
