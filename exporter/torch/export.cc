// SPDX-License-Identifier: MIT
// `morpheus export`: the checkpoint's model as the letter-run segmenter of the tokenizer
// directory writer (exporter/tokenizer_writer.h).
#include "exporter/torch/export.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "engine/directory.h"
#include "engine/segmenter.h"
#include "exporter/model_card.h"
#include "exporter/tokenizer_writer.h"
#include "exporter/torch/engine_weights.h"
#include "infer/neural_segmenter.h"
#include "model/checkpoint.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::exporter {
namespace {

using infer::NeuralSegmenter;
using infer::NeuralSegmenterOptions;
using nlohmann::json;

// The model as the writer's segmenter. The engine (engine/segmenter.h) defines the tokenizer's
// segmentation: on the CPU it cuts every run; on a GPU LibTorch cuts them and the engine decides
// the close calls, so the table holds the engine's pieces either way. Its files: model/,
// char_vocab.json and the engine's model.weights; its config entries.
class ModelRunSegmenter : public exporter::RunSegmenter {
 public:
  static StatusOr<std::unique_ptr<ModelRunSegmenter>> create(const ExportOptions& options,
                                                             model::Morpheus model,
                                                             tokenizer::CharVocab chars,
                                                             std::string chars_path) {
    std::unique_ptr<ModelRunSegmenter> seg(
        new ModelRunSegmenter(options, model, chars, std::move(chars_path)));
    seg->weights_path_ = temp_path_for(options.writer.out + ".model.weights");
    MORPHEUS_RETURN_IF_ERROR(write_engine_weights(model, seg->weights_path_));
    engine::EngineSegmenterOptions engine_options;
    engine_options.threshold = options.threshold;
    engine_options.threads = std::max(1u, std::thread::hardware_concurrency());
    MORPHEUS_ASSIGN_OR_RETURN(
        seg->engine_,
        engine::EngineSegmenter::load(seg->weights_path_, seg->chars_path_, engine_options));
    NeuralSegmenterOptions o;
    o.cache_capacity = 0;
    o.threshold = options.threshold;
    o.device = options.device;
    o.close_calls = seg->engine_;
    seg->torch_ = std::make_unique<NeuralSegmenter>(std::move(model), std::move(chars), o);
    return seg;
  }
  ~ModelRunSegmenter() override { std::remove(weights_path_.c_str()); }

  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& runs) const override {
    if (options_.device.is_cpu()) return engine_->segment(runs);
    return torch_->segment_many(runs);
  }
  float decision_margin(std::string_view run) const override {
    return torch_->decision_margin(run);
  }
  size_t max_chunk_chars() const override { return engine_->max_chunk_chars(); }
  std::vector<std::string> letters() const override {
    std::vector<std::string> out;
    for (uint32_t id = tokenizer::CharVocab::kNumSpecials; id < chars_.size(); ++id) {
      const char32_t c = chars_.char_of(id);
      if (unicode::is_letter(c)) out.push_back(utf8::encode(c));
    }
    return out;
  }
  StatusOr<std::vector<std::string>> write_files(const std::string& dir) const override {
    MORPHEUS_RETURN_IF_ERROR(
        model::save_inference_checkpoint(path_join(dir, tokenizer::kCheckpointDir), model_, {}));
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>(chars_path_, tokenizer::kCharVocabFile),
          std::pair<std::string, std::string>(weights_path_, tokenizer::kWeightsFile)}) {
      MORPHEUS_ASSIGN_OR_RETURN(std::string bytes, read_file(from));
      MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(dir, to), bytes));
    }
    return std::vector<std::string>{tokenizer::kCharVocabFile, tokenizer::kWeightsFile,
                                    "model/model.pt", "model/config.json"};
  }
  json config() const override {
    // The checkpoint's own checksum (meta.json), so a script can tell a stale export.
    StatusOr<json> meta = load_json_file(path_join(options_.checkpoint, "meta.json"));
    const std::string source_sum =
        meta.ok() ? meta->value("model_pt_fnv1a64", std::string()) : std::string();
    return json{
        {"segmenter", {{"name", tokenizer::kModelSegmenter}}},
        {"source_checkpoint_model_pt_fnv1a64", source_sum},
        {"threshold", options_.threshold > 0 ? options_.threshold : model_->config.threshold},
        {"max_word_len", model_->config.max_word_len},
        {"embedding",
         engine::EmbeddingLayout(options_.embedding, static_cast<size_t>(model_->config.char_dim),
                                 options_.inflection_weight)
             .to_json()}};
  }

 private:
  ModelRunSegmenter(const ExportOptions& options, model::Morpheus model, tokenizer::CharVocab chars,
                    std::string chars_path)
      : options_(options),
        model_(std::move(model)),
        chars_(std::move(chars)),
        chars_path_(std::move(chars_path)) {}

  const ExportOptions& options_;
  mutable model::Morpheus model_;  // a module handle: saving it needs a non-const one
  tokenizer::CharVocab chars_;
  std::string chars_path_;
  std::string weights_path_;  // the engine's weights, beside the output until written into it
  std::shared_ptr<const engine::EngineSegmenter> engine_;
  std::unique_ptr<NeuralSegmenter> torch_;
};

Status check_export_options(const ExportOptions& options) {
  MORPHEUS_RETURN_IF_ERROR(exporter::check_writer_options(options.writer));
  if (!(options.inflection_weight > 0 && options.inflection_weight <= 1)) {
    return invalid_argument("--inflection-weight must be in (0, 1], got " +
                            std::to_string(options.inflection_weight));
  }
  if (options.threshold != 0 && !(options.threshold > 0 && options.threshold < 1)) {
    return invalid_argument("--threshold must be in (0, 1), got " +
                            std::to_string(options.threshold));
  }
  return ok_status();
}

// The provenance of the directory (exporter/model_card.h): the inputs read, the checkpoint's
// configuration and these options.
StatusOr<json> provenance(const ExportOptions& options) {
  exporter::ProvenanceInputs inputs;
  inputs.checkpoint = options.checkpoint;
  inputs.inputs = {{"words", options.writer.words},
                   {"text", options.writer.text},
                   {"eval_report", options.writer.card_eval}};
  inputs.export_options = exporter::writer_settings(options.writer);
  inputs.export_options.update({{"checkpoint", options.checkpoint},
                                {"threshold", options.threshold},
                                {"root_snap", options.writer.root_snap},
                                {"embedding", engine::embedding_pooling_name(options.embedding)},
                                {"inflection_weight", options.inflection_weight},
                                {"device", options.device.str()}});
  if (options.writer.root_snap) {
    inputs.inputs.insert(inputs.inputs.end(), {{"root_lexicon", options.writer.root_lexicon},
                                               {"suffix_lexicon", options.writer.suffix_lexicon}});
  }
  return exporter::export_provenance(inputs);
}

StatusOr<tokenizer::CharVocab> load_char_vocab(const std::string& path,
                                               const model::Morpheus& model) {
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::CharVocab chars, tokenizer::CharVocab::load(path));
  if (static_cast<int64_t>(chars.size()) != model->config.char_vocab_size) {
    return invalid_argument(path + " has " + std::to_string(chars.size()) +
                                " symbols but the model was built for " +
                                std::to_string(model->config.char_vocab_size),
                            "use the char_vocab.json the model was trained with");
  }
  return chars;
}

}  // namespace

Status export_tokenizer(const ExportOptions& options, ExportSummary* summary) {
  MORPHEUS_RETURN_IF_ERROR(check_export_options(options));
  MORPHEUS_ASSIGN_OR_RETURN(model::Morpheus model,
                            model::load_inference_checkpoint(options.checkpoint));
  const std::string chars_path = path_join(options.checkpoint, "char_vocab.json");
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::CharVocab chars, load_char_vocab(chars_path, model));
  exporter::WriterOptions w = options.writer;
  MORPHEUS_ASSIGN_OR_RETURN(w.provenance, provenance(options));
  MORPHEUS_ASSIGN_OR_RETURN(
      std::unique_ptr<ModelRunSegmenter> segmenter,
      ModelRunSegmenter::create(options, std::move(model), std::move(chars), chars_path));
  return exporter::write_tokenizer_dir(w, *segmenter, summary);
}

}  // namespace morpheus::exporter

namespace morpheus::exporter {

namespace {

// Writes model.weights from the directory's LibTorch checkpoint.
Status add_engine_weights(const std::string& dir, const json& config) {
  for (const char* f : {"model/model.pt", "model/config.json", tokenizer::kCharVocabFile}) {
    MORPHEUS_RETURN_IF_ERROR(tokenizer::verify_tokenizer_file(dir, config, f));
  }
  MORPHEUS_ASSIGN_OR_RETURN(model::Morpheus model, model::load_inference_checkpoint(
                                                       path_join(dir, tokenizer::kCheckpointDir)));
  return write_engine_weights(model, path_join(dir, tokenizer::kWeightsFile));
}

// Writes the prebuilt images (pieces.bin, root_snap/lexicon.bin) from the directory's checked
// text files; returns their relative paths.
StatusOr<std::vector<std::string>> add_images(const std::string& dir, const json& config) {
  const bool snap = config.value("root_snap", false);
  for (const char* f :
       {tokenizer::kPiecesFile, tokenizer::kRootSnapRoots, tokenizer::kRootSnapSuffixes}) {
    if (f == tokenizer::kPiecesFile || snap) {
      MORPHEUS_RETURN_IF_ERROR(tokenizer::verify_tokenizer_file(dir, config, f));
    }
  }
  return exporter::write_directory_images(dir, snap);
}

// Replaces the FNV-1a tags of an older export by the faster checksum every load verifies, for
// the files that still match their tag (*retagged: whether any did).
Status retag_files(const std::string& dir, json* config, bool* retagged) {
  for (auto& [relative, tag] : (*config)["files"].items()) {
    if (!tag.is_string() || tag.get<std::string>().rfind("fnv1a64:", 0) != 0) continue;
    std::string content;  // read once: checked against the old tag, then tagged anew
    MORPHEUS_RETURN_IF_ERROR(tokenizer::read_tokenizer_file(dir, *config, relative, &content));
    tag = tokenizer::tokenizer_checksum(content);
    *retagged = true;
  }
  return ok_status();
}

}  // namespace

Status upgrade_tokenizer(const std::string& dir) {
  const std::string config_path = tokenizer::tokenizer_config_path(dir);
  MORPHEUS_ASSIGN_OR_RETURN(const std::string before, read_file(config_path));
  MORPHEUS_ASSIGN_OR_RETURN(json config, load_json_file(config_path));
  std::vector<std::string> added;  // relative paths
  bool retagged = false;
  Status status = ok_status();
  if (!tokenizer::lists_file(config, tokenizer::kWeightsFile)) {
    status = add_engine_weights(dir, config);
    if (status.ok()) added.push_back(tokenizer::kWeightsFile);
  }
  const bool snap = config.value("root_snap", false);
  if (status.ok() && (!tokenizer::lists_file(config, tokenizer::kPiecesImageFile) ||
                      (snap && !tokenizer::lists_file(config, tokenizer::kRootSnapImage)))) {
    StatusOr<std::vector<std::string>> images = add_images(dir, config);
    status = images.status();
    if (images.ok()) added.insert(added.end(), images->begin(), images->end());
  }
  for (size_t i = 0; status.ok() && i < added.size(); ++i) {
    StatusOr<std::string> sum = tokenizer::tokenizer_file_checksum(path_join(dir, added[i]));
    status = sum.status();
    if (sum.ok()) config["files"][added[i]] = *sum;
  }
  if (status.ok()) status = retag_files(dir, &config, &retagged);
  if (status.ok() && (retagged || !added.empty())) {
    status = write_file_atomic(config_path, config.dump(2) + "\n");
  }
  // The engine must pass the directory's model self-test (through the root snap).
  if (status.ok() && !added.empty()) {
    status = [&]() -> Status {
      MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                                tokenizer::Tokenizer::load(dir, true, engine::engine_model_spec()));
      return tok->model().status();
    }();
    if (!status.ok()) {
      status =
          data_loss(dir + ": the upgraded directory fails its model self-test: " + status.message(),
                    "re-run morpheus export");
    }
  }
  if (!status.ok()) {
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(config_path, before));
    for (const std::string& f : added) std::remove(path_join(dir, f).c_str());
    return status;
  }
  // The files transformers reads (AutoTokenizer.from_pretrained), when missing or out of date.
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            tokenizer::Tokenizer::load(dir, true, {}));
  return tokenizer::write_hf_files(dir, *tok);
}

}  // namespace morpheus::exporter
