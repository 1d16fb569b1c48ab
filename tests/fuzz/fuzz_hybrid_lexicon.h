// SPDX-License-Identifier: MIT
// The hybrid tokenizers the hybrid fuzz targets share: loaded once from $MORPHEUS_FUZZ_HYBRID_DIR
// (e.g. the released lexicons) or else from the tiny hand-written lexicon in
// tests/data/hybrid_tiny_lexicon (roots, allomorphic suffixes and BPE units in the real ranges).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "core/check.h"
#include "tokenizer/hybrid/hybrid_tokenizer.h"

namespace morpheus::fuzz {

inline const tokenizer::hybrid::HybridTokenizer& hybrid_tokenizer(
    tokenizer::hybrid::HybridMode mode) {
  using tokenizer::hybrid::HybridLexicon;
  using tokenizer::hybrid::HybridTokenizer;
  static const std::shared_ptr<const HybridLexicon> lexicon = [] {
    const char* env = std::getenv("MORPHEUS_FUZZ_HYBRID_DIR");
    const std::string dir = env != nullptr && *env != '\0'
                                ? std::string(env)
                                : std::string(MORPHEUS_FUZZ_DATA_DIR) + "/hybrid_tiny_lexicon";
    auto lex = HybridLexicon::load(dir);
    MORPHEUS_CHECK(lex.ok(), lex.status().to_string());
    return std::make_shared<const HybridLexicon>(std::move(lex).value());
  }();
  static const HybridTokenizer reference(lexicon, tokenizer::hybrid::HybridMode::kReference);
  static const HybridTokenizer lossless(lexicon, tokenizer::hybrid::HybridMode::kLossless);
  return mode == tokenizer::hybrid::HybridMode::kReference ? reference : lossless;
}

}  // namespace morpheus::fuzz
