// SPDX-License-Identifier: MIT
// The engine model of a tokenizer directory, and its "morpheus-engine" segmenter.
#include "engine/directory.h"

#include <mutex>
#include <utility>

#include "core/file_util.h"
#include "core/json_config.h"
#include "tokenizer/directory_format.h"

namespace morpheus::engine {
namespace {

using nlohmann::json;

// "morpheus-engine": load_directory_model on spec.path.
StatusOr<std::unique_ptr<tokenizer::Segmenter>> create_engine(
    const tokenizer::SegmenterSpec& spec) {
  EngineSegmenterOptions options;
  options.threads = spec.options.value("threads", size_t{1});
  MORPHEUS_ASSIGN_OR_RETURN(const json config, tokenizer::spec_directory_config(spec));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<EngineSegmenter> seg,
                            load_directory_model(spec.path, config, options));
  return std::unique_ptr<tokenizer::Segmenter>(std::move(seg));
}

}  // namespace

StatusOr<std::unique_ptr<EngineSegmenter>> load_directory_model(const std::string& dir,
                                                                const json& config,
                                                                EngineSegmenterOptions options) {
  if (!tokenizer::lists_file(config, tokenizer::kWeightsFile)) {
    return failed_precondition(
        dir + " has no " + tokenizer::kWeightsFile + " (exported before the torch-free engine)",
        "add it with: morpheus upgrade --model " + dir + " (or re-run morpheus export)");
  }
  MORPHEUS_RETURN_IF_ERROR(
      tokenizer::verify_tokenizer_file(dir, config, tokenizer::kCharVocabFile));
  // Segmentation cuts at the directory's threshold (0: the model's own); embeddings ignore it.
  options.threshold = tokenizer::directory_threshold(config);
  MORPHEUS_ASSIGN_OR_RETURN(
      std::unique_ptr<EngineSegmenter> seg,
      EngineSegmenter::load(path_join(dir, tokenizer::kWeightsFile),
                            path_join(dir, tokenizer::kCharVocabFile), options));
  MORPHEUS_ASSIGN_OR_RETURN(const EmbeddingLayout layout,
                            EmbeddingLayout::from_config(config, seg->model().dim));
  MORPHEUS_RETURN_IF_ERROR(seg->set_embedding_layout(layout));
  // The directory's checksum of the weights, over the bytes the load mapped (no second read).
  MORPHEUS_RETURN_IF_ERROR(tokenizer::verify_tokenizer_bytes(dir, config, tokenizer::kWeightsFile,
                                                             seg->model().file().bytes()));
  return seg;
}

tokenizer::SegmenterSpec engine_model_spec(size_t threads) {
  static std::once_flag registered;
  std::call_once(registered,
                 [] { tokenizer::register_segmenter("morpheus-engine", create_engine); });
  tokenizer::SegmenterSpec spec;
  spec.name = "morpheus-engine";
  spec.options = {{"threads", threads}};
  return spec;
}

StatusOr<const EngineSegmenter*> engine_model(const tokenizer::Tokenizer& tok) {
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::Segmenter * model, tok.model());
  const auto* engine = dynamic_cast<const EngineSegmenter*>(model);
  if (engine == nullptr) {
    return internal_error(tok.dir() + ": the model segmenter is \"" + model->name() +
                          "\", not the engine");
  }
  return engine;
}

}  // namespace morpheus::engine
