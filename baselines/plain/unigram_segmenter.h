// SPDX-License-Identifier: MIT
// UnigramSegmenter: the most likely cut of a folded letter run under a Unigram model (the pieces
// and log-probabilities written by `morpheus-spm unigram-pieces`), torch-free and without
// SentencePiece. It cuts as SentencePiece 0.1.97's Unigram Encode (its optimized Viterbi) does:
//   - the score of a cut is the sum of its pieces' log_probs, added in float from left to right;
//   - a code point with no one-code-point piece may also stand alone as an unknown piece scoring
//     min(log_probs) - 10 (kUnigramUnknownPenalty); a code point no piece covers always does;
//   - ties: at each end position the candidate whose last piece starts first (the longest last
//     piece) wins, and the same rule then applies to the rest of the word, right to left.
// Unlike SentencePiece's Encode, consecutive unknown code points stay one piece each.
// The pieces always concatenate to the word (bytes of invalid UTF-8 count as code points).
//   pieces {a: -1, b: -1, ab: -1.5}: cut("abab") = {"ab", "ab"}; cut("abx") = {"ab", "x"}
// pieces.json:
//   {"format_version": 1, "kind": "unigram-pieces", "pieces": ["a", ...], "log_probs": [-3.1, ...],
//    "trained_on": {"types": 98658, "tokens": 1234567}, "vocab_size": 50000}
// ("trained_on" and "vocab_size", the size asked of the trainer, are provenance.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

inline constexpr int kUnigramPiecesFormatVersion = 1;
inline constexpr const char* kUnigramPiecesKind = "unigram-pieces";
inline constexpr float kUnigramUnknownPenalty = 10.0f;

// A Unigram model: pieces (distinct, non-empty, valid UTF-8) and one log-probability each, with
// the provenance pieces.json records.
struct UnigramPieces {
  std::vector<std::string> pieces;
  std::vector<float> log_probs;
  uint64_t trained_on_types = 0;
  uint64_t trained_on_tokens = 0;
  int64_t vocab_size = 0;  // pieces asked of the trainer
};

// The pieces.json text of `model` (floats written so that they read back exactly).
std::string unigram_pieces_json(const UnigramPieces& model);

// A byte trie of the pieces: one array walk per byte, no allocation on lookup.
class PieceTrie {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = UINT32_MAX;

  // Keys must be distinct; the value of key i is i.
  void build(const std::vector<std::string>& keys);
  // The node reached from `node` by `byte`, or kNone.
  uint32_t step(uint32_t node, unsigned char byte) const;
  // The key ending at `node`, or -1.
  int32_t key(uint32_t node) const { return nodes_[node].key; }

 private:
  struct Node {
    uint32_t first_edge = 0;
    uint32_t num_edges = 0;
    int32_t key = -1;
  };
  std::vector<Node> nodes_{Node{}};
  std::vector<unsigned char> edge_bytes_;  // the edges of a node are contiguous and sorted
  std::vector<uint32_t> edge_targets_;
};

class UnigramSegmenter final : public WordSegmenter {
 public:
  // Reads pieces.json. A missing or unreadable file is NOT_FOUND/IO_ERROR; bad JSON, another
  // format, empty or duplicate pieces, invalid UTF-8, or pieces and log_probs of different
  // lengths are DATA_LOSS naming the file.
  static StatusOr<std::shared_ptr<const UnigramSegmenter>> load(const std::string& pieces_json);
  // The segmenter of an in-memory model; the same checks, as INVALID_ARGUMENT.
  static StatusOr<std::shared_ptr<const UnigramSegmenter>> create(UnigramPieces model);

  // The most likely cut of `word` (see the top of this file). Thread-safe.
  std::vector<std::string> cut(std::string_view word) const override;
  std::string name() const override { return "unigram"; }

  const std::vector<std::string>& pieces() const { return model_.pieces; }
  const std::vector<float>& log_probs() const { return model_.log_probs; }
  const UnigramPieces& model() const { return model_; }
  // The score of an unknown code point: min(log_probs) - kUnigramUnknownPenalty.
  float unknown_log_prob() const { return unknown_log_prob_; }

 private:
  explicit UnigramSegmenter(UnigramPieces model);

  UnigramPieces model_;
  PieceTrie trie_;
  float unknown_log_prob_ = 0.0f;
};

}  // namespace morpheus::tokenizer
