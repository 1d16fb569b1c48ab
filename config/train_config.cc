// SPDX-License-Identifier: MIT
#include "config/train_config.h"

#include <nlohmann/json.hpp>

#include "core/config_section.h"

namespace morpheus::train {

MORPHEUS_CONFIG_FIELDS(TrainConfig, epochs, max_steps, batch_windows, grad_accum, bucket_batches,
                       skip_chunks, lr, beta1, beta2, eps, weight_decay, grad_clip, warmup_steps,
                       lr_min_ratio, seed, log_every, eval_every, checkpoint_every, dev_max_windows,
                       eval_seed, threads)

Status TrainConfig::validate() const {
  auto bad = [](const std::string& field, const std::string& want) {
    return invalid_argument("train." + field + " must be " + want);
  };
  if (epochs < 1 || epochs > 1000000) return bad("epochs", "in [1, 1e6]");
  if (max_steps < 0) return bad("max_steps", ">= 0");
  if (batch_windows < 1 || batch_windows > 1000000) return bad("batch_windows", "in [1, 1e6]");
  if (grad_accum < 1 || grad_accum > 1024) return bad("grad_accum", "in [1, 1024]");
  if (bucket_batches < 1) return bad("bucket_batches", ">= 1");
  if (!(lr > 0)) return bad("lr", "> 0");
  if (!(beta1 >= 0 && beta1 < 1)) return bad("beta1", "in [0, 1)");
  if (!(beta2 >= 0 && beta2 < 1)) return bad("beta2", "in [0, 1)");
  if (!(eps > 0)) return bad("eps", "> 0");
  if (!(weight_decay >= 0)) return bad("weight_decay", ">= 0");
  if (!(grad_clip >= 0)) return bad("grad_clip", ">= 0");
  if (warmup_steps < 0) return bad("warmup_steps", ">= 0");
  if (!(lr_min_ratio >= 0 && lr_min_ratio <= 1)) return bad("lr_min_ratio", "in [0, 1]");
  if (log_every < 1) return bad("log_every", ">= 1");
  if (eval_every < 0) return bad("eval_every", ">= 0");
  if (checkpoint_every < 0) return bad("checkpoint_every", ">= 0");
  if (dev_max_windows < 0) return bad("dev_max_windows", ">= 0");
  if (threads < 0) return bad("threads", ">= 0");
  return ok_status();
}

}  // namespace morpheus::train
