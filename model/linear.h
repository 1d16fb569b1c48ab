// SPDX-License-Identifier: MIT
// Linear: torch::nn::Linear (same parameters, names, initialisation and checkpoint layout) that
// can switch to dynamic int8 inference.
//   forward(x [..., in] float) -> [..., out] float.
//   quantize_int8(): packs the weight once (per-output-channel symmetric int8, bias in float) for
//     LibTorch's quantized::linear_dynamic, which quantises each input batch on the fly. From then
//     on forward() runs in int8 when the calling thread is inside an Int8Scope, the module is in
//     eval mode and x is on the CPU; everything else keeps the float path, so one model serves
//     both (a segmenter in int8, embeddings in float). The packed copy is not updated when the
//     weight changes: quantise after loading, for inference only.
// quantize_dynamic_int8(module) does it for every Linear of a module tree. It needs LibTorch's
// ONEDNN (or FBGEMM) quantized engine on the CPU: Debian's LibTorch 1.13 has ONEDNN and QNNPACK,
// no FBGEMM; QNNPACK is 4–25× slower than float there (bench/inference_bench --quant-probe 1), so
// it is not used.
#pragma once

#include <ATen/core/ivalue.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include "core/status.h"

namespace morpheus::model {

class LinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;
  // x [..., in] -> [..., out]; int8 once quantize_int8() ran, in eval mode, on the CPU.
  torch::Tensor forward(const torch::Tensor& x);
  // Packs the current weight for int8 inference (the quantized engine must already be set).
  void quantize_int8();
  // Back to the float path.
  void clear_int8() { packed_ = c10::IValue(); }
  bool quantized() const { return !packed_.isNone(); }

 private:
  c10::IValue packed_;  // LinearPackedParamsBase, None until quantize_int8()
};
TORCH_MODULE(Linear);

// While alive, packed Linear layers called on this thread run in int8 (when `enabled`); nests.
class Int8Scope {
 public:
  explicit Int8Scope(bool enabled);
  ~Int8Scope();
  Int8Scope(const Int8Scope&) = delete;
  Int8Scope& operator=(const Int8Scope&) = delete;
  static bool active();  // on this thread

 private:
  bool previous_;
};

// Selects the int8 engine (ONEDNN, else FBGEMM) and packs every Linear of `module` (and its
// submodules) for int8 inference; layers already packed are kept. Error (FAILED_PRECONDITION)
// when no usable engine is built in: the module is then left in float. Returns the number of
// layers newly packed.
StatusOr<int> quantize_dynamic_int8(torch::nn::Module& module);

}  // namespace morpheus::model
