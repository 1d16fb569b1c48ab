// SPDX-License-Identifier: MIT
#include "lm/generate.h"

#include <c10/core/InferenceMode.h>
#include <torch/utils.h>

#include <chrono>

namespace morpheus::lm {

double GenerateResult::tokens_per_second() const {
  if (seconds <= 0 || sequences.empty()) return 0;
  return static_cast<double>(sequences.size() * sequences[0].size()) / seconds;
}

GenerateResult generate(GptImpl& model, const GenerateOptions& o, const torch::Device& device) {
  TORCH_CHECK(o.tokens >= 1 && o.tokens < model.options.context, "generate: tokens must be in [1, ",
              model.options.context - 1, "], got ", o.tokens);
  TORCH_CHECK(o.batch >= 1 && o.temperature > 0, "generate: batch >= 1 and temperature > 0");
  c10::InferenceMode inference;
  model.eval();
  torch::manual_seed(static_cast<uint64_t>(o.seed));
  const auto start = std::chrono::steady_clock::now();
  KvCache cache = model.make_cache(o.batch);
  torch::Tensor next = torch::full({o.batch}, model.options.vocab - 1,
                                   torch::TensorOptions(device).dtype(torch::kLong));  // eol
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < o.tokens; ++t) {
    const torch::Tensor logits = model.decode_step(next, cache);
    next = torch::multinomial(torch::softmax(logits / o.temperature, -1), 1).squeeze(1);
    steps.push_back(next);
  }
  const torch::Tensor all = torch::stack(steps, 1).to(torch::kCPU);  // [B, tokens]; syncs
  GenerateResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto ids = all.accessor<int64_t, 2>();
  for (int64_t b = 0; b < o.batch; ++b) {
    std::vector<int32_t> seq;
    for (int64_t t = 0; t < o.tokens; ++t) seq.push_back(static_cast<int32_t>(ids[b][t]));
    r.sequences.push_back(std::move(seq));
  }
  return r;
}

}  // namespace morpheus::lm
