// SPDX-License-Identifier: MIT
// Constrained BPE trainer: incremental BPE over word types with counts, where no merge may span a
// morpheme boundary. Doubly linked symbol lists, a pair -> (count, left positions) index and a
// max-heap with lazy deletion: O(N log V). Without cuts it is plain BPE (the control).
//   words {("kitaplar", cuts {5}, 3)} -> merges never join "kitap" with "lar" symbols.
// Deterministic: the occurrences of a merged pair are visited left to right in input order
// (the reference visits a hash set; the two differ only for overlapping pairs such as e e e).
// Ties: highest count, then the smallest (left, right) pair as code-point strings (reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "baselines/cbpe/bpe_model.h"
#include "core/status.h"

namespace morpheus::tokenizer::cbpe {

struct TrainingWord {
  std::u32string text;         // the word (or reference pre-token) as code points
  std::vector<uint32_t> cuts;  // code point offsets in (0, size) where no merge may span
  uint64_t count = 1;          // occurrences in the corpus
};

struct TrainerOptions {
  size_t vocab_size = 32000;  // specials + base characters + merges
  // Reference mode: U+2581 is added to the base vocabulary and any pair touching it is never
  // counted (the reference's annotated pre-tokens carry it as the boundary marker).
  bool marker_symbol = false;
  bool printable_ascii = true;  // add ASCII 32..126 to the base vocabulary (as the reference)
};

struct TrainerStats {
  size_t base_size = 0;    // specials + base characters
  size_t merges = 0;       // merges learned
  bool exhausted = false;  // stopped early: no countable pair left
};

// Trains on distinct words in first-seen order (words with < 2 symbols only add characters).
// `vocab_size` smaller than the base vocabulary is INVALID_ARGUMENT. Cuts must be strictly
// increasing inside (0, text.size()) (contract).
StatusOr<BpeModel> train_bpe(const std::vector<TrainingWord>& words, const TrainerOptions& options,
                             TrainerStats* stats = nullptr);

// The reference's trainer input: annotated pre-tokens ("k▁um▁ain", " ", "siya", ...), one per
// occurrence; counted into distinct TrainingWords in first-seen order (no cuts: the markers are
// kept as symbols; use marker_symbol = true).
std::vector<TrainingWord> count_pretokens(const std::vector<std::string>& pretokens);

}  // namespace morpheus::tokenizer::cbpe
