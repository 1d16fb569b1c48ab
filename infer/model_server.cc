// SPDX-License-Identifier: MIT
#include "infer/model_server.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "core/json_config.h"
#include "infer/tokenizer_model.h"
#include "tokenizer/model_client.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::infer {

Status run_model_server(const std::string& dir, const NeuralSegmenterOptions& options) {
  std::unique_ptr<NeuralSegmenter> model;
  return tokenizer::serve_model([&]() -> StatusOr<tokenizer::Segmenter*> {
    MORPHEUS_ASSIGN_OR_RETURN(const nlohmann::json config,
                              load_json_file(tokenizer::tokenizer_config_path(dir)));
    MORPHEUS_ASSIGN_OR_RETURN(model, load_model_segmenter(dir, config, options));
    return model.get();
  });
}

}  // namespace morpheus::infer
