// SPDX-License-Identifier: MIT
// The vocabulary size of each tokenizer of the language-model comparison (every id its encode
// writes is below it), read from the tokenizer's own files:
//   morpheus  TOKDIR/morpheus.json "vocab_size"       (morpheus export)
//   cbpe      MODELDIR/cbpe.json "codec_vocab_size"   (morpheus cbpe train)
//   spm       MODELDIR/spm.vocab, one line per piece  (morpheus-spm train)
//   hybrid, hybrid-lossless   the lexicon directory's ids (+ 272 byte and case ids lossless)
//   chars     FILE.json: 256 byte ids + its code points (lm_data/char_codec.h)
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace morpheus::lm {

// INVALID_ARGUMENT for an unknown kind; NOT_FOUND / DATA_LOSS naming the file otherwise.
StatusOr<int64_t> tokenizer_vocab_size(const std::string& kind, const std::string& path);

}  // namespace morpheus::lm
