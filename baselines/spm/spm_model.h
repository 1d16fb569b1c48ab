// SPDX-License-Identifier: MIT
// SentencePiece BPE/Unigram baselines with exact round trip (only in morpheus-spm and its tests;
// never in a process with LibTorch). Trained with the Morpheus paper's options where they make
// sense (character coverage 0.9999, byte fallback, split digits) but an identity normalization
// (no case folding, no NFKC), no extra-whitespace removal and, by default, no dummy prefix, so
// that spaces, tabs, \r, leading/trailing and repeated whitespace all survive. With
// add_dummy_prefix SentencePiece puts a U+2581 before every non-empty line when it encodes and
// drops it again when it decodes, so the round trip stays exact.
// SentencePiece maps ' ' to U+2581 and back, so a literal U+2581 in the text would decode as a
// space; we escape it (and the escape character) with private-use code points:
//   U+E000 -> U+E000 U+E000,   U+2581 -> U+E000 U+E001        (spm_escape / spm_unescape)
// Model directory: spm.model, spm.vocab, spm.json {"format_version":1,"type":...,"escape":...,
// "add_dummy_prefix":true|false} (absent: false).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace morpheus::tokenizer {

std::string spm_escape(std::string_view text);
// Inverse of spm_escape (a lone trailing U+E000 is kept as is).
std::string spm_unescape(std::string_view text);

struct SpmTrainOptions {
  std::string corpus;        // one sentence per line, UTF-8
  std::string type = "bpe";  // bpe | unigram
  int vocab_size = 32000;
  std::string out;  // model directory
  int threads = 2;
  bool hard_vocab_limit = false;  // false: a small corpus may give fewer pieces, not an error
  bool add_dummy_prefix = false;  // SentencePiece's add_dummy_prefix
};

// Trains and writes the model directory. Errors (bad type, unreadable corpus, SentencePiece
// failures) are Status with the SentencePiece message.
Status spm_train(const SpmTrainOptions& options);

class SpmModel {
 public:
  static StatusOr<std::unique_ptr<SpmModel>> load(const std::string& dir);
  ~SpmModel();

  Status encode(std::string_view text, std::vector<int32_t>* ids) const;
  Status decode(const std::vector<int32_t>& ids, std::string* text) const;
  // Pieces of a word as surface strings (concatenation == word).
  StatusOr<std::vector<std::string>> segment(std::string_view word) const;
  int vocab_size() const;
  // As trained (spm.json).
  bool add_dummy_prefix() const { return add_dummy_prefix_; }

 private:
  SpmModel();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  bool add_dummy_prefix_ = false;
};

}  // namespace morpheus::tokenizer
