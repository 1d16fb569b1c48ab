// SPDX-License-Identifier: MIT
// CharVocab: the model's input alphabet. Lower-cased characters of words, chosen by `morpheus
// prepare` by corpus coverage (q, w, x, â, î, û are ordinary characters, not UNK); ids 0–3 are
// PAD, UNK, BOS, EOS. Stored with every checkpoint and tokenizer directory as char_vocab.json
// ({"specials":[…],"chars":[…],"counts":[…]}; char i has id 4+i). Torch-free (library
// morpheus_tokenizer), so that prepare builds it without LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer {

class CharVocab {
 public:
  static constexpr uint32_t kPad = 0;
  static constexpr uint32_t kUnk = 1;
  static constexpr uint32_t kBos = 2;
  static constexpr uint32_t kEos = 3;
  static constexpr uint32_t kNumSpecials = 4;

  // Keeps the characters of `always` (when seen or not), then the most frequent characters with
  // count >= min_count until they cover at least `coverage` of all character occurrences (ties:
  // by code point). Ids follow descending count.
  static CharVocab build(const std::unordered_map<char32_t, uint64_t>& counts, double coverage,
                         uint64_t min_count, const std::u32string& always);

  uint32_t size() const { return static_cast<uint32_t>(chars_.size()) + kNumSpecials; }
  // Id of a lower-case character, kUnk when absent.
  uint32_t id(char32_t c) const;
  // The character of a non-special id.
  char32_t char_of(uint32_t id) const { return chars_.at(id - kNumSpecials); }
  // Fraction of the counted occurrences covered by the vocabulary (set by build).
  double coverage() const { return coverage_; }

  Status save(const std::string& path) const;
  static StatusOr<CharVocab> load(const std::string& path);

 private:
  std::vector<char32_t> chars_;
  std::vector<uint64_t> counts_;
  std::unordered_map<char32_t, uint32_t> index_;
  double coverage_ = 1.0;
};

}  // namespace morpheus::tokenizer
