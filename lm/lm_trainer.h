// SPDX-License-Identifier: MIT
// `morpheus lm train` and `morpheus lm eval`: a Gpt (lm/gpt.h) over one tokenizer's ids.
//
// Data. The training ids (one line per training-text line) are read once. Epoch e orders the
//   lines by line_order(n, seed, e) (lm_data/id_lines.h: the same order for every tokenizer of the
//   text), joins them into one stream (eol, line, eol, line, eol, …) and cuts it into
//   non-overlapping windows of T+1 tokens (inputs: the first T, targets: the last T; the tail
//   shorter than a window is left out). Step s takes the windows s·B … s·B+B−1 of the run's
//   window sequence (epochs back to back), so a step's batch is a function of the step alone:
//   B·T target tokens per step for every tokenizer, and --resume continues exactly.
// Loss. Mean cross-entropy over the B·T targets; AdamW (weight decay on 2-D weights, none on
//   biases and LayerNorms), lr = lr·lr_multiplier(step) (core/lr_schedule.h), global-norm clipping.
//   Dropout masks are drawn from a generator seeded by (seed, step).
// Validation BPC. The validation stream (file order: eol, line 1, eol, line 2, eol, …) is scored
//   in consecutive non-overlapping windows of up to T targets: window k predicts stream tokens
//   kT+1 … kT+T from tokens kT … kT+T−1 (context restarts at each window), so every token and
//   every end-of-line id is scored exactly once. BPC = Σ −log₂ p(target) ÷ (code points of the
//   raw validation lines + one per line), the denominator counted from the raw text
//   (lm_data/text_data.h), the same for every tokenizer. Each scored token's bits also belong to
//   the line it is in (a line's end-of-line id to that line), so the bits of a text's lines, and of
//   any slice of them (lm_data/text_data.h slice_line_bits), add up to its total.
// Run directory: config.json (resolved "lm" section, vocabulary, width, parameters, inputs),
//   metrics.jsonl (rows {step, lr, loss, tokens_per_s} every log_every steps and
//   {step, valid_bpc, valid_bits, valid_tokens, valid_characters} at evaluations),
//   checkpoint.pt (latest training checkpoint), final.pt (the model alone) and result.json
//   (final validation BPC, tokens/char, parameters, training tokens/s, peak memory).
#pragma once

#include <torch/optim/adamw.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "lm/gpt.h"
#include "lm_data/lm_config.h"
#include "lm_data/text_data.h"

namespace morpheus::lm {

struct BpcResult {
  double bits = 0;                // Σ −log₂ p over the scored tokens (= Σ line_bits)
  int64_t tokens = 0;             // scored tokens: ids plus one end-of-line id per line
  int64_t characters = 0;         // code points of the raw lines plus one per line
  std::vector<double> line_bits;  // bits of line i: its ids and its end-of-line id
  double bpc() const { return characters > 0 ? bits / static_cast<double>(characters) : 0.0; }
};
// {"valid_bpc", "valid_bits", "valid_tokens", "valid_characters"}: a metrics.jsonl row, result.json
// and `lm eval` on stdout.
nlohmann::json bpc_json(const BpcResult& result);
// `lm eval -o`: {"bpc", "bits", "tokens", "characters", "slices": {"all_upper": slice,
// "other": slice}}, a slice as TextSlice::to_json writes it.
nlohmann::json eval_json(const BpcResult& result, const LineSlices& slices);

// Scores `stream` (eol first, as token_stream builds it: stream[0] is the end-of-line id) in
// windows of `window` targets, `batch` windows per forward; `characters` is the BPC denominator.
// line_bits has one entry per end-of-line id after stream[0], plus one for the tokens after the
// last (token_stream leaves none). Eval mode, no gradient.
BpcResult evaluate_stream(GptImpl& model, const std::vector<int32_t>& stream, int64_t characters,
                          int64_t window, int64_t batch, const torch::Device& device);

// AdamW over the model's parameters: weight decay on 2-D weights (embeddings, projections), none
// on biases and LayerNorms; betas, eps and peak lr from the config.
std::unique_ptr<torch::optim::AdamW> make_lm_optimizer(GptImpl& model, const LmConfig& config);

// One optimiser step: model.loss(inputs [B,T], targets [B,T]) (int64, on the model's device),
// backward, global-norm clipping (grad_clip > 0), optimizer.step().
// Returns the loss, detached, on the device (no host sync).
torch::Tensor lm_train_step(GptImpl& model, torch::optim::Optimizer& optimizer,
                            const torch::Tensor& inputs, const torch::Tensor& targets,
                            double grad_clip);

struct LmTrainOptions {
  std::string train_ids;   // the training text's ids
  std::string valid_ids;   // the validation text's ids
  std::string valid_text;  // the raw validation text (BPC denominator; same line count)
  int64_t vocab_size = 0;  // the tokenizer's vocabulary: every id is below it
  std::string out_dir;
  std::string device = "auto";
  bool resume = false;
  LmConfig config;
  // Test hook: called after every optimiser step with the step count; false stops the run there
  // (as a kill would: no final checkpoint).
  std::function<bool(int64_t)> after_step;
};

struct LmTrainSummary {
  int64_t steps = 0;
  int64_t width = 0;
  int64_t parameters = 0;
  double train_seconds = 0;      // optimiser steps only (no evaluation, no checkpoints)
  double tokens_per_second = 0;  // training target tokens per second of train_seconds
  BpcResult valid;               // at the last step
  double peak_memory_mb = 0;     // peak RSS on the CPU, the allocator's peak on CUDA
  bool stopped = false;          // the after_step hook ended the run early
  nlohmann::json to_json() const;
};

StatusOr<LmTrainSummary> train_lm(const LmTrainOptions& options);

// `morpheus lm eval`: BPC of a final.pt or checkpoint.pt on an ids file and its raw text, with
// the bits of each line.
StatusOr<BpcResult> evaluate_lm(const std::string& checkpoint, const std::string& ids_path,
                                const std::string& text_path, const std::string& device,
                                int64_t batch);

// Peak resident set size of this process in MiB (getrusage).
double peak_rss_mb();

}  // namespace morpheus::lm
