// SPDX-License-Identifier: MIT
// `morpheus-spm unigram-pieces`: SentencePiece's Unigram trainer on word types with their counts
// (case-folded letter runs), for the UnigramSegmenter of the plain tokenizers
// (baselines/plain/unigram_segmenter.h). Only in morpheus-spm and its tests (libsentencepiece).
// The types go to the trainer as SentencePiece's own `input_format=tsv` lines (word<TAB>count)
// through a SentenceIterator: each type once with its count, which the trainer's EM weighs
// exactly (its seed substrings are counted once per type, as for any tsv input). Options: no
// dummy prefix, identity normalization, no extra-whitespace removal, no byte fallback, character
// coverage 1.0 (every character of the types is a piece), no <s>/</s>; <unk> is dropped from the
// pieces, so vocab_size N asks SentencePiece for N + 1.
//   TYPES.tsv:  kitap<TAB>120\nlar<TAB>7\n...  ->  PIECES.json (unigram_pieces_json)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "baselines/plain/unigram_segmenter.h"
#include "core/status.h"

namespace morpheus::tokenizer {

struct WordType {
  std::string word;
  uint64_t count = 0;
};

// Reads TYPES.tsv: one `word<TAB>count` per line (a trailing \r is dropped), the word valid UTF-8,
// non-empty, distinct, without whitespace and without the characters SentencePiece reserves
// (U+2581, U+2585, U+0000), the count a whole number in [1, 2^63). INVALID_ARGUMENT naming the file
// and line otherwise, or when there are no types.
StatusOr<std::vector<WordType>> read_word_types(const std::string& path);

struct UnigramTrainOptions {
  int vocab_size = 0;  // pieces wanted (fewer when the types allow no more)
  int threads = 2;
};

struct UnigramTraining {
  UnigramPieces pieces;     // SentencePiece's normal pieces, in its id order (best score first)
  std::string model_proto;  // the serialized SentencePiece model (for SentencePiece's Encode)
};

// Trains on `types`. INVALID_ARGUMENT for a vocab_size below the number of distinct characters,
// bad threads, or a SentencePiece refusal (its message).
StatusOr<UnigramTraining> train_unigram_pieces(const std::vector<WordType>& types,
                                               const UnigramTrainOptions& options);

struct UnigramPiecesOptions {
  std::string words;  // TYPES.tsv
  std::string out;    // PIECES.json, written atomically
  UnigramTrainOptions train;
};

// read_word_types + train_unigram_pieces + the atomic write of PIECES.json; returns the model
// written.
StatusOr<UnigramPieces> write_unigram_pieces(const UnigramPiecesOptions& options);

}  // namespace morpheus::tokenizer
