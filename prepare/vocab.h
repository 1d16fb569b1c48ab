// SPDX-License-Identifier: MIT
// The word vocabulary (SGNS contexts) and the root vocabulary (contrastive loss) built by
// `morpheus prepare`: the most frequent strings above a minimum count; id 0 is <unk>. Files
// words.tsv / roots.tsv (line i is "string<TAB>count" for id i; line 0 is "<unk><TAB>0"). The
// character vocabulary is the model's (tokenizer/char_vocab.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus::train {

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
