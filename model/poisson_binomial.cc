// SPDX-License-Identifier: MIT
// Poisson–binomial DP forward/backward: tensor-op and fused CPU versions, autograd wrapper.
#include "model/poisson_binomial.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

namespace morpheus::model {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Unmasked DP table F [N,T,S] (F[:,j] = f_j) from probs [N,T-1].
torch::Tensor pb_forward_tensor_ops(const torch::Tensor& probs, int64_t s) {
  const int64_t n = probs.size(0), t = probs.size(1) + 1;
  torch::Tensor table = torch::zeros({n, t, s}, probs.options());
  torch::Tensor f = torch::zeros({n, s}, probs.options());
  f.select(1, 0).fill_(1.0);
  table.select(1, 0).copy_(f);
  torch::Tensor ones = torch::ones({n, 1}, probs.options());
  torch::Tensor zeros = torch::zeros({n, 1}, probs.options());
  for (int64_t j = 1; j < t; ++j) {
    torch::Tensor p = probs.slice(1, j - 1, j);                              // [N,1]
    torch::Tensor stay = torch::cat({(1 - p).expand({n, s - 1}), ones}, 1);  // sink keeps all
    torch::Tensor move = torch::cat({zeros, f.slice(1, 0, s - 1) * p}, 1);
    f = f * stay + move;
    table.select(1, j).copy_(f);
  }
  return table;
}

// grad probs [N,T-1] from g = dL/dF [N,T,S] (already masked), table F and probs.
torch::Tensor pb_backward_tensor_ops(const torch::Tensor& g, const torch::Tensor& table,
                                     const torch::Tensor& probs) {
  const int64_t t = probs.size(1) + 1, s = table.size(2);
  torch::Tensor grad_p = torch::zeros_like(probs);
  torch::Tensor lam = g.select(1, t - 1).clone();  // λ_{T-1}
  for (int64_t j = t - 1; j >= 1; --j) {
    torch::Tensor p = probs.slice(1, j - 1, j);  // [N,1]
    torch::Tensor fprev = table.select(1, j - 1).slice(1, 0, s - 1);
    torch::Tensor lo = lam.slice(1, 0, s - 1), hi = lam.slice(1, 1, s);
    grad_p.select(1, j - 1).copy_((fprev * (hi - lo)).sum(1));
    torch::Tensor prev_inner = (1 - p) * lo + p * hi;  // k < S-1
    lam = g.select(1, j - 1) + torch::cat({prev_inner, lam.slice(1, s - 1, s)}, 1);
  }
  return grad_p;
}

constexpr int64_t kPbGrain = 64;  // words per parallel_for task

// Fused forward: rows j < lengths[w] hold f_j, rows >= lengths[w] are 0. probs [N,T-1].
torch::Tensor pb_forward_fused(const torch::Tensor& probs_in, const torch::Tensor& lengths_in,
                               int64_t s) {
  TORCH_CHECK(probs_in.device().is_cpu(), "fused Poisson-binomial kernel needs CPU tensors");
  torch::Tensor probs = probs_in.contiguous();
  torch::Tensor lengths = lengths_in.to(torch::kLong).contiguous();
  const int64_t n = probs.size(0), gaps = probs.size(1), t = gaps + 1;
  torch::Tensor out = torch::empty({n, t, s}, probs.options());
  AT_DISPATCH_FLOATING_TYPES(probs.scalar_type(), "pb_forward_fused", [&] {
    const scalar_t* p_all = probs.data_ptr<scalar_t>();
    const int64_t* len_all = lengths.data_ptr<int64_t>();
    scalar_t* f_all = out.data_ptr<scalar_t>();
    at::parallel_for(0, n, kPbGrain, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) {
        const scalar_t* p = p_all + w * gaps;
        scalar_t* f = f_all + w * t * s;
        const int64_t len = std::min(std::max<int64_t>(len_all[w], 0), t);
        std::fill(f + len * s, f + t * s, scalar_t(0));
        if (len == 0) continue;
        for (int64_t k = 0; k < s; ++k) f[k] = k == 0 ? scalar_t(1) : scalar_t(0);
        for (int64_t j = 1; j < len; ++j) {
          const scalar_t* prev = f + (j - 1) * s;
          scalar_t* cur = f + j * s;
          const scalar_t pj = p[j - 1], qj = scalar_t(1) - pj;
          cur[0] = prev[0] * qj;
          for (int64_t k = 1; k < s - 1; ++k) cur[k] = prev[k] * qj + prev[k - 1] * pj;
          cur[s - 1] = prev[s - 1] + prev[s - 2] * pj;
        }
      }
    });
  });
  return out;
}

// Fused backward over rows j < lengths[w] (rows beyond carry no gradient); gaps >= len−1 get 0.
torch::Tensor pb_backward_fused(const torch::Tensor& g_in, const torch::Tensor& table_in,
                                const torch::Tensor& probs_in, const torch::Tensor& lengths_in) {
  torch::Tensor g = g_in.contiguous(), table = table_in.contiguous();
  torch::Tensor probs = probs_in.contiguous();
  torch::Tensor lengths = lengths_in.to(torch::kLong).contiguous();
  const int64_t n = probs.size(0), gaps = probs.size(1), t = gaps + 1, s = table.size(2);
  torch::Tensor grad_p = torch::zeros_like(probs);
  AT_DISPATCH_FLOATING_TYPES(probs.scalar_type(), "pb_backward_fused", [&] {
    const scalar_t* p_all = probs.data_ptr<scalar_t>();
    const scalar_t* f_all = table.data_ptr<scalar_t>();
    const scalar_t* g_all = g.data_ptr<scalar_t>();
    const int64_t* len_all = lengths.data_ptr<int64_t>();
    scalar_t* gp_all = grad_p.data_ptr<scalar_t>();
    at::parallel_for(0, n, kPbGrain, [&](int64_t begin, int64_t end) {
      std::vector<scalar_t> lam(static_cast<size_t>(s)), next(static_cast<size_t>(s));
      for (int64_t w = begin; w < end; ++w) {
        const int64_t len = std::min(std::max<int64_t>(len_all[w], 0), t);
        if (len <= 1) continue;
        const scalar_t* p = p_all + w * gaps;
        const scalar_t* f = f_all + w * t * s;
        const scalar_t* gw = g_all + w * t * s;
        scalar_t* gp = gp_all + w * gaps;
        for (int64_t k = 0; k < s; ++k) lam[k] = gw[(len - 1) * s + k];
        for (int64_t j = len - 1; j >= 1; --j) {
          const scalar_t* prev = f + (j - 1) * s;
          const scalar_t* gprev = gw + (j - 1) * s;
          const scalar_t pj = p[j - 1], qj = scalar_t(1) - pj;
          scalar_t acc = 0;
          for (int64_t k = 0; k < s - 1; ++k) {
            acc += prev[k] * (lam[k + 1] - lam[k]);
            next[k] = gprev[k] + qj * lam[k] + pj * lam[k + 1];
          }
          next[s - 1] = gprev[s - 1] + lam[s - 1];
          gp[j - 1] = acc;
          std::swap(lam, next);
        }
      }
    });
  });
  return grad_p;
}

enum PbMode : int64_t { kPbTensorOps = 0, kPbFusedPrefix = 1, kPbFusedGeneral = 2 };

struct PoissonBinomialFunction : public torch::autograd::Function<PoissonBinomialFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& probs,
                               const torch::Tensor& mask, int64_t s, bool fused) {
    const auto dtype = probs.scalar_type();
    if (!fused) {
      torch::Tensor table = pb_forward_tensor_ops(probs, s);
      ctx->save_for_backward({probs, table, mask});
      ctx->saved_data["mode"] = int64_t{kPbTensorOps};
      return table * mask.unsqueeze(-1).to(dtype);
    }
    const int64_t t = mask.size(1);
    torch::Tensor lengths = mask.sum(1);
    const bool prefix =
        torch::equal(mask, torch::arange(t, lengths.options()).unsqueeze(0) < lengths.unsqueeze(1));
    if (prefix) {  // valid positions are 0..len-1: padded rows written as 0, never read back
      torch::Tensor out = pb_forward_fused(probs, lengths, s);
      ctx->save_for_backward({probs, out, lengths});
      ctx->saved_data["mode"] = int64_t{kPbFusedPrefix};
      return out;
    }
    torch::Tensor full = torch::full({mask.size(0)}, t, lengths.options());
    torch::Tensor table = pb_forward_fused(probs, full, s);
    ctx->save_for_backward({probs, table, mask});
    ctx->saved_data["mode"] = int64_t{kPbFusedGeneral};
    return table * mask.unsqueeze(-1).to(dtype);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const variable_list saved = ctx->get_saved_variables();
    const torch::Tensor& probs = saved[0];
    const torch::Tensor& table = saved[1];
    const int64_t mode = ctx->saved_data["mode"].toInt();
    torch::Tensor grad_p;
    if (mode == kPbFusedPrefix) {
      grad_p = pb_backward_fused(grad_outputs[0], table, probs, saved[2]);
    } else {
      const torch::Tensor& mask = saved[2];
      torch::Tensor g = grad_outputs[0] * mask.unsqueeze(-1).to(table.dtype());
      grad_p = mode == kPbTensorOps
                   ? pb_backward_tensor_ops(g, table, probs)
                   : pb_backward_fused(g, table, probs,
                                       torch::full({mask.size(0)}, mask.size(1),
                                                   torch::TensorOptions().dtype(torch::kLong)));
    }
    return {grad_p, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

void check_pb_inputs(const torch::Tensor& probs, const torch::Tensor& mask, int64_t s) {
  TORCH_CHECK(probs.dim() == 2, "probs must be [N,T-1], got ", probs.sizes());
  TORCH_CHECK(probs.is_floating_point(), "probs must be floating point, got ", probs.dtype());
  TORCH_CHECK(mask.dim() == 2 && mask.dtype() == torch::kBool && mask.size(0) == probs.size(0) &&
                  mask.size(1) == probs.size(1) + 1,
              "mask must be bool [N,T] = [", probs.size(0), ",", probs.size(1) + 1, "], got ",
              mask.sizes(), " ", mask.dtype());
  TORCH_CHECK(s >= 2, "num_segments must be >= 2, got ", s);
}

}  // namespace

torch::Tensor soft_membership(const torch::Tensor& probs, const torch::Tensor& mask,
                              int64_t num_segments, SegmentationKernel kernel) {
  check_pb_inputs(probs, mask, num_segments);
  bool fused = false;
  switch (kernel) {
    case SegmentationKernel::kAuto:
      fused = probs.device().is_cpu();
      break;
    case SegmentationKernel::kTensorOps:
      fused = false;
      break;
    case SegmentationKernel::kFused:
      TORCH_CHECK(probs.device().is_cpu(), "SegmentationKernel::kFused needs CPU tensors");
      fused = true;
      break;
  }
  return PoissonBinomialFunction::apply(probs, mask, num_segments, fused);
}

torch::Tensor soft_membership_naive(const torch::Tensor& probs, const torch::Tensor& mask,
                                    int64_t num_segments) {
  check_pb_inputs(probs, mask, num_segments);
  const int64_t n = probs.size(0), t = probs.size(1) + 1, s = num_segments;
  torch::Tensor f =
      torch::nn::functional::one_hot(torch::zeros({n}, torch::kLong), s).to(probs.options());
  std::vector<torch::Tensor> rows{f};
  for (int64_t j = 1; j < t; ++j) {
    torch::Tensor p = probs.slice(1, j - 1, j);
    torch::Tensor head = f.slice(1, 0, s - 1);
    torch::Tensor stay =
        torch::nn::functional::pad(head * (1 - p), torch::nn::functional::PadFuncOptions({0, 1}));
    torch::Tensor move =
        torch::nn::functional::pad(head * p, torch::nn::functional::PadFuncOptions({1, 0}));
    torch::Tensor sink = torch::nn::functional::pad(
        f.slice(1, s - 1, s), torch::nn::functional::PadFuncOptions({s - 1, 0}));
    f = stay + move + sink;
    rows.push_back(f);
  }
  return torch::stack(rows, 1) * mask.unsqueeze(-1).to(probs.dtype());
}

}  // namespace morpheus::model
