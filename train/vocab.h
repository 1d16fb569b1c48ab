// SPDX-License-Identifier: MIT
// Vocabularies built by `morpheus prepare`:
//   CharVocab   lower-cased characters of words, chosen by corpus coverage (q, w, x, â, î, û are
//               ordinary characters, not UNK); ids 0–3 are PAD, UNK, BOS, EOS.
//   CountVocab  the word vocabulary (SGNS contexts) and the root vocabulary (contrastive loss):
//               the most frequent strings above a minimum count; id 0 is <unk>.
// Files: char_vocab.json ({"specials":[…],"chars":[…],"counts":[…]}; char i has id 4+i) and
// words.tsv / roots.tsv (line i is "string<TAB>count" for id i; line 0 is "<unk><TAB>0").
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus::train {

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

class CountVocab {
 public:
  // The (size - 1) most frequent strings with count >= min_count (ties: by string), after <unk>.
  static CountVocab build(const std::unordered_map<std::u32string, uint64_t>& counts, uint32_t size,
                          uint64_t min_count);

  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
  // Id of a string, 0 (<unk>) when absent.
  uint32_t id(const std::u32string& s) const;
  const std::u32string& string_of(uint32_t id) const { return entries_.at(id).first; }
  uint64_t count_of(uint32_t id) const { return entries_.at(id).second; }

  Status save(const std::string& path) const;
  // Reads a file written by save(). NOT_FOUND when missing; DATA_LOSS naming the file and line
  // for a line that is not string<TAB>count, count being a whole decimal in [0, 2^64) ("-5",
  // "+5", " 5", "5abc" and "5\r" are not), and for an empty file.
  static StatusOr<CountVocab> load(const std::string& path);

 private:
  std::vector<std::pair<std::u32string, uint64_t>> entries_;  // [0] is <unk>
  std::unordered_map<std::u32string, uint32_t> index_;
};

}  // namespace morpheus::train
