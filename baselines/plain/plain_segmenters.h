// SPDX-License-Identifier: MIT
// The letter-run segmenters of the plain tokenizer directories (baselines/plain/plain_export.h: the
// Morpheus tokenizer format with plain BPE or Unigram cutting the letter runs instead of the
// neural model), made by name through the factory of tokenizer/segmenter.h from the directory at
// spec.path, as its morpheus.json names them ({"segmenter": {"name": ...}}):
//   "bpe"      bpe/vocab.json + bpe/merges.txt (baselines/cbpe/bpe_model.h), merges in rank order
//   "unigram"  unigram/pieces.json (baselines/plain/unigram_segmenter.h), the most likely cut
// Both cut folded letter runs and never fail once loaded.
#pragma once

namespace morpheus::tokenizer::cbpe {

constexpr const char* kPlainBpeVocab = "bpe/vocab.json";
constexpr const char* kPlainBpeMerges = "bpe/merges.txt";
constexpr const char* kPlainUnigramPieces = "unigram/pieces.json";

// Registers "bpe" and "unigram" (once; thread-safe). Every runtime that loads tokenizer
// directories calls it (the fronts' tokenizer commands, the Python module).
void register_plain_segmenters();

}  // namespace morpheus::tokenizer::cbpe
