// SPDX-License-Identifier: MIT
// The hybrid tokenizers the hybrid fuzz targets share: loaded once from $MORPHEUS_FUZZ_HYBRID_DIR,
// or else from the released lexicons in <shared data>/hybrid, where the shared data directory is
// $MORPHEUS_SHARED_DATA or else <repo>/../shared/data (never copied into the repo).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "baselines/hybrid/hybrid_tokenizer.h"
#include "core/check.h"

namespace morpheus::fuzz {

inline const tokenizer::hybrid::HybridTokenizer& hybrid_tokenizer(
    tokenizer::hybrid::HybridMode mode) {
  using tokenizer::hybrid::HybridLexicon;
  using tokenizer::hybrid::HybridTokenizer;
  static const std::shared_ptr<const HybridLexicon> lexicon = [] {
    const char* hybrid_dir = std::getenv("MORPHEUS_FUZZ_HYBRID_DIR");
    const char* shared = std::getenv("MORPHEUS_SHARED_DATA");
    std::string dir = std::string(MORPHEUS_FUZZ_SHARED_DATA_DEFAULT) + "/hybrid";
    if (hybrid_dir != nullptr && *hybrid_dir != '\0') {
      dir = hybrid_dir;
    } else if (shared != nullptr && *shared != '\0') {
      dir = std::string(shared) + "/hybrid";
    }
    auto lex = HybridLexicon::load(dir);
    MORPHEUS_CHECK(lex.ok(), lex.status().to_string());
    return std::make_shared<const HybridLexicon>(std::move(lex).value());
  }();
  static const HybridTokenizer reference(lexicon, tokenizer::hybrid::HybridMode::kReference);
  static const HybridTokenizer lossless(lexicon, tokenizer::hybrid::HybridMode::kLossless);
  return mode == tokenizer::hybrid::HybridMode::kReference ? reference : lossless;
}

}  // namespace morpheus::fuzz
