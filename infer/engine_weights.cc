// SPDX-License-Identifier: MIT
// LibTorch model -> engine weight file.
#include "infer/engine_weights.h"

#include <torch/torch.h>

#include <map>
#include <vector>

#include "engine/weight_file.h"

namespace morpheus::infer {

engine::EngineConfig engine_config_of(const model::Morpheus& model) {
  const model::ModelConfig& m = model->config;
  engine::EngineConfig c;
  c.vocab_size = m.char_vocab_size;
  c.dim = m.char_dim;
  c.char_embed_dim = m.char_embed_dim;
  c.case_embed_dim = m.case_embed_dim;
  c.encoder_layers = m.n_layers_encoder;
  c.detector_layers = m.n_layers_detector;
  c.num_heads = m.num_heads;
  c.ffn_mult = m.ffn_mult;
  c.max_word_len = m.max_word_len;
  c.max_segs = m.max_segs;
  c.cnn_kernels = m.cnn_kernels;
  c.cnn_channels = m.cnn_channels;
  c.threshold = m.threshold;
  c.min_seg_mass = m.min_seg_mass;
  c.layer_norm_eps = model->char_encoder->final_norm->options.eps();
  return c;
}

Status write_engine_weights(const model::Morpheus& model, const std::string& path) {
  const engine::EngineConfig config = engine_config_of(model);
  std::map<std::string, torch::Tensor> state;
  for (const auto& p : model->named_parameters()) state[p.key()] = p.value();
  for (const auto& b : model->named_buffers()) state[b.key()] = b.value();
  std::vector<torch::Tensor> keep;  // float32 CPU contiguous copies alive until written
  std::vector<engine::TensorInput> inputs;
  for (const engine::TensorSpec& spec : engine::expected_tensors(config)) {
    const auto it = state.find(spec.name);
    if (it == state.end()) {
      return invalid_argument("the model has no tensor '" + spec.name + "'",
                              "the checkpoint does not match its configuration");
    }
    keep.push_back(it->second.detach().to(torch::kCPU, torch::kFloat).contiguous());
    std::vector<int64_t> shape(keep.back().sizes().begin(), keep.back().sizes().end());
    inputs.push_back({spec.name, shape, keep.back().data_ptr<float>()});
  }
  Status status = engine::write_weight_file(path, config, inputs);
  if (!status.ok()) status.prepend("writing " + path);
  return status;
}

}  // namespace morpheus::infer
