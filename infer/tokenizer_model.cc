// SPDX-License-Identifier: MIT
// The model of a tokenizer directory: loading (checksums, character vocabulary), the in-process
// "morpheus-model" segmenter, and the tokenizer with its model in process.
#include "infer/tokenizer_model.h"

#include <mutex>
#include <utility>

#include "core/file_util.h"
#include "core/json_config.h"
#include "engine/directory.h"
#include "engine/embedding_layout.h"
#include "model/checkpoint.h"
#include "model/runtime.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::infer {
namespace {

using nlohmann::json;

// "morpheus-model": load_model_segmenter on the directory spec.path (in_process_model's keys).
StatusOr<std::unique_ptr<tokenizer::Segmenter>> create_model(const tokenizer::SegmenterSpec& spec) {
  NeuralSegmenterOptions options;
  options.cache_capacity = spec.options.value("cache", options.cache_capacity);
  options.max_batch_chars = spec.options.value("max_batch_chars", options.max_batch_chars);
  MORPHEUS_ASSIGN_OR_RETURN(
      options.device, model::resolve_device(spec.options.value("device", std::string("cpu"))));
  MORPHEUS_ASSIGN_OR_RETURN(const json config, tokenizer::spec_directory_config(spec));
  if (!options.device.is_cpu()) {  // the engine decides the close calls: the tokenizer's pieces
    MORPHEUS_ASSIGN_OR_RETURN(options.close_calls,
                              engine::load_directory_model(spec.path, config, {}));
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<NeuralSegmenter> seg,
                            load_model_segmenter(spec.path, config, options));
  return std::unique_ptr<tokenizer::Segmenter>(std::move(seg));
}

}  // namespace

StatusOr<std::unique_ptr<NeuralSegmenter>> load_model_segmenter(const std::string& dir,
                                                                const json& config,
                                                                NeuralSegmenterOptions options) {
  for (const char* f : {"model/model.pt", "model/config.json", tokenizer::kCharVocabFile}) {
    MORPHEUS_RETURN_IF_ERROR(tokenizer::verify_tokenizer_file(dir, config, f));
  }
  MORPHEUS_ASSIGN_OR_RETURN(model::Morpheus model, model::load_inference_checkpoint(
                                                       path_join(dir, tokenizer::kCheckpointDir)));
  const std::string chars_path = path_join(dir, tokenizer::kCharVocabFile);
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::CharVocab chars, tokenizer::CharVocab::load(chars_path));
  if (static_cast<int64_t>(chars.size()) != model->config.char_vocab_size) {
    return data_loss(chars_path + " has " + std::to_string(chars.size()) +
                         " symbols but the model in " + path_join(dir, tokenizer::kCheckpointDir) +
                         " expects " + std::to_string(model->config.char_vocab_size),
                     "the character vocabulary does not belong to these weights");
  }
  // Segmentation cuts at the directory's threshold (0: the model's own); embeddings ignore it.
  options.threshold = tokenizer::directory_threshold(config);
  MORPHEUS_ASSIGN_OR_RETURN(
      const engine::EmbeddingLayout layout,
      engine::EmbeddingLayout::from_config(config, static_cast<size_t>(model->config.char_dim)));
  options.embedding = layout.pooling();
  options.inflection_weight = layout.inflection_weight();
  auto seg = std::make_unique<NeuralSegmenter>(std::move(model), std::move(chars), options);
  MORPHEUS_RETURN_IF_ERROR(seg->int8_status());
  return seg;
}

tokenizer::SegmenterSpec in_process_model(const NeuralSegmenterOptions& options) {
  static std::once_flag registered;
  std::call_once(registered, [] { tokenizer::register_segmenter("morpheus-model", create_model); });
  tokenizer::SegmenterSpec spec;
  spec.name = "morpheus-model";
  spec.options = {{"cache", options.cache_capacity},
                  {"max_batch_chars", options.max_batch_chars},
                  {"device", options.device.str()}};
  return spec;
}

StatusOr<std::unique_ptr<tokenizer::Tokenizer>> load_with_model(
    const std::string& dir, const NeuralSegmenterOptions& options) {
  return tokenizer::Tokenizer::load(dir, true, in_process_model(options));
}

StatusOr<const NeuralSegmenter*> neural_model(const tokenizer::Tokenizer& tok) {
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::Segmenter * model, tok.model());
  const auto* neural = dynamic_cast<const NeuralSegmenter*>(model);
  if (neural == nullptr) {
    return internal_error(tok.dir() + ": the model segmenter is \"" + model->name() +
                          "\", not the in-process model");
  }
  return neural;
}

}  // namespace morpheus::infer
