// SPDX-License-Identifier: MIT
// Dynamic int8 Linear through LibTorch's dispatcher (quantized::linear_prepack /
// quantized::linear_dynamic: boxed calls, no TorchScript).
#include "model/linear.h"

#include <ATen/Context.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace morpheus::model {

namespace {

c10::OperatorHandle op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
}

thread_local bool t_int8 = false;

}  // namespace

Int8Scope::Int8Scope(bool enabled) : previous_(t_int8) { t_int8 = enabled; }
Int8Scope::~Int8Scope() { t_int8 = previous_; }
bool Int8Scope::active() { return t_int8; }

torch::Tensor LinearImpl::forward(const torch::Tensor& x) {
  if (!t_int8 || packed_.isNone() || is_training() || !x.device().is_cpu()) {
    return torch::nn::LinearImpl::forward(x);
  }
  static const c10::OperatorHandle dynamic = op("quantized::linear_dynamic");
  // reduce_range: inputs in 7 bits. Without VNNI (AVX2) ONEDNN's u8 x s8 kernels add pairs of
  // products in 16 bits, which saturate on full-range inputs (errors of a fifth of the output
  // scale). QNNPACK ignores the flag.
  const bool reduce_range = at::globalContext().qEngine() != at::QEngine::QNNPACK;
  std::vector<c10::IValue> stack = {x.contiguous(), packed_, reduce_range};
  dynamic.callBoxed(&stack);
  return stack.at(0).toTensor();
}

void LinearImpl::quantize_int8() {
  torch::NoGradGuard no_grad;
  const torch::Tensor w = weight.detach().to(torch::kCPU, torch::kFloat).contiguous();
  // Symmetric per output channel: scale_o = max |w_o·| / 127 (a zero row gets scale 1).
  torch::Tensor scales = std::get<0>(w.abs().max(1)).div(127.0).to(torch::kDouble);
  scales = torch::where(scales > 0, scales, torch::ones_like(scales));
  const torch::Tensor zero_points = torch::zeros({w.size(0)}, torch::kLong);
  const torch::Tensor qw = at::quantize_per_channel(w, scales, zero_points, 0, at::kQInt8);
  c10::optional<torch::Tensor> b;
  if (bias.defined()) b = bias.detach().to(torch::kCPU, torch::kFloat).contiguous();
  std::vector<c10::IValue> stack = {qw, b};
  op("quantized::linear_prepack").callBoxed(&stack);
  packed_ = stack.at(0);
}

StatusOr<int> quantize_dynamic_int8(torch::nn::Module& module) {
  const std::vector<at::QEngine> engines = at::globalContext().supportedQEngines();
  at::QEngine chosen = at::QEngine::NoQEngine;
  for (const at::QEngine e : {at::QEngine::ONEDNN, at::QEngine::FBGEMM}) {
    for (const at::QEngine s : engines) {
      if (s == e && chosen == at::QEngine::NoQEngine) chosen = e;
    }
  }
  if (chosen == at::QEngine::NoQEngine) {
    return failed_precondition(
        "int8 inference needs LibTorch's ONEDNN or FBGEMM quantized engine; this LibTorch has "
        "neither",
        "run in float (NeuralSegmenterOptions::int8 = false)");
  }
  at::globalContext().setQEngine(chosen);
  std::vector<LinearImpl*> linears;
  for (const std::shared_ptr<torch::nn::Module>& m : module.modules()) {
    auto* linear = dynamic_cast<LinearImpl*>(m.get());
    if (linear != nullptr && !linear->quantized()) linears.push_back(linear);
  }
  try {
    for (LinearImpl* linear : linears) linear->quantize_int8();
  } catch (const std::exception& e) {
    for (LinearImpl* linear : linears) linear->clear_int8();
    return failed_precondition(std::string("int8 packing failed: ") + e.what(),
                               "run in float (NeuralSegmenterOptions::int8 = false)");
  }
  return static_cast<int>(linears.size());  // newly packed
}

}  // namespace morpheus::model
