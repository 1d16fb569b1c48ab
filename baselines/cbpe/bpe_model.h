// SPDX-License-Identifier: MIT
// BpeModel: the CBPE vocabulary (reference layout: <pad> <unk> <s> </s>, base characters by code
// point, then one token per merge) and rank-based greedy encoding of one segment.
//   files: vocab.json {"<pad>": 0, ...} (2-space indent, id order); merges.txt "a<TAB>b" per line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer::cbpe {

// U+2581, the reference's boundary marker inside annotated pre-tokens ("pag▁kain").
inline constexpr char32_t kMarker = 0x2581;
inline constexpr int32_t kNumSpecials = 4;  // <pad>=0 <unk>=1 <s>=2 </s>=3
inline constexpr int32_t kUnkId = 1;

using Merge = std::pair<std::string, std::string>;

class BpeModel {
 public:
  BpeModel() = default;

  // `tokens` in id order (the first four are the specials); `merges` in rank order, each x+y
  // must be a token. Errors name the offending token or merge.
  static StatusOr<BpeModel> create(std::vector<std::string> tokens, std::vector<Merge> merges);
  // Reads vocab.json + merges.txt; errors name the file, line and problem.
  static StatusOr<BpeModel> load(const std::string& vocab_path, const std::string& merges_path);
  // Writes both files atomically.
  Status save(const std::string& vocab_path, const std::string& merges_path) const;
  std::string vocab_json() const;   // the reference's json.dumps(indent=2, ensure_ascii=False)
  std::string merges_text() const;  // "a\tb\n" per merge

  // Ids of one segment (code points): repeatedly merges the adjacent pair of lowest rank (the
  // leftmost on ties), one occurrence at a time, as the reference's CoreBPE.encode. Characters
  // outside the vocabulary become <unk> (id 1). Appends to *ids.
  void encode(std::u32string_view segment, std::vector<int32_t>* ids) const;
  // Same merges, as token strings; a character outside the vocabulary is its own string.
  void encode_pieces(std::u32string_view segment, std::vector<std::string>* pieces) const;

  const std::vector<std::string>& tokens() const { return tokens_; }
  const std::vector<Merge>& merges() const { return merges_; }
  // Id of a token string, or -1.
  int32_t token_id(std::string_view token) const;

 private:
  // Symbol ids after merging; -1-cp for a code point outside the vocabulary.
  void merge_symbols(std::u32string_view segment, std::vector<int64_t>* symbols) const;

  std::vector<std::string> tokens_;
  std::vector<Merge> merges_;
  std::unordered_map<std::string, int32_t> ids_;
  std::unordered_map<char32_t, int32_t> char_ids_;
  // (left id << 32 | right id) -> (rank, merged id)
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> ranks_;
};

}  // namespace morpheus::tokenizer::cbpe
