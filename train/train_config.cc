// SPDX-License-Identifier: MIT
#include "train/train_config.h"

#include <nlohmann/json.hpp>

#include "core/json_config.h"

namespace morpheus::train {

using nlohmann::json;

void to_json(json& j, const TrainConfig& c) {
  j = json{{"epochs", c.epochs},
           {"max_steps", c.max_steps},
           {"batch_windows", c.batch_windows},
           {"grad_accum", c.grad_accum},
           {"bucket_batches", c.bucket_batches},
           {"skip_chunks", c.skip_chunks},
           {"lr", c.lr},
           {"beta1", c.beta1},
           {"beta2", c.beta2},
           {"eps", c.eps},
           {"weight_decay", c.weight_decay},
           {"grad_clip", c.grad_clip},
           {"warmup_steps", c.warmup_steps},
           {"lr_min_ratio", c.lr_min_ratio},
           {"seed", c.seed},
           {"log_every", c.log_every},
           {"eval_every", c.eval_every},
           {"checkpoint_every", c.checkpoint_every},
           {"dev_max_windows", c.dev_max_windows},
           {"eval_seed", c.eval_seed},
           {"threads", c.threads}};
}

void add_train_config_defaults(json& defaults) { defaults["train"] = TrainConfig{}; }

StatusOr<TrainConfig> train_config_from_json(const json& resolved, const std::string& where) {
  json merged = TrainConfig{};
  if (resolved.contains("train")) {
    MORPHEUS_RETURN_IF_ERROR(merge_config(merged, resolved.at("train"), where + ": train"));
  }
  TrainConfig c;
  c.epochs = merged.at("epochs").get<int64_t>();
  c.max_steps = merged.at("max_steps").get<int64_t>();
  c.batch_windows = merged.at("batch_windows").get<int64_t>();
  c.grad_accum = merged.at("grad_accum").get<int64_t>();
  c.bucket_batches = merged.at("bucket_batches").get<int64_t>();
  c.skip_chunks = merged.at("skip_chunks").get<bool>();
  c.lr = merged.at("lr").get<double>();
  c.beta1 = merged.at("beta1").get<double>();
  c.beta2 = merged.at("beta2").get<double>();
  c.eps = merged.at("eps").get<double>();
  c.weight_decay = merged.at("weight_decay").get<double>();
  c.grad_clip = merged.at("grad_clip").get<double>();
  c.warmup_steps = merged.at("warmup_steps").get<int64_t>();
  c.lr_min_ratio = merged.at("lr_min_ratio").get<double>();
  c.seed = merged.at("seed").get<int64_t>();
  c.log_every = merged.at("log_every").get<int64_t>();
  c.eval_every = merged.at("eval_every").get<int64_t>();
  c.checkpoint_every = merged.at("checkpoint_every").get<int64_t>();
  c.dev_max_windows = merged.at("dev_max_windows").get<int64_t>();
  c.eval_seed = merged.at("eval_seed").get<int64_t>();
  c.threads = merged.at("threads").get<int64_t>();
  Status valid = c.Validate();
  if (!valid.ok()) return valid.prepend(where);
  return c;
}

Status TrainConfig::Validate() const {
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
