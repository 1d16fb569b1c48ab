// SPDX-License-Identifier: MIT
#include "lm_data/lm_config.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/config_section.h"

namespace morpheus::lm {

MORPHEUS_CONFIG_FIELDS(LmConfig, layers, heads, d_model, equalize_vocab, context, dropout,
                       batch_size, steps, lr, beta1, beta2, eps, weight_decay, warmup_steps,
                       lr_min_ratio, grad_clip, seed, log_every, eval_every, checkpoint_every,
                       eval_batch, threads, note)

Status LmConfig::validate() const {
  auto bad = [](const std::string& field, const std::string& want) {
    return invalid_argument("lm." + field + " must be " + want);
  };
  if (layers < 1 || layers > 256) return bad("layers", "in [1, 256]");
  if (heads < 1 || heads > 256) return bad("heads", "in [1, 256]");
  if (d_model < heads || d_model % heads != 0 || d_model > 65536) {
    return bad("d_model", "a multiple of lm.heads in [heads, 65536]");
  }
  if (equalize_vocab < 0) return bad("equalize_vocab", ">= 0");
  if (context < 2 || context > 65536) return bad("context", "in [2, 65536]");
  if (!(dropout >= 0 && dropout < 1)) return bad("dropout", "in [0, 1)");
  if (batch_size < 1 || batch_size > 1000000) return bad("batch_size", "in [1, 1e6]");
  if (steps < 1 || steps > 1000000000) return bad("steps", "in [1, 1e9]");
  if (!(lr > 0)) return bad("lr", "> 0");
  if (!(beta1 >= 0 && beta1 < 1)) return bad("beta1", "in [0, 1)");
  if (!(beta2 >= 0 && beta2 < 1)) return bad("beta2", "in [0, 1)");
  if (!(eps > 0)) return bad("eps", "> 0");
  if (!(weight_decay >= 0)) return bad("weight_decay", ">= 0");
  if (warmup_steps < 0) return bad("warmup_steps", ">= 0");
  if (!(lr_min_ratio >= 0 && lr_min_ratio <= 1)) return bad("lr_min_ratio", "in [0, 1]");
  if (!(grad_clip >= 0)) return bad("grad_clip", ">= 0");
  if (log_every < 1) return bad("log_every", ">= 1");
  if (eval_every < 0) return bad("eval_every", ">= 0");
  if (checkpoint_every < 0) return bad("checkpoint_every", ">= 0");
  if (eval_batch < 1) return bad("eval_batch", ">= 1");
  if (threads < 0) return bad("threads", ">= 0");
  return ok_status();
}

double parameter_budget(const LmConfig& c) {
  const auto d = static_cast<double>(c.d_model);
  return static_cast<double>(c.equalize_vocab) * d + 12.0 * static_cast<double>(c.layers) * d * d +
         static_cast<double>(c.context) * d;
}

int64_t model_width(const LmConfig& c, int64_t vocab) {
  if (c.equalize_vocab == 0) return c.d_model;
  // 12·L·d² + (V + T)·d − budget = 0, the positive root.
  const double a = 12.0 * static_cast<double>(c.layers);
  const double b = static_cast<double>(vocab + c.context);
  const double d = (-b + std::sqrt(b * b + 4.0 * a * parameter_budget(c))) / (2.0 * a);
  const auto units = static_cast<int64_t>(std::llround(d / static_cast<double>(c.heads)));
  return std::max<int64_t>(1, units) * c.heads;
}

}  // namespace morpheus::lm
