// SPDX-License-Identifier: MIT
// Plain tokenizer directories: the Morpheus tokenizer format (exporter/tokenizer_writer.h: the
// same pre-tokenizer, case layer, vocabulary distillation and table) with plain BPE or Unigram
// cutting the letter runs instead of the neural model. They are the case-matched controls of a
// comparison: everything but the cut of the folded letter runs is Morpheus's.
//   bpe      BPE merges learned on the folded letter runs of the word types (weighted by their
//            counts; baselines/cbpe/bpe_trainer.h without boundaries); bpe/vocab.json and
//            bpe/merges.txt in the directory
//   unigram  a Unigram model's pieces and log-probabilities (`morpheus-spm unigram-pieces` on
//            the runs of plain_runs()); unigram/pieces.json in the directory
// The runtime cuts the runs the table lacks with the same segmenter
// (baselines/plain/plain_segmenters.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "exporter/tokenizer_writer.h"

namespace morpheus::exporter {

struct PlainOptions {
  std::string segmenter = "bpe";  // bpe | unigram
  std::string pieces;             // unigram: the pieces JSON of `morpheus-spm unigram-pieces`
  // bpe: tokens of the BPE model (its 4 specials, base characters and merges); 0: the piece
  // budget of the writer (vocab_size less the reserved ids) + 4.
  size_t bpe_vocab_size = 0;
};

// The folded letter runs of the word types (`words`, word<TAB>count) with their summed counts,
// by count (descending), then by run: what a plain segmenter is trained on and cuts.
StatusOr<std::vector<std::pair<std::string, uint64_t>>> plain_runs(const std::string& words);

// The run segmenter of a plain directory (trains the BPE merges for "bpe").
StatusOr<std::unique_ptr<RunSegmenter>> make_plain_segmenter(const WriterOptions& writer,
                                                             const PlainOptions& plain);

}  // namespace morpheus::exporter
