// SPDX-License-Identifier: MIT
#include "train/trainer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "config/model_config.h"
#include "config/train_config.h"
#include "core/config_section.h"
#include "core/file_util.h"
#include "core/json_config.h"
#include "core/logging.h"
#include "core/lr_schedule.h"
#include "core/progress.h"
#include "eval/training_curves.h"
#include "model/checkpoint.h"
#include "model/losses.h"
#include "model/runtime.h"
#include "prepare/cache.h"
#include "prepare/vocab.h"
#include "tokenizer/char_vocab.h"
#include "train/batcher.h"

namespace morpheus::train {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kTrainerStateVersion = 1;

struct TrainData {
  CacheReader train;
  CacheReader dev;
  torch::Tensor word_counts;  // [V] float64 raw counts (for the SGNS negative distribution)
  uint32_t char_vocab_size = 0;
  uint32_t word_vocab_size = 0;
  uint32_t root_vocab_size = 0;
};

StatusOr<TrainData> load_train_data(const std::string& dir) {
  const std::string hint = "run `morpheus prepare --out " + dir + "` first";
  for (const char* name :
       {"train.cache", "dev.cache", "char_vocab.json", "words.tsv", "roots.tsv"}) {
    if (!file_exists(path_join(dir, name))) {
      return not_found(path_join(dir, name) + " is missing", hint);
    }
  }
  MORPHEUS_ASSIGN_OR_RETURN(CacheReader train, CacheReader::open(path_join(dir, "train.cache")));
  MORPHEUS_ASSIGN_OR_RETURN(CacheReader dev, CacheReader::open(path_join(dir, "dev.cache")));
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::CharVocab chars,
                            tokenizer::CharVocab::load(path_join(dir, "char_vocab.json")));
  MORPHEUS_ASSIGN_OR_RETURN(CountVocab words, CountVocab::load(path_join(dir, "words.tsv")));
  MORPHEUS_ASSIGN_OR_RETURN(CountVocab roots, CountVocab::load(path_join(dir, "roots.tsv")));
  if (train.num_windows() == 0)
    return failed_precondition(dir + "/train.cache holds no windows", hint);
  TrainData data{std::move(train), std::move(dev), torch::Tensor(),
                 chars.size(),     words.size(),   roots.size()};
  data.word_counts = torch::zeros({static_cast<int64_t>(words.size())}, torch::kFloat64);
  auto acc = data.word_counts.accessor<double, 1>();
  for (uint32_t i = 0; i < words.size(); ++i) acc[i] = static_cast<double>(words.count_of(i));
  return data;
}

// Explicit weight-decay groups: matrices and conv kernels decay; biases, norm gains, mask vectors
// (all 1-D) and every parameter of an Embedding do not.
std::vector<torch::optim::OptimizerParamGroup> parameter_groups(torch::nn::Module& module,
                                                                const TrainConfig& cfg) {
  std::unordered_set<const c10::TensorImpl*> embedding_params;
  for (const auto& m : module.modules(/*include_self=*/true)) {
    if (dynamic_cast<torch::nn::EmbeddingImpl*>(m.get()) != nullptr) {
      for (const auto& p : m->parameters(/*recurse=*/false)) {
        embedding_params.insert(p.unsafeGetTensorImpl());
      }
    }
  }
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& p : module.parameters()) {
    if (!p.requires_grad()) continue;
    if (p.dim() < 2 || embedding_params.count(p.unsafeGetTensorImpl()) != 0) {
      no_decay.push_back(p);
    } else {
      decay.push_back(p);
    }
  }
  auto options = [&](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(cfg.lr)
                                                            .betas({cfg.beta1, cfg.beta2})
                                                            .eps(cfg.eps)
                                                            .weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, options(cfg.weight_decay));
  groups.emplace_back(no_decay, options(0.0));
  return groups;
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
  }
}

torch::Tensor cpu_rng_state() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void set_cpu_rng_state(const torch::Tensor& state) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

// Saves a tensor/optimizer archive to a temp file renamed into place.
template <typename T>
Status save_archive_atomic(const T& value, const std::string& path) {
  const std::string tmp = temp_path_for(path);
  try {
    torch::save(value, tmp);
  } catch (const c10::Error& e) {
    std::remove(tmp.c_str());
    return io_error("cannot write " + path + ": " + e.what_without_backtrace());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return io_error("cannot rename into " + path);
  return ok_status();
}

// Running sums between two metrics rows.
struct Accumulator {
  double total = 0, aux = 0, sgns = 0, ctr = 0, mlm = 0, sfx = 0, grad_norm = 0;
  int64_t micro = 0, steps = 0, words = 0;
  double seconds = 0;
  double exchange_seconds = 0;  // gradient exchange between ranks (0 with one process)
};

void to_json(json& j, const Accumulator& a) {
  j = json{{"total", a.total},
           {"aux", a.aux},
           {"sgns", a.sgns},
           {"ctr", a.ctr},
           {"mlm", a.mlm},
           {"sfx", a.sfx},
           {"grad_norm", a.grad_norm},
           {"micro", a.micro},
           {"steps", a.steps},
           {"words", a.words},
           {"seconds", a.seconds},
           {"exchange_seconds", a.exchange_seconds}};
}

void from_json(const json& j, Accumulator& a) {
  a.total = j.at("total");
  a.aux = j.at("aux");
  a.sgns = j.at("sgns");
  a.ctr = j.at("ctr");
  a.mlm = j.at("mlm");
  a.sfx = j.value("sfx", 0.0);  // checkpoints written before the suffix loss
  a.grad_norm = j.at("grad_norm");
  a.micro = j.at("micro");
  a.steps = j.at("steps");
  a.words = j.at("words");
  a.seconds = j.at("seconds");
  a.exchange_seconds = j.value("exchange_seconds", 0.0);
}

struct LoopState {
  int64_t step = 0;            // optimiser steps done
  int64_t epoch = 0;           // current epoch
  int64_t micro = 0;           // next micro-batch of the epoch plan
  int64_t global_micro = 0;    // micro-batches seen in the whole run
  int64_t skipped = 0;         // micro-batches skipped by the NaN guard
  int64_t micro_per_step = 0;  // world size × grad_accum (the global batch in micro-batches)
  Accumulator acc;
};

// Dev evaluation with fixed seeds: boundary P/R/F1 on interior gaps (1 ≤ g < length) and the
// unweighted per-objective losses, averaged over words.
json evaluate_dev(model::MorpheusWithHeads& module, const CacheReader& dev, const TrainConfig& cfg,
                  const model::ModelConfig& mcfg, const torch::Device& device) {
  torch::NoGradGuard no_grad;
  const torch::Tensor saved_rng = cpu_rng_state();
  torch::manual_seed(static_cast<uint64_t>(cfg.eval_seed));
  module->eval();
  const EpochPlan plan = plan_sequential(dev.num_windows(), cfg.batch_windows, cfg.dev_max_windows);
  model::LossWeights weights{1.0, mcfg.sgns_weight > 0 ? 1.0 : 0.0, mcfg.ctr_weight > 0 ? 1.0 : 0.0,
                             mcfg.use_mlm ? 1.0 : 0.0, mcfg.sfx_weight > 0 ? 1.0 : 0.0};
  const double logit_threshold = std::log(mcfg.threshold / (1.0 - mcfg.threshold));
  // Sums on the device, read once at the end: aux, sgns, ctr, mlm, sfx (each × words), words,
  // then the interior-gap counts tp, fp, fn, tn.
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(device);
  torch::Tensor sums = torch::zeros({10}, f64);
  for (const auto& windows : plan) {
    model::MorpheusBatch cpu = make_batch(dev, windows, mcfg.max_word_len, cfg.skip_chunks);
    const int64_t n = cpu.char_ids.size(0);
    if (n == 0) continue;
    model::MorpheusBatch batch = cpu.to(device);
    model::LossOutput out = module->compute_losses(batch, weights);
    const auto lengths = (batch.char_ids != model::kPadId).sum(1) - 2;  // characters
    const auto g = torch::arange(batch.char_ids.size(1) - 1, batch.char_ids.options());
    const auto interior = (g.unsqueeze(0) >= 1) & (g.unsqueeze(0) < lengths.unsqueeze(1));
    const auto pred = out.boundary_logits > logit_threshold;
    const auto gold = batch.boundary_labels > 0.5;
    const double words = static_cast<double>(n);
    const auto weighted = [&](const torch::Tensor& loss) {
      return loss.to(torch::kFloat64) * words;
    };
    const auto count = [&](const torch::Tensor& t) {
      return (t & interior).sum().to(torch::kFloat64);
    };
    sums.add_(
        torch::stack({weighted(out.aux), weighted(out.sgns), weighted(out.ctr), weighted(out.mlm),
                      weighted(out.sfx), torch::full({}, words, f64), count(pred & gold),
                      count(pred & ~gold), count(~pred & gold), count(~pred & ~gold)}));
  }
  module->train();
  set_cpu_rng_state(saved_rng);
  const torch::Tensor host = sums.to(torch::kCPU);
  const double* v = host.data_ptr<double>();
  const double aux = v[0], sgns = v[1], ctr = v[2], mlm = v[3], sfx = v[4], words = v[5];
  const double tp = v[6], fp = v[7], fn = v[8], tn = v[9];
  const double p = tp / std::max(1.0, tp + fp);
  const double r = tp / std::max(1.0, tp + fn);
  const double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0.0;
  const double w = std::max(1.0, words);
  return json{{"boundary_precision", p},
              {"boundary_recall", r},
              {"boundary_f1", f1},
              {"boundary_accuracy", (tp + tn) / std::max(1.0, tp + fp + fn + tn)},
              {"interior_gaps", tp + fp + fn + tn},
              {"words", words},
              {"aux", aux / w},
              {"sgns", sgns / w},
              {"ctr", ctr / w},
              {"mlm", mlm / w},
              {"sfx", sfx / w}};
}

std::string step_dir_name(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "step-%08lld", static_cast<long long>(step));
  return buf;
}

Status save_training_state(const std::string& out_dir, model::MorpheusWithHeads& module,
                           torch::optim::Optimizer& optimizer, const LoopState& state,
                           const json& config, const std::string& data_dir) {
  const std::string ckpt_root = path_join(out_dir, "checkpoints");
  MORPHEUS_RETURN_IF_ERROR(make_dirs(ckpt_root));
  const std::string name = step_dir_name(state.step);
  const std::string dir = path_join(ckpt_root, name);
  model::CheckpointExtras extras;
  extras.config_json = config.dump(2);
  MORPHEUS_ASSIGN_OR_RETURN(extras.char_vocab_json,
                            read_file(path_join(data_dir, "char_vocab.json")));
  MORPHEUS_RETURN_IF_ERROR(model::save_checkpoint(dir, module, extras));
  MORPHEUS_RETURN_IF_ERROR(save_archive_atomic(optimizer, path_join(dir, "optimizer.pt")));
  MORPHEUS_RETURN_IF_ERROR(save_archive_atomic(cpu_rng_state(), path_join(dir, "rng.pt")));
  const json st = {{"version", kTrainerStateVersion},
                   {"step", state.step},
                   {"epoch", state.epoch},
                   {"micro", state.micro},
                   {"global_micro", state.global_micro},
                   {"skipped", state.skipped},
                   {"micro_per_step", state.micro_per_step},
                   {"acc", state.acc}};
  // Written last: a step directory without it is incomplete and never used.
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(dir, "trainer_state.json"), st.dump(2)));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(ckpt_root, "latest"), name + "\n"));
  // Keep the newest two complete checkpoints.
  std::vector<std::string> names;
  if (auto listing = read_file(path_join(ckpt_root, "history")); listing.ok()) {
    size_t pos = 0;
    const std::string& text = *listing;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      if (nl > pos && text.substr(pos, nl - pos) != name)
        names.push_back(text.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  names.push_back(name);
  while (names.size() > 2) {
    const std::string old = path_join(ckpt_root, names.front());
    std::error_code ec;
    std::filesystem::remove_all(old, ec);
    if (ec) MORPHEUS_LOG(kWarning, "could not remove old checkpoint ", old, ": ", ec.message());
    names.erase(names.begin());
  }
  std::string history;
  for (const auto& n : names) history += n + "\n";
  return write_file_atomic(path_join(ckpt_root, "history"), history);
}

// Keeps the metrics rows of steps ≤ `step` (a resumed run redoes the later ones).
Status truncate_metrics(const std::string& path, int64_t step) {
  if (!file_exists(path)) return ok_status();
  std::ifstream in(path);
  std::string line, kept;
  while (std::getline(in, line)) {
    try {
      if (json::parse(line).value("step", int64_t{0}) <= step) kept += line + "\n";
    } catch (const json::exception&) {
      break;  // a torn last line of a killed run
    }
  }
  return write_file_atomic(path, kept);
}

// The device of this rank: cuda:LOCAL_RANK for a multi-rank CUDA run given "auto" or "cuda".
StatusOr<torch::Device> rank_device(const TrainOptions& options) {
  MORPHEUS_ASSIGN_OR_RETURN(torch::Device device, model::resolve_device(options.device));
  if (device.is_cuda() && options.dist.world_size > 1 &&
      options.device.find(':') == std::string::npos) {
    MORPHEUS_ASSIGN_OR_RETURN(
        device, model::resolve_device("cuda:" + std::to_string(options.dist.local_rank)));
  }
  return device;
}

// Reads checkpoints/<latest>/trainer_state.json into `state`; the directory name in *dir.
Status restore_loop_state(const std::string& ckpt_root, LoopState* state, std::string* dir) {
  auto latest = read_file(path_join(ckpt_root, "latest"));
  if (!latest.ok()) {
    return not_found("--resume: no checkpoint in " + ckpt_root,
                     "start without --resume, or point --out at an earlier run");
  }
  std::string name = *latest;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  *dir = path_join(ckpt_root, name);
  MORPHEUS_ASSIGN_OR_RETURN(json st, load_json_file(path_join(*dir, "trainer_state.json")));
  try {
    if (st.at("version").get<int>() != kTrainerStateVersion) {
      return data_loss(*dir + "/trainer_state.json: unsupported version");
    }
    state->step = st.at("step");
    state->epoch = st.at("epoch");
    state->micro = st.at("micro");
    state->global_micro = st.at("global_micro");
    state->skipped = st.at("skipped");
    state->micro_per_step = st.value("micro_per_step", int64_t{0});
    state->acc = st.at("acc").get<Accumulator>();
  } catch (const json::exception& e) {
    return data_loss(*dir + "/trainer_state.json: " + e.what());
  }
  return ok_status();
}

// Embedding tables: their gradients are non-zero on the looked-up rows only.
std::vector<bool> embedding_flags(torch::nn::Module& module,
                                  const std::vector<torch::Tensor>& params) {
  std::unordered_set<const c10::TensorImpl*> tables;
  for (const auto& m : module.modules(/*include_self=*/true)) {
    if (auto* e = dynamic_cast<torch::nn::EmbeddingImpl*>(m.get())) {
      tables.insert(e->weight.unsafeGetTensorImpl());
    }
  }
  std::vector<bool> flags;
  for (const auto& p : params) flags.push_back(tables.count(p.unsafeGetTensorImpl()) != 0);
  return flags;
}

// The per-step sums of the statistics, kept as a float64 vector on the training device (summed
// over ranks before they are used): one row per micro-batch, added up per step, and per
// log_every steps in Trainer::dev_acc_.
enum StepSum : int64_t {
  kContributing,  // micro-batches whose loss was finite
  kTotal,         // Σ of the weighted total loss of those micro-batches (also kAux … kMlm)
  kAux,
  kSgns,
  kCtr,
  kMlm,
  kSfx,
  kWords,      // words of those micro-batches
  kSkipped,    // micro-batches left out (non-finite loss)
  kNonFinite,  // micro-batches of this attempt whose loss was non-finite
  kNumStepSums
};

// The StepSum row of one micro-batch: its losses when `total` is finite, else only the
// skipped and non-finite counts (`bad_row`). No host read.
torch::Tensor micro_batch_row(const model::LossOutput& out, const torch::Tensor& total,
                              int64_t words, const torch::Tensor& bad_row) {
  const auto f64 = bad_row.options();
  torch::Tensor losses = torch::stack({total, out.aux, out.sgns, out.ctr, out.mlm, out.sfx});
  torch::Tensor ok =
      torch::cat({torch::ones({1}, f64), losses.to(torch::kFloat64),
                  torch::full({1}, static_cast<double>(words), f64), torch::zeros({2}, f64)});
  return torch::where(torch::isfinite(total), ok, bad_row);
}

// clip_grad_norm_ with LibTorch's ops in its order, the gradients first multiplied by `scale`
// (0-dim float32), and no host read: multiplies every gradient by
// scale · min(1, max_norm / (‖scale·g‖ + 1e-6)) and returns ‖scale·g‖ (0-dim, on the device).
torch::Tensor scale_and_clip_gradients(const std::vector<torch::Tensor>& params,
                                       const torch::Tensor& scale, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> norms;
  for (const auto& p : params) {
    if (p.grad().defined()) norms.push_back(p.grad().norm(2.0));
  }
  if (norms.empty()) return torch::zeros({}, scale.options());
  torch::Tensor norm = (norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2.0)) * scale;
  torch::Tensor coef = torch::clamp(max_norm / (norm + 1e-6), c10::nullopt, 1.0) * scale;
  for (const auto& p : params) {
    if (p.grad().defined()) p.mutable_grad().mul_(coef);
  }
  return norm;
}

// Rank 0's file writes of a run; every other rank writes nothing.
struct RunFiles {
  bool main = true;
  std::FILE* metrics = nullptr;
  ~RunFiles() {
    if (metrics != nullptr) std::fclose(metrics);
  }
  void write_row(const json& row) const {
    if (metrics == nullptr) return;
    const std::string line = row.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), metrics);
    std::fflush(metrics);
  }
};

// Restores the optimiser moments (onto `device`, whatever device wrote them) and the CPU generator
// of checkpoint directory `dir`.
Status restore_optimizer_and_rng(const std::string& dir, torch::optim::Optimizer& optimizer,
                                 const torch::Device& device) {
  try {
    torch::load(optimizer, path_join(dir, "optimizer.pt"), device);
    torch::Tensor rng;
    torch::load(rng, path_join(dir, "rng.pt"));
    set_cpu_rng_state(rng);
  } catch (const c10::Error& e) {
    return data_loss(
        "cannot restore optimizer/RNG state from " + dir + ": " + e.what_without_backtrace(),
        "the checkpoint is damaged; delete it to fall back to the previous one");
  }
  return ok_status();
}

// One training run. create() loads the data, joins the ranks, builds the model and optimiser
// (seeded, or restored from the latest checkpoint with --resume) and plans the steps; run() loops
// over epochs of step()s with a log() row every log_every steps, evaluate() on dev and
// checkpoint()s, then finish() writes the last checkpoint, final/ and the curves.
class Trainer {
 public:
  // `options` must outlive the trainer.
  static StatusOr<std::unique_ptr<Trainer>> create(const TrainOptions& options);
  StatusOr<TrainSummary> run();

 private:
  Trainer(const TrainOptions& options, TrainConfig cfg, TrainData data, torch::Device device)
      : options_(options), cfg_(std::move(cfg)), data_(std::move(data)), device_(device) {}

  Status setup_runtime();  // threads, ranks and the model config with the data's vocab sizes
  Status init_model();     // run directory, module, optimiser and RNG (fresh or resumed)
  Status plan_steps();     // global batch, steps per epoch and in total; opens metrics.jsonl
  Status run_epoch();      // steps until the epoch ends, max_steps, or the after_step hook
  // One optimiser step over this rank's share of the global batch; true when it ended the epoch.
  // The host reads the device once per step (whether the step counts: the non-finite guard and
  // the gradient norm, as a GradScaler does); the losses stay on the device until log().
  StatusOr<bool> step(BatchPrefetcher& prefetch, const model::LossWeights& weights);
  // This rank's micro-batches of the step on the device, with their global positions.
  Status next_micro_batches(BatchPrefetcher& prefetch);
  // Forward and backward of the step's micro-batches but those in `left_out`; their StepSum
  // rows [accum, kNumStepSums] (on the device) go to *rows.
  void forward_backward(const model::LossWeights& weights, const std::vector<bool>& left_out,
                        torch::Tensor* rows);
  // Exchanges the step sums and the gradients over ranks, then rescales and clips them; returns
  // the gradient norm (0-dim, on the device).
  StatusOr<torch::Tensor> exchange_and_clip(torch::Tensor* sums);
  // The optimiser step with the host's reading of the step (unless the gradient is non-finite).
  void apply_gradients(double grad_norm);
  void fold_device_sums();      // adds dev_acc_ to the host running sums and resets it
  void log(double aux_weight);  // one metrics row from the running sums, which it resets
  void evaluate();              // dev evaluation, written as a metrics row (rank 0 only)
  Status checkpoint();          // checkpoints/step-XXXXXXXX/ of the current step
  Status finish();              // last evaluation, checkpoint, final/ and the curves

  const TrainOptions& options_;
  TrainConfig cfg_;
  TrainData data_;
  torch::Device device_;
  int world_ = 1;
  int rank_ = 0;
  int64_t threads_ = 1;
  std::unique_ptr<DataParallel> dp_;
  RunFiles files_;
  json config_;  // options.config with the model's vocabulary sizes from the data
  model::ModelConfig mcfg_;
  std::string metrics_path_;
  LoopState state_;
  model::MorpheusWithHeads module_{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  std::vector<torch::Tensor> params_;
  std::vector<uint32_t> window_len_;
  std::vector<std::pair<int64_t, model::MorpheusBatch>> micro_;  // this step's, on the device
  torch::Tensor bad_row_;  // [kNumStepSums] float64: the StepSum row of a non-finite micro-batch
  torch::Tensor left_out_row_;   // [kNumStepSums] float64: the row of one left out after that
  torch::Tensor dev_acc_;        // [kNumStepSums] float64: Σ of the step sums since the last fold
  int64_t accum_ = 0;            // micro-batches per rank and step
  int64_t per_step_ = 0;         // global batch, micro-batches
  int64_t usable_ = 0;           // micro-batches of an epoch that are used (the odd tail is not)
  int64_t steps_per_epoch_ = 0;  // optimiser steps per epoch
  int64_t total_steps_ = 0;
  TrainSummary summary_;
  std::unique_ptr<ProgressBar> bar_;
  bool stopped_by_hook_ = false;
  int64_t last_eval_step_ = -1;
};

StatusOr<std::unique_ptr<Trainer>> Trainer::create(const TrainOptions& options) {
  MORPHEUS_ASSIGN_OR_RETURN(TrainConfig cfg,
                            section_from_json<TrainConfig>(options.config, "config"));
  MORPHEUS_ASSIGN_OR_RETURN(TrainData data, load_train_data(options.data_dir));
  MORPHEUS_ASSIGN_OR_RETURN(torch::Device device, rank_device(options));
  std::unique_ptr<Trainer> trainer(new Trainer(options, std::move(cfg), std::move(data), device));
  MORPHEUS_RETURN_IF_ERROR(trainer->setup_runtime());
  MORPHEUS_RETURN_IF_ERROR(trainer->init_model());
  MORPHEUS_RETURN_IF_ERROR(trainer->plan_steps());
  return trainer;
}

Status Trainer::setup_runtime() {
  model::configure_device(device_);
  world_ = std::max(1, options_.dist.world_size);
  rank_ = world_ > 1 ? options_.dist.rank : 0;
  const int64_t cores = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  threads_ = cfg_.threads > 0
                 ? cfg_.threads
                 : std::max<int64_t>(1, cores / std::max(1, options_.dist.local_world_size));
  torch::set_num_threads(static_cast<int>(threads_));
  if (world_ > 1) {
    MORPHEUS_ASSIGN_OR_RETURN(
        dp_, DataParallel::join(options_.dist, options_.dist_options,
                                device_.is_cuda() ? static_cast<int>(device_.index()) : -1));
  }
  files_.main = rank_ == 0;

  // The model's vocabulary sizes come from the prepared data.
  config_ = options_.config;
  config_["model"]["char_vocab_size"] = data_.char_vocab_size;
  config_["model"]["word_vocab_size"] = data_.word_vocab_size;
  config_["model"]["root_vocab_size"] = data_.root_vocab_size;
  MORPHEUS_ASSIGN_OR_RETURN(mcfg_, section_from_json<model::ModelConfig>(config_, "config"));
  if (static_cast<uint32_t>(mcfg_.max_word_len) < data_.train.info().max_word_chars + 2) {
    return invalid_argument("model.max_word_len " + std::to_string(mcfg_.max_word_len) +
                                " cannot hold the cache's words of up to " +
                                std::to_string(data_.train.info().max_word_chars) +
                                " characters plus BOS and EOS",
                            "raise model.max_word_len or re-run prepare with a smaller "
                            "prepare.max_word_chars");
  }
  return ok_status();
}

Status Trainer::init_model() {
  const std::string ckpt_root = path_join(options_.out_dir, "checkpoints");
  if (files_.main) {
    MORPHEUS_RETURN_IF_ERROR(make_dirs(options_.out_dir));
    // Temp files and directories of a killed earlier run (a checkpoint it never finished).
    remove_stale_temps_in(options_.out_dir);
    remove_stale_temps_in(ckpt_root);
  }
  metrics_path_ = path_join(options_.out_dir, "metrics.jsonl");
  std::string resume_dir;
  if (options_.resume) {
    MORPHEUS_RETURN_IF_ERROR(restore_loop_state(ckpt_root, &state_, &resume_dir));
    MORPHEUS_ASSIGN_OR_RETURN(module_, model::load_checkpoint(resume_dir));
    if (files_.main) MORPHEUS_RETURN_IF_ERROR(truncate_metrics(metrics_path_, state_.step));
    MORPHEUS_LOG(kInfo, "resuming from ", resume_dir, " at step ", state_.step);
  } else {
    torch::manual_seed(static_cast<uint64_t>(cfg_.seed));
    module_ = model::MorpheusWithHeads(mcfg_);
    module_->sgns->set_unigram_counts(data_.word_counts.to(torch::kFloat32));
    if (files_.main) MORPHEUS_RETURN_IF_ERROR(write_file_atomic(metrics_path_, ""));
  }
  if (files_.main) {
    MORPHEUS_RETURN_IF_ERROR(
        write_file_atomic(path_join(options_.out_dir, "config.json"), config_.dump(2) + "\n"));
  }
  module_->to(device_);
  module_->train();
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(device_);
  std::vector<double> row(kNumStepSums, 0.0);
  row[kSkipped] = 1;
  left_out_row_ = torch::tensor(row, torch::kFloat64).to(device_);
  row[kNonFinite] = 1;
  bad_row_ = torch::tensor(row, torch::kFloat64).to(device_);
  dev_acc_ = torch::zeros({kNumStepSums}, f64);
  optimizer_ = std::make_unique<torch::optim::AdamW>(parameter_groups(*module_, cfg_));
  if (!resume_dir.empty()) {
    MORPHEUS_RETURN_IF_ERROR(restore_optimizer_and_rng(resume_dir, *optimizer_, device_));
  }
  params_ = module_->parameters();
  if (dp_) {
    // Every rank starts from rank 0's values (a fresh run's seeded initialisation is the same on
    // every rank already; this makes it so whatever the ranks loaded).
    std::vector<torch::Tensor> all = params_;
    for (const auto& b : module_->buffers()) all.push_back(b);
    MORPHEUS_RETURN_IF_ERROR(dp_->broadcast(all));
    dp_->set_parameters(params_, embedding_flags(*module_, params_));
  }
  return ok_status();
}

Status Trainer::plan_steps() {
  window_len_ = window_max_lengths(data_.train);
  const int64_t batches_per_epoch =
      (static_cast<int64_t>(data_.train.num_windows()) + cfg_.batch_windows - 1) /
      cfg_.batch_windows;
  if (batches_per_epoch < world_) {
    return invalid_argument(std::to_string(world_) + " ranks but the training data makes only " +
                                std::to_string(batches_per_epoch) + " micro-batches of " +
                                std::to_string(cfg_.batch_windows) + " windows",
                            "lower train.batch_windows or run fewer ranks");
  }
  // Micro-batches per rank and step; fewer when the data has fewer batches than the global step.
  accum_ = std::min(cfg_.grad_accum, batches_per_epoch / world_);
  per_step_ = accum_ * world_;
  usable_ = (batches_per_epoch / per_step_) * per_step_;
  steps_per_epoch_ = usable_ / per_step_;
  total_steps_ = cfg_.max_steps > 0 ? cfg_.max_steps : cfg_.epochs * steps_per_epoch_;
  if (options_.resume && state_.micro_per_step != 0 && state_.micro_per_step != per_step_) {
    return invalid_argument(
        "--resume: the checkpoint's global batch is " + std::to_string(state_.micro_per_step) +
            " micro-batches of " + std::to_string(cfg_.batch_windows) +
            " windows per step; this "
            "run's is " +
            std::to_string(per_step_) + " (" + std::to_string(world_) + " ranks × " +
            std::to_string(accum_) + ")",
        "keep ranks × train.grad_accum equal to the checkpoint's (e.g. --set train.grad_accum=" +
            std::to_string(std::max<int64_t>(1, state_.micro_per_step / world_)) + ")");
  }
  state_.micro_per_step = per_step_;
  MORPHEUS_LOG(kInfo, "training on ", device_.str(), " with ", threads_,
               " threads: ", data_.train.num_windows(), " windows, ", data_.train.num_words(),
               " words, ", steps_per_epoch_, " steps/epoch, ", total_steps_, " steps");
  MORPHEUS_LOG(kInfo, "global batch: ", cfg_.batch_windows, " windows × ", world_, " ranks × ",
               accum_, " accumulation = ", cfg_.batch_windows * per_step_, " windows per step",
               dp_ ? " (" + dp_->backend() + ")" : std::string());
  if (files_.main) {
    files_.metrics = std::fopen(metrics_path_.c_str(), "ab");
    if (files_.metrics == nullptr) return io_error("cannot append to " + metrics_path_);
  }
  return ok_status();
}

StatusOr<TrainSummary> Trainer::run() {
  bar_ = std::make_unique<ProgressBar>("train", static_cast<uint64_t>(total_steps_), "steps");
  bar_->set(static_cast<uint64_t>(state_.step));
  const auto run_start = Clock::now();
  while (state_.step < total_steps_ && !stopped_by_hook_) {
    MORPHEUS_RETURN_IF_ERROR(run_epoch());
  }
  bar_->finish();
  summary_.steps = state_.step;
  summary_.skipped_micro_batches = state_.skipped;
  summary_.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  if (stopped_by_hook_ || !files_.main) return summary_;
  MORPHEUS_RETURN_IF_ERROR(finish());
  return summary_;
}

Status Trainer::run_epoch() {
  const EpochPlan plan = plan_epoch(window_len_, cfg_.batch_windows, cfg_.bucket_batches,
                                    static_cast<uint64_t>(cfg_.seed), state_.epoch);
  // This rank's micro-batches of the epoch, in order.
  EpochPlan local;
  for (size_t k :
       rank_micro_batches(static_cast<size_t>(steps_per_epoch_), world_, rank_, accum_)) {
    local.push_back(plan[k]);
  }
  const double aux_weight = model::aux_weight_for_epoch(mcfg_, state_.epoch);
  const model::LossWeights weights{aux_weight, mcfg_.sgns_weight, mcfg_.ctr_weight,
                                   mcfg_.use_mlm ? mcfg_.mlm_weight : 0.0, mcfg_.sfx_weight};
  BatchPrefetcher prefetch(data_.train, local,
                           static_cast<size_t>(state_.micro / per_step_ * accum_),
                           mcfg_.max_word_len, cfg_.skip_chunks, /*pin_memory=*/device_.is_cuda());
  while (state_.micro + per_step_ <= usable_ && state_.step < total_steps_) {
    MORPHEUS_ASSIGN_OR_RETURN(const bool epoch_end, step(prefetch, weights));
    bar_->set(static_cast<uint64_t>(state_.step));
    if (state_.step % cfg_.log_every == 0 || state_.step == total_steps_) log(aux_weight);
    const bool eval_now = cfg_.eval_every > 0 ? state_.step % cfg_.eval_every == 0 : epoch_end;
    if (eval_now) evaluate();
    const bool ckpt_now =
        cfg_.checkpoint_every > 0 ? state_.step % cfg_.checkpoint_every == 0 : epoch_end;
    if (ckpt_now && state_.step < total_steps_ && files_.main) {
      MORPHEUS_RETURN_IF_ERROR(checkpoint());
    }
    if (options_.after_step && !options_.after_step(state_.step)) {
      stopped_by_hook_ = true;
      break;
    }
    if (epoch_end) break;  // re-plan for the next epoch
  }
  return ok_status();
}

StatusOr<bool> Trainer::step(BatchPrefetcher& prefetch, const model::LossWeights& weights) {
  const auto t0 = Clock::now();
  MORPHEUS_RETURN_IF_ERROR(next_micro_batches(prefetch));
  std::vector<bool> left_out(micro_.size(), false);
  torch::Tensor sums, grad_norm;
  std::vector<double> seen;  // contributing, skipped, non-finite, gradient norm (the one read)
  // A micro-batch with a non-finite loss has poisoned the summed gradients: every rank redoes the
  // step without such micro-batches (same seeds, same draws), once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    optimizer_->zero_grad();
    torch::Tensor rows;
    forward_backward(weights, left_out, &rows);
    sums = rows.sum(0);
    MORPHEUS_ASSIGN_OR_RETURN(grad_norm, exchange_and_clip(&sums));
    torch::Tensor read = torch::stack({sums[kContributing], sums[kSkipped], sums[kNonFinite],
                                       grad_norm.to(torch::kFloat64)})
                             .to(torch::kCPU);
    seen.assign(read.data_ptr<double>(), read.data_ptr<double>() + read.numel());
    if (seen[2] == 0) break;
    const torch::Tensor bad = rows.select(1, kNonFinite).to(torch::kCPU).contiguous();
    for (size_t a = 0; a < micro_.size(); ++a) {
      if (bad.data_ptr<double>()[a] == 0) continue;
      left_out[a] = true;
      MORPHEUS_LOG(kWarning, "step ", state_.step, ": non-finite loss in micro-batch ",
                   micro_[a].first, "; skipped");
    }
  }
  state_.micro += per_step_;
  state_.global_micro += per_step_;
  state_.skipped += static_cast<int64_t>(seen[1]);
  dev_acc_.add_(sums);
  if (seen[0] > 0) apply_gradients(seen[3]);
  state_.acc.micro += static_cast<int64_t>(seen[0]);
  ++state_.step;
  state_.acc.steps += 1;
  state_.acc.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  const bool epoch_end = state_.micro + per_step_ > usable_;
  if (epoch_end) {
    ++state_.epoch;
    state_.micro = 0;
  }
  return epoch_end;
}

Status Trainer::next_micro_batches(BatchPrefetcher& prefetch) {
  micro_.clear();
  for (int64_t a = 0; a < accum_; ++a) {
    model::MorpheusBatch cpu;
    if (!prefetch.next(&cpu)) return internal_error("batch plan ended early");
    micro_.emplace_back(state_.global_micro + rank_ * accum_ + a,
                        cpu.to(device_, /*non_blocking=*/true));
  }
  return ok_status();
}

void Trainer::forward_backward(const model::LossWeights& weights, const std::vector<bool>& left_out,
                               torch::Tensor* rows) {
  std::vector<torch::Tensor> all;
  for (size_t a = 0; a < micro_.size(); ++a) {
    const auto& [micro_index, batch] = micro_[a];
    const int64_t n = batch.char_ids.size(0);
    if (n == 0) {
      all.push_back(torch::zeros_like(bad_row_));
      continue;
    }
    if (left_out[a]) {
      all.push_back(left_out_row_);
      continue;
    }
    // Sampling of this micro-batch, the same on whichever rank computes it.
    torch::manual_seed(micro_batch_seed(cfg_.seed, micro_index));
    model::LossOutput out = module_->compute_losses(batch, weights);
    torch::Tensor total = out.total;
    if (micro_index == options_.poison_micro_batch) total = total * std::nan("");
    (total / static_cast<double>(accum_)).backward();
    all.push_back(micro_batch_row(out, total.detach(), n, bad_row_));
  }
  *rows = torch::stack(all);
}

StatusOr<torch::Tensor> Trainer::exchange_and_clip(torch::Tensor* sums) {
  if (dp_) {
    MORPHEUS_RETURN_IF_ERROR(dp_->all_reduce_sum(*sums));
    MORPHEUS_RETURN_IF_ERROR(dp_->sync_gradients());
    state_.acc.exchange_seconds += dp_->last_exchange().seconds;
  }
  // Σ over ranks of Σ_micro ∇loss / accum → the mean over contributing micro-batches.
  const torch::Tensor scale =
      (static_cast<double>(accum_) / (*sums)[kContributing].clamp_min(1.0)).to(torch::kFloat);
  const double max_norm =
      cfg_.grad_clip > 0 ? cfg_.grad_clip : std::numeric_limits<double>::infinity();
  return scale_and_clip_gradients(params_, scale, max_norm);
}

void Trainer::apply_gradients(double grad_norm) {
  if (std::isfinite(grad_norm)) {
    set_learning_rate(*optimizer_, cfg_.lr * lr_multiplier(state_.step, total_steps_,
                                                           cfg_.warmup_steps, cfg_.lr_min_ratio));
    optimizer_->step();
    state_.acc.grad_norm += grad_norm;
  } else {
    MORPHEUS_LOG(kWarning, "step ", state_.step, ": non-finite gradient norm; step skipped");
  }
}

void Trainer::fold_device_sums() {
  const torch::Tensor cpu = dev_acc_.to(torch::kCPU);
  const double* v = cpu.data_ptr<double>();
  state_.acc.total += v[kTotal];
  state_.acc.aux += v[kAux];
  state_.acc.sgns += v[kSgns];
  state_.acc.ctr += v[kCtr];
  state_.acc.mlm += v[kMlm];
  state_.acc.sfx += v[kSfx];
  state_.acc.words += static_cast<int64_t>(v[kWords]);
  dev_acc_.zero_();
}

void Trainer::log(double aux_weight) {
  fold_device_sums();
  const Accumulator& acc = state_.acc;
  const double m = std::max<double>(1, static_cast<double>(acc.micro));
  const double steps = std::max<double>(1, static_cast<double>(acc.steps));
  json row = {{"step", state_.step},
              {"epoch", state_.epoch},
              {"lr", cfg_.lr * lr_multiplier(state_.step - 1, total_steps_, cfg_.warmup_steps,
                                             cfg_.lr_min_ratio)},
              {"aux_weight", aux_weight},
              {"loss", acc.total / m},
              {"aux", acc.aux / m},
              {"sgns", acc.sgns / m},
              {"ctr", acc.ctr / m},
              {"mlm", acc.mlm / m},
              {"sfx", acc.sfx / m},
              {"grad_norm", acc.grad_norm / steps},
              {"words_per_s", static_cast<double>(acc.words) / std::max(1e-9, acc.seconds)},
              {"words", acc.words},
              {"seconds", acc.seconds},
              {"micro_batches", acc.micro},
              {"skipped_micro_batches", state_.skipped},
              {"ranks", world_},
              {"exchange_s_per_step", acc.exchange_seconds / steps}};
  row.update(model::cuda_memory_stats(device_));  // {} on the CPU
  files_.write_row(row);
  if (summary_.first_losses.is_null()) summary_.first_losses = row;
  summary_.last_losses = row;
  MORPHEUS_LOG(kDebug, row.dump());
  state_.acc = Accumulator{};
}

void Trainer::evaluate() {
  if (!files_.main) return;
  summary_.dev = evaluate_dev(module_, data_.dev, cfg_, mcfg_, device_);
  last_eval_step_ = state_.step;
  files_.write_row(json{{"step", state_.step}, {"epoch", state_.epoch}, {"dev", summary_.dev}});
  MORPHEUS_LOG(kInfo, "step ", state_.step, ": dev boundary F1 ",
               summary_.dev["boundary_f1"].get<double>(), " (P ",
               summary_.dev["boundary_precision"].get<double>(), ", R ",
               summary_.dev["boundary_recall"].get<double>(), ")");
}

Status Trainer::checkpoint() {
  fold_device_sums();  // the running sums go into trainer_state.json
  return save_training_state(options_.out_dir, module_, *optimizer_, state_, config_,
                             options_.data_dir);
}

Status Trainer::finish() {
  if (last_eval_step_ != state_.step) evaluate();
  MORPHEUS_RETURN_IF_ERROR(checkpoint());
  model::CheckpointExtras extras;
  extras.config_json = config_.dump(2);
  MORPHEUS_ASSIGN_OR_RETURN(extras.char_vocab_json,
                            read_file(path_join(options_.data_dir, "char_vocab.json")));
  MORPHEUS_RETURN_IF_ERROR(model::save_inference_checkpoint(path_join(options_.out_dir, "final"),
                                                            module_->model, extras));
  std::fclose(files_.metrics);
  files_.metrics = nullptr;
  return eval::write_training_curves(metrics_path_,
                                     path_join(options_.out_dir, "training_curves.png"));
}

// Whether `e` is an allocator's out-of-memory (CUDA: c10::OutOfMemoryError on LibTorch 2.x, a
// c10::Error saying "out of memory" on 1.x; CPU: "can't allocate memory"): none is a
// std::bad_alloc.
bool is_out_of_memory(const c10::Error& e) {
  const std::string what = e.what_without_backtrace();
  return what.find("out of memory") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos;
}

}  // namespace

StatusOr<TrainSummary> run_training(const TrainOptions& options) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<Trainer> trainer, Trainer::create(options));
  try {
    return trainer->run();
  } catch (const c10::Error& e) {
    if (!is_out_of_memory(e)) throw;
    return failed_precondition(
        std::string("out of memory during training: ") + e.what_without_backtrace(),
        "lower train.batch_windows (--set train.batch_windows=N) or the model size; with "
        "--resume the run continues from its last checkpoint");
  }
}

}  // namespace morpheus::train
