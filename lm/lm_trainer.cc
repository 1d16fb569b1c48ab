// SPDX-License-Identifier: MIT
#include "lm/lm_trainer.h"

#include <sys/resource.h>
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/logging.h"
#include "core/lr_schedule.h"
#include "core/progress.h"
#include "lm/lm_checkpoint.h"
#include "lm_data/id_lines.h"
#include "lm_data/text_data.h"
#include "model/morpheus.h"
#include "model/runtime.h"

#ifdef MORPHEUS_LM_CUDA_STATS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace morpheus::lm {

using json = nlohmann::json;

json bpc_json(const BpcResult& r) {
  return {{"valid_bpc", r.bpc()},
          {"valid_bits", r.bits},
          {"valid_tokens", r.tokens},
          {"valid_characters", r.characters}};
}

json eval_json(const BpcResult& r, const LineSlices& slices) {
  return {
      {"bpc", r.bpc()},
      {"bits", r.bits},
      {"tokens", r.tokens},
      {"characters", r.characters},
      {"slices", {{"all_upper", slices.all_upper.to_json()}, {"other", slices.other.to_json()}}}};
}

namespace {

// Adds the bits of consecutive targets (their −ln p in `nats`, the target ids from `targets`
// on) to the line each is in; *line advances after every end-of-line target.
void add_line_bits(const torch::Tensor& nats, const int32_t* targets, int32_t eol, size_t* line,
                   std::vector<double>* line_bits) {
  const torch::Tensor host = nats.reshape({-1}).to(torch::kCPU, torch::kDouble).contiguous();
  const double* p = host.data_ptr<double>();
  const double bits_per_nat = 1.0 / std::log(2.0);
  for (int64_t i = 0; i < host.numel(); ++i) {
    if (*line == line_bits->size()) line_bits->push_back(0.0);
    (*line_bits)[*line] += p[i] * bits_per_nat;
    if (targets[i] == eol) ++*line;
  }
}

}  // namespace

BpcResult evaluate_stream(GptImpl& model, const std::vector<int32_t>& stream, int64_t characters,
                          int64_t window, int64_t batch, const torch::Device& device) {
  TORCH_CHECK(stream.size() >= 2 && window >= 1 && batch >= 1, "evaluate_stream: bad arguments");
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  BpcResult r;
  r.characters = characters;
  const auto targets_total = static_cast<int64_t>(stream.size()) - 1;
  const torch::Tensor all = torch::tensor(std::vector<int64_t>(stream.begin(), stream.end()));
  size_t line = 0;
  for (int64_t start = 0; start < targets_total;) {
    // Full windows go `batch` at a time; the last, shorter window alone.
    const int64_t full = std::min(batch, (targets_total - start) / window);
    const int64_t rows = std::max<int64_t>(full, 1);
    const int64_t len = full > 0 ? window : targets_total - start;
    const torch::Tensor span = all.narrow(0, start, rows * len + 1);
    const torch::Tensor inputs = span.narrow(0, 0, rows * len).view({rows, len}).to(device);
    const torch::Tensor targets = span.narrow(0, 1, rows * len).view({rows, len}).to(device);
    add_line_bits(model.token_nll(inputs, targets), stream.data() + start + 1, stream[0], &line,
                  &r.line_bits);
    r.tokens += rows * len;
    start += rows * len;
  }
  if (was_training) model.train();
  for (double bits : r.line_bits) r.bits += bits;
  return r;
}

std::unique_ptr<torch::optim::AdamW> make_lm_optimizer(GptImpl& model, const LmConfig& c) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto& p : model.parameters()) (p.dim() >= 2 ? decay : no_decay).push_back(p);
  auto options = [&c](double wd) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(c.lr).betas({c.beta1, c.beta2}).eps(c.eps).weight_decay(wd));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, options(c.weight_decay));
  groups.emplace_back(no_decay, options(0.0));
  return std::make_unique<torch::optim::AdamW>(groups);
}

torch::Tensor lm_train_step(GptImpl& model, torch::optim::Optimizer& optimizer,
                            const torch::Tensor& inputs, const torch::Tensor& targets,
                            double grad_clip) {
  const torch::Tensor loss = model.loss(inputs, targets);
  optimizer.zero_grad();
  loss.backward();
  if (grad_clip > 0) torch::nn::utils::clip_grad_norm_(model.parameters(), grad_clip);
  optimizer.step();
  return loss.detach();
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

json LmTrainSummary::to_json() const {
  json j = bpc_json(valid);
  j.update({{"steps", steps},
            {"width", width},
            {"parameters", parameters},
            {"train_seconds", train_seconds},
            {"train_tokens_per_s", tokens_per_second},
            {"valid_tokens_per_char",
             valid.characters > 0
                 ? static_cast<double>(valid.tokens) / static_cast<double>(valid.characters)
                 : 0.0},
            {"peak_memory_mb", peak_memory_mb}});
  return j;
}

namespace {

double peak_memory_mb(const torch::Device& device) {
#ifdef MORPHEUS_LM_CUDA_STATS
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    return static_cast<double>(stats.allocated_bytes[0].peak) / (1024.0 * 1024.0);
  }
#else
  (void)device;
#endif
  return peak_rss_mb();
}

struct LmData {
  IdLines train, valid;
  TextStats valid_text;
};

StatusOr<LmData> load_data(const LmTrainOptions& o) {
  LmData d;
  MORPHEUS_ASSIGN_OR_RETURN(d.train, read_id_lines(o.train_ids, o.vocab_size));
  MORPHEUS_ASSIGN_OR_RETURN(d.valid, read_id_lines(o.valid_ids, o.vocab_size));
  MORPHEUS_ASSIGN_OR_RETURN(d.valid_text, count_text(o.valid_text));
  if (static_cast<int64_t>(d.valid.num_lines()) != d.valid_text.lines) {
    return invalid_argument(o.valid_ids + " has " + std::to_string(d.valid.num_lines()) +
                                " lines but " + o.valid_text + " has " +
                                std::to_string(d.valid_text.lines),
                            "the validation ids must be the encoding of the validation text");
  }
  if (d.train.stream_tokens() < o.config.context + 1) {
    return invalid_argument(o.train_ids + " holds " + std::to_string(d.train.stream_tokens()) +
                                " tokens, fewer than one window of lm.context + 1 = " +
                                std::to_string(o.config.context + 1),
                            "use a longer training text or a smaller lm.context");
  }
  return d;
}

// The run's window sequence: epochs back to back, each the stream of a seeded line order.
class WindowPlan {
 public:
  WindowPlan(const IdLines& lines, int64_t seed, int64_t window)
      : lines_(lines),
        seed_(static_cast<uint64_t>(seed)),
        window_(window),
        per_epoch_((lines.stream_tokens() - 1) / window) {}

  int64_t windows_per_epoch() const { return per_epoch_; }

  // inputs and targets [B,T] int64 of step `step`.
  std::pair<torch::Tensor, torch::Tensor> batch(int64_t step, int64_t rows) {
    torch::Tensor inputs = torch::empty({rows, window_}, torch::kLong);
    torch::Tensor targets = torch::empty({rows, window_}, torch::kLong);
    int64_t* in = inputs.data_ptr<int64_t>();
    int64_t* out = targets.data_ptr<int64_t>();
    for (int64_t b = 0; b < rows; ++b) {
      const int64_t g = step * rows + b;
      const int32_t* w = window_start(g / per_epoch_, g % per_epoch_);
      std::copy(w, w + window_, in + b * window_);
      std::copy(w + 1, w + window_ + 1, out + b * window_);
    }
    return {inputs, targets};
  }

 private:
  const int32_t* window_start(int64_t epoch, int64_t index) {
    if (epoch != epoch_) {
      stream_ = token_stream(lines_, line_order(lines_.num_lines(), seed_, epoch));
      epoch_ = epoch;
    }
    return stream_.data() + index * window_;
  }

  const IdLines& lines_;
  uint64_t seed_;
  int64_t window_;
  int64_t per_epoch_;
  int64_t epoch_ = -1;
  std::vector<int32_t> stream_;
};

// Rows of metrics.jsonl up to `step` (a resumed run writes the later ones again).
Status keep_metrics_until(const std::string& path, int64_t step) {
  if (!file_exists(path)) return ok_status();
  std::ifstream in(path);
  std::string line, kept;
  while (std::getline(in, line)) {
    const json row = json::parse(line, nullptr, false);
    if (row.is_discarded()) break;  // the torn last row of a killed run
    if (row.value("step", int64_t{0}) <= step) kept += line + "\n";
  }
  return write_file_atomic(path, kept);
}

class MetricsLog {
 public:
  Status open(const std::string& path) {
    file_ = std::fopen(path.c_str(), "a");
    if (file_ == nullptr) return io_error("cannot append to " + path);
    return ok_status();
  }
  ~MetricsLog() {
    if (file_ != nullptr) std::fclose(file_);
  }
  void write(const json& row) {
    const std::string text = row.dump() + "\n";
    std::fwrite(text.data(), 1, text.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

// The config.json of a run: everything that determines its trajectory.
json run_config(const LmTrainOptions& o, const LmSpec& spec, int64_t parameters) {
  return {{"lm", o.config},
          {"model", spec_json(spec)},
          {"parameters", parameters},
          {"tokens_per_step", o.config.batch_size * o.config.context},
          {"inputs",
           {{"train_ids", o.train_ids}, {"valid_ids", o.valid_ids}, {"valid_text", o.valid_text}}}};
}

Status check_resumable(const std::string& path, const json& config) {
  MORPHEUS_ASSIGN_OR_RETURN(json previous, load_json_file(path));
  if (previous.value("lm", json()) != config.at("lm") ||
      previous.value("model", json()) != config.at("model")) {
    return failed_precondition(path + " was written with another config or vocabulary",
                               "resume with the run's own settings, or start a new --out");
  }
  return ok_status();
}

uint64_t step_seed(int64_t seed, int64_t step) {
  return static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(step);
}

// One run: create() loads the data and builds (or restores) the model and optimiser; run() loops
// over steps with a metrics row every log_every steps, evaluations and checkpoints, then
// finish() writes final.pt and result.json.
class LmTrainer {
 public:
  static StatusOr<std::unique_ptr<LmTrainer>> create(const LmTrainOptions& options);
  StatusOr<LmTrainSummary> run();

 private:
  LmTrainer(const LmTrainOptions& o, LmData data, const torch::Device& device)
      : o_(o),
        cfg_(o.config),
        data_(std::move(data)),
        device_(device),
        plan_(data_.train, cfg_.seed, cfg_.context),
        valid_stream_(token_stream(data_.valid)) {}
  Status build();           // model, optimiser, run files
  void train_step();        // one optimiser step
  void end_interval();      // adds the time since the last mark
  void log_row(double lr);  // a metrics row of the last interval
  void evaluate();          // validation BPC row
  Status save(const std::string& path, bool with_optimizer);
  Status finish();

  const LmTrainOptions& o_;
  const LmConfig& cfg_;
  LmData data_;
  torch::Device device_;
  WindowPlan plan_;
  std::vector<int32_t> valid_stream_;
  LmSpec spec_;
  Gpt model_{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  MetricsLog metrics_;
  LmTrainSummary summary_;
  int64_t step_ = 0;
  torch::Tensor loss_sum_;  // on the device: no host sync per step
  int64_t interval_steps_ = 0;
  double interval_seconds_ = 0;
  std::chrono::steady_clock::time_point mark_;
};

StatusOr<std::unique_ptr<LmTrainer>> LmTrainer::create(const LmTrainOptions& o) {
  MORPHEUS_RETURN_IF_ERROR(o.config.validate());
  if (o.config.threads > 0) torch::set_num_threads(static_cast<int>(o.config.threads));
  MORPHEUS_ASSIGN_OR_RETURN(torch::Device device, model::resolve_device(o.device));
  model::configure_device(device);
  MORPHEUS_ASSIGN_OR_RETURN(LmData data, load_data(o));
  std::unique_ptr<LmTrainer> trainer(new LmTrainer(o, std::move(data), device));
  MORPHEUS_RETURN_IF_ERROR(trainer->build());
  return trainer;
}

Status LmTrainer::build() {
  MORPHEUS_RETURN_IF_ERROR(make_dirs(o_.out_dir));
  remove_stale_temps_in(o_.out_dir);
  spec_.tokenizer_vocab = o_.vocab_size;
  spec_.gpt = GptOptions{o_.vocab_size + 1, model_width(cfg_, o_.vocab_size),
                         cfg_.layers,       cfg_.heads,
                         cfg_.context,      cfg_.dropout};
  torch::manual_seed(static_cast<uint64_t>(cfg_.seed));
  model_ = Gpt(spec_.gpt);
  model_->to(device_);
  optimizer_ = make_lm_optimizer(*model_, cfg_);
  summary_.width = spec_.gpt.width;
  summary_.parameters = model::count_parameters(*model_);
  const json config = run_config(o_, spec_, summary_.parameters);
  const std::string config_path = path_join(o_.out_dir, "config.json");
  const std::string ckpt_path = path_join(o_.out_dir, "checkpoint.pt");
  const std::string metrics_path = path_join(o_.out_dir, "metrics.jsonl");
  if (o_.resume && file_exists(ckpt_path)) {
    MORPHEUS_RETURN_IF_ERROR(check_resumable(config_path, config));
    MORPHEUS_ASSIGN_OR_RETURN(LoadedLm loaded, load_lm_checkpoint(ckpt_path, device_));
    if (spec_json(loaded.spec) != spec_json(spec_)) {
      return failed_precondition(ckpt_path + " holds another model shape",
                                 "start a new --out for another config");
    }
    torch::NoGradGuard no_grad;
    const auto src = loaded.model->parameters();
    const auto dst = model_->parameters();
    for (size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
    MORPHEUS_RETURN_IF_ERROR(load_lm_optimizer(ckpt_path, *optimizer_, device_));
    step_ = loaded.state.at("step").get<int64_t>();
    summary_.train_seconds = loaded.state.at("train_seconds").get<double>();
    MORPHEUS_RETURN_IF_ERROR(keep_metrics_until(metrics_path, step_));
    MORPHEUS_LOG(kInfo, "lm train: resuming at step ", step_, " from ", ckpt_path);
  } else {
    if (!o_.resume && (file_exists(ckpt_path) || file_exists(metrics_path))) {
      return failed_precondition(o_.out_dir + " already holds a run",
                                 "pass --resume to continue it, or choose another --out");
    }
    // --resume before the first checkpoint: the run starts over.
    MORPHEUS_RETURN_IF_ERROR(keep_metrics_until(metrics_path, 0));
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(config_path, config.dump(2) + "\n"));
  }
  return metrics_.open(metrics_path);
}

void LmTrainer::train_step() {
  auto [inputs, targets] = plan_.batch(step_, cfg_.batch_size);
  torch::manual_seed(step_seed(cfg_.seed, step_));
  loss_sum_ +=
      lm_train_step(*model_, *optimizer_, inputs.to(device_), targets.to(device_), cfg_.grad_clip);
  ++interval_steps_;
  ++step_;
}

void LmTrainer::end_interval() {
  if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
  const auto now = std::chrono::steady_clock::now();
  const double dt = std::chrono::duration<double>(now - mark_).count();
  interval_seconds_ += dt;
  summary_.train_seconds += dt;
  mark_ = now;
}

void LmTrainer::log_row(double lr) {
  const double loss = loss_sum_.item<double>() / static_cast<double>(interval_steps_);
  const auto tokens = static_cast<double>(interval_steps_ * cfg_.batch_size * cfg_.context);
  metrics_.write(
      {{"step", step_}, {"lr", lr}, {"loss", loss}, {"tokens_per_s", tokens / interval_seconds_}});
  loss_sum_.zero_();
  interval_steps_ = 0;
  interval_seconds_ = 0;
}

void LmTrainer::evaluate() {
  summary_.valid = evaluate_stream(*model_, valid_stream_, data_.valid_text.characters(),
                                   cfg_.context, cfg_.eval_batch, device_);
  json row = bpc_json(summary_.valid);
  row["step"] = step_;
  metrics_.write(row);
  MORPHEUS_LOG(kInfo, "lm train: step ", step_, " validation BPC ", summary_.valid.bpc());
}

Status LmTrainer::save(const std::string& path, bool with_optimizer) {
  const json state = {{"step", step_}, {"train_seconds", summary_.train_seconds}};
  return save_lm_checkpoint(path, spec_, *model_, with_optimizer ? optimizer_.get() : nullptr,
                            state);
}

StatusOr<LmTrainSummary> LmTrainer::run() {
  MORPHEUS_LOG(kInfo, "lm train: vocabulary ", o_.vocab_size, " + eol, width ", spec_.gpt.width,
               ", ", summary_.parameters, " parameters, ", cfg_.batch_size * cfg_.context,
               " tokens/step, ", plan_.windows_per_epoch(), " windows/epoch, device ",
               device_.str());
  model_->train();
  ProgressBar bar("lm train", static_cast<uint64_t>(cfg_.steps), "steps");
  bar.set(static_cast<uint64_t>(step_));
  loss_sum_ = torch::zeros({}, torch::TensorOptions(device_));
  mark_ = std::chrono::steady_clock::now();
  while (step_ < cfg_.steps) {
    const double lr =
        cfg_.lr * lr_multiplier(step_, cfg_.steps, cfg_.warmup_steps, cfg_.lr_min_ratio);
    for (auto& group : optimizer_->param_groups()) {
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    }
    train_step();
    bar.add(1);
    const bool last = step_ == cfg_.steps;
    const bool log = step_ % cfg_.log_every == 0 || last;
    const bool eval = (cfg_.eval_every > 0 && step_ % cfg_.eval_every == 0) || last;
    const bool ckpt = (cfg_.checkpoint_every > 0 && step_ % cfg_.checkpoint_every == 0) || last;
    if (log || eval || ckpt) end_interval();
    if (log) log_row(lr);
    if (eval) evaluate();
    if (ckpt) MORPHEUS_RETURN_IF_ERROR(save(path_join(o_.out_dir, "checkpoint.pt"), true));
    if (eval || ckpt) mark_ = std::chrono::steady_clock::now();  // their time is not training
    if (o_.after_step && !o_.after_step(step_)) {
      summary_.stopped = true;
      break;
    }
  }
  bar.finish();
  if (!summary_.stopped) MORPHEUS_RETURN_IF_ERROR(finish());
  return summary_;
}

Status LmTrainer::finish() {
  summary_.steps = step_;
  const auto tokens = static_cast<double>(step_ * cfg_.batch_size * cfg_.context);
  summary_.tokens_per_second = summary_.train_seconds > 0 ? tokens / summary_.train_seconds : 0;
  summary_.peak_memory_mb = peak_memory_mb(device_);
  if (summary_.valid.tokens == 0) evaluate();  // resumed after the last step
  MORPHEUS_RETURN_IF_ERROR(save(path_join(o_.out_dir, "final.pt"), false));
  return write_file_atomic(path_join(o_.out_dir, "result.json"), summary_.to_json().dump(2) + "\n");
}

}  // namespace

StatusOr<LmTrainSummary> train_lm(const LmTrainOptions& options) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<LmTrainer> trainer, LmTrainer::create(options));
  return trainer->run();
}

StatusOr<BpcResult> evaluate_lm(const std::string& checkpoint, const std::string& ids_path,
                                const std::string& text_path, const std::string& device_name,
                                int64_t batch) {
  MORPHEUS_ASSIGN_OR_RETURN(torch::Device device, model::resolve_device(device_name));
  MORPHEUS_ASSIGN_OR_RETURN(LoadedLm loaded, load_lm_checkpoint(checkpoint, device));
  MORPHEUS_ASSIGN_OR_RETURN(IdLines ids, read_id_lines(ids_path, loaded.spec.tokenizer_vocab));
  MORPHEUS_ASSIGN_OR_RETURN(TextStats text, count_text(text_path));
  if (static_cast<int64_t>(ids.num_lines()) != text.lines) {
    return invalid_argument(ids_path + " has " + std::to_string(ids.num_lines()) + " lines but " +
                                text_path + " has " + std::to_string(text.lines),
                            "give the ids of exactly that text");
  }
  return evaluate_stream(*loaded.model, token_stream(ids), text.characters(),
                         loaded.spec.gpt.context, batch, device);
}

}  // namespace morpheus::lm
