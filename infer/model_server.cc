// SPDX-License-Identifier: MIT
#include "infer/model_server.h"

#include <memory>

#include "infer/neural_tokenizer.h"
#include "tokenizer/model_client.h"

namespace morpheus::infer {

Status run_model_server(const std::string& dir, const NeuralSegmenterOptions& options) {
  StatusOr<std::unique_ptr<NeuralTokenizer>> tok = NeuralTokenizer::load(dir, false, options);
  return tokenizer::serve_model([&tok]() -> StatusOr<tokenizer::Segmenter*> {
    if (!tok.ok()) return tok.status();
    MORPHEUS_RETURN_IF_ERROR((*tok)->segmenter().status());
    return (*tok)->tokenizer().model();
  });
}

}  // namespace morpheus::infer
