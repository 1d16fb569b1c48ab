// SPDX-License-Identifier: MIT
// LibTorch model -> engine weight file.
#include "exporter/torch/engine_weights.h"

#include <torch/torch.h>

#include <map>
#include <vector>

#include "engine/weight_file.h"

namespace morpheus::exporter {

Status write_engine_weights(const model::Morpheus& model, const std::string& path) {
  const model::ModelConfig& config = model->config;
  const double eps = model->char_encoder->final_norm->options.eps();
  if (eps != model::ModelConfig::kLayerNormEps) {
    return invalid_argument("the model's LayerNorm epsilon is " + std::to_string(eps) +
                            ", the engine's " + std::to_string(model::ModelConfig::kLayerNormEps));
  }
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

}  // namespace morpheus::exporter
