// SPDX-License-Identifier: MIT
#include "lm/tied_head.h"

#include <torch/autograd.h>

#include <algorithm>

namespace morpheus::lm {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

void check_head_inputs(const torch::Tensor& h, const torch::Tensor& w,
                       const torch::Tensor& targets) {
  TORCH_CHECK(h.dim() == 2 && w.dim() == 2 && h.size(1) == w.size(1),
              "tied head: h must be [N,D] and w [V,D], got ", h.sizes(), " and ", w.sizes());
  TORCH_CHECK(
      targets.dim() == 1 && targets.size(0) == h.size(0) && targets.scalar_type() == torch::kLong,
      "tied head: targets must be int64 [", h.size(0), "], got ", targets.sizes(), " ",
      targets.dtype());
}

struct TiedHeadCrossEntropy : public torch::autograd::Function<TiedHeadCrossEntropy> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& h, const torch::Tensor& w,
                               const torch::Tensor& targets, int64_t rows) {
    const int64_t n = h.size(0);
    torch::Tensor dh = torch::empty_like(h);
    torch::Tensor dw = torch::zeros_like(w);
    torch::Tensor total = torch::zeros({}, h.options().dtype(torch::kDouble));
    const double inv_n = 1.0 / static_cast<double>(n);
    for (int64_t start = 0; start < n; start += rows) {
      const int64_t len = std::min(rows, n - start);
      const torch::Tensor hc = h.narrow(0, start, len);
      const torch::Tensor tc = targets.narrow(0, start, len).unsqueeze(1);
      torch::Tensor g = torch::log_softmax(torch::mm(hc, w.t()), 1);  // [len,V]
      total -= g.gather(1, tc).sum().to(torch::kDouble);
      g.exp_().scatter_add_(1, tc, torch::full({len, 1}, -1.0, g.options()));  // softmax − 1-hot
      torch::Tensor dh_chunk = dh.narrow(0, start, len);
      torch::mm_out(dh_chunk, g, w);
      dw.addmm_(g.t(), hc);
    }
    dh.mul_(inv_n);
    dw.mul_(inv_n);
    ctx->saved_data["dh"] = dh;
    ctx->saved_data["dw"] = dw;
    return (total * inv_n).to(h.scalar_type());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor& g = grad_outputs[0];
    return {ctx->saved_data["dh"].toTensor() * g, ctx->saved_data["dw"].toTensor() * g,
            torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

int64_t head_chunk_rows(int64_t vocab, int64_t width, const torch::Device& device) {
  const int64_t elements = device.is_cuda() ? (int64_t{1} << 26) : (int64_t{1} << 21);
  return std::max({int64_t{1}, elements / std::max<int64_t>(1, vocab), 4 * width});
}

torch::Tensor tied_head_cross_entropy(const torch::Tensor& h, const torch::Tensor& w,
                                      const torch::Tensor& targets, int64_t chunk_rows) {
  check_head_inputs(h, w, targets);
  const int64_t rows =
      chunk_rows > 0 ? chunk_rows : head_chunk_rows(w.size(0), w.size(1), h.device());
  return TiedHeadCrossEntropy::apply(h, w, targets, rows);
}

double tied_head_nll(const torch::Tensor& h, const torch::Tensor& w, const torch::Tensor& targets,
                     int64_t chunk_rows) {
  check_head_inputs(h, w, targets);
  torch::NoGradGuard no_grad;
  const int64_t n = h.size(0);
  const int64_t rows =
      chunk_rows > 0 ? chunk_rows : head_chunk_rows(w.size(0), w.size(1), h.device());
  torch::Tensor total = torch::zeros({}, h.options().dtype(torch::kDouble));
  for (int64_t start = 0; start < n; start += rows) {
    const int64_t len = std::min(rows, n - start);
    const torch::Tensor logp = torch::log_softmax(torch::mm(h.narrow(0, start, len), w.t()), 1);
    total -= logp.gather(1, targets.narrow(0, start, len).unsqueeze(1)).sum().to(torch::kDouble);
  }
  return total.item<double>();
}

torch::Tensor tied_head_token_nll(const torch::Tensor& h, const torch::Tensor& w,
                                  const torch::Tensor& targets, int64_t chunk_rows) {
  check_head_inputs(h, w, targets);
  torch::NoGradGuard no_grad;
  const int64_t n = h.size(0);
  const int64_t rows =
      chunk_rows > 0 ? chunk_rows : head_chunk_rows(w.size(0), w.size(1), h.device());
  torch::Tensor out = torch::empty({n}, h.options());
  for (int64_t start = 0; start < n; start += rows) {
    const int64_t len = std::min(rows, n - start);
    const torch::Tensor logp = torch::log_softmax(torch::mm(h.narrow(0, start, len), w.t()), 1);
    out.narrow(0, start, len)
        .copy_(logp.gather(1, targets.narrow(0, start, len).unsqueeze(1)).squeeze(1).neg());
  }
  return out;
}

}  // namespace morpheus::lm
