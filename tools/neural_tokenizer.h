// SPDX-License-Identifier: MIT
// The Morpheus tokenizer directory written by `morpheus export` and read by encode/decode/
// segment/embed/neighbors:
//   tokenizer.json   {"format_version","kind":"morpheus-tokenizer","vocab_size","threshold",
//                     "max_word_len","turkish_case","self_test":[{"text","ids"}], ...}
//   pieces.json      {"pieces":[...],"counts":[...]}: piece i has id 258 + i (PieceCodec layout:
//                     256 byte tokens, <cap>, <upper>, then the pieces)
//   model/           inference checkpoint (model/checkpoint.h)
//   char_vocab.json  the model's character vocabulary (train/vocab.h)
//   words.tsv        the word types (word<TAB>count) the vocabulary was distilled from
// Loading re-encodes the self-test texts and fails when the ids differ (weights or vocabulary
// that do not belong together).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "tokenizer/piece_codec.h"
#include "tools/neural_segmenter.h"

namespace morpheus::tools {

constexpr int kTokenizerFormatVersion = 1;

struct ExportOptions {
  std::string checkpoint;     // inference or training checkpoint dir with char_vocab.json
  std::string words;          // word<TAB>count file (words.tsv of `morpheus prepare`)
  std::string out;            // tokenizer directory (replaced atomically)
  size_t vocab_size = 50000;  // total ids incl. 256 bytes and 2 case tokens
  uint64_t min_count = 2;     // pieces seen less often (weighted) are not kept
};

struct ExportSummary {
  size_t word_types = 0;   // distinct words read
  size_t letter_runs = 0;  // distinct folded letter runs segmented
  size_t pieces = 0;       // pieces in the vocabulary
  double seconds = 0;
};

// Segments the word types with the model, distils the piece vocabulary (weighted by counts) and
// writes the tokenizer directory. Errors name the file and line.
Status export_tokenizer(const ExportOptions& options, ExportSummary* summary = nullptr);

// Reads a word<TAB>count file (a line without a tab counts 1; "<unk>" lines are skipped).
StatusOr<std::vector<std::pair<std::string, uint64_t>>> read_word_counts(const std::string& path);

class NeuralTokenizer {
 public:
  // Loads a tokenizer directory; with self_test, the self-test samples must re-encode to their
  // stored ids (DATA_LOSS naming the sample otherwise).
  static StatusOr<std::unique_ptr<NeuralTokenizer>> load(const std::string& dir,
                                                         bool self_test = true,
                                                         NeuralSegmenterOptions options = {});

  const tokenizer::PieceCodec& codec() const { return *codec_; }
  const NeuralSegmenter& segmenter() const { return *segmenter_; }
  const std::string& dir() const { return dir_; }

  // Runs the letter runs of `texts` through the model in batches so that the following
  // encode()/segment_word() calls hit the cache. Invalid UTF-8 parts are ignored.
  void prefetch(const std::vector<std::string>& texts) const;

 private:
  NeuralTokenizer() = default;

  std::string dir_;
  std::unique_ptr<NeuralSegmenter> segmenter_;
  std::unique_ptr<tokenizer::PieceCodec> codec_;
};

}  // namespace morpheus::tools
