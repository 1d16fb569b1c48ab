// SPDX-License-Identifier: MIT
// Sampling from a Gpt with a KV cache (lm/gpt.h decode_step): B sequences start from the
// end-of-line id (a line start) and each step appends one token to all of them, every earlier
// position's keys and values read from the cache, so a step costs one position, not the prefix.
//   generate(model, {tokens 256, batch 32}) -> 32 sequences of 256 ids, tokens/s of the loop.
#pragma once

#include <cstdint>
#include <vector>

#include "lm/gpt.h"

namespace morpheus::lm {

struct GenerateOptions {
  int64_t tokens = 256;      // per sequence; at most the model's context − 1
  int64_t batch = 1;         // sequences decoded together
  double temperature = 1.0;  // softmax temperature; > 0
  int64_t seed = 1;          // sampling generator seed
};

struct GenerateResult {
  std::vector<std::vector<int32_t>> sequences;  // [batch][tokens] sampled ids (eol included)
  double seconds = 0;                           // the decoding loop, cache allocation included
  double tokens_per_second() const;             // batch·tokens / seconds
};

// Eval mode, inference mode. TORCH_CHECKs the options against the model.
GenerateResult generate(GptImpl& model, const GenerateOptions& options,
                        const torch::Device& device);

}  // namespace morpheus::lm
