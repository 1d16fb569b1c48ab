// SPDX-License-Identifier: MIT
// inference_bench: words/s of new word types through the segmentation model (every distinct
// letter run of a corpus once, no cache), for a trained tokenizer's model (--model TOKDIR, e.g.
// the tiny model of the main job) and a randomly initialised paper-size model (same cost as a
// trained one), at the old batch size (32K positions per call) and the default one; both next
// to `morpheus-spm encode` of the same words (one per line) measured in the same run.
// Options (defaults): --corpus FILE (the npm corpus) or --words-file FILE (one word per line,
// used as they are), --model TOKDIR, --spm-model DIR (where SentencePiece is built), --words
// 30000, --paper-words 1500, --reps 2, --threads N, --device cpu|cuda[:N] (int8 rows on the CPU
// only, TF32 rows on CUDA only), --int8-guards 0,0.5, --sweep POSITIONS,... (batch sizes to time),
// --quant-probe 1.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "infer/neural_segmenter.h"
#include "model/checkpoint.h"
#include "model/cpu_allocator.h"
#include "model/linear.h"
#include "model/packed_inference.h"
#include "model/runtime.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/pretokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (name == argv[i]) return argv[i + 1];
  }
  return fallback;
}

// Distinct folded letter runs of `text`, in order of first occurrence.
std::vector<std::string> distinct_runs(const std::string& text) {
  std::vector<std::string> runs;
  std::unordered_set<std::string> seen;
  std::vector<morpheus::tokenizer::Span> spans;
  morpheus::tokenizer::pretokenize_into(text, spans);
  for (const morpheus::tokenizer::Span& s : spans) {
    if (s.kind != morpheus::tokenizer::SpanKind::kLetter) continue;
    std::string folded = morpheus::unicode::to_lower(std::string(s.text(text)));
    if (seen.insert(folded).second) runs.push_back(std::move(folded));
  }
  return runs;
}

morpheus::StatusOr<std::vector<std::string>> corpus_runs(const std::string& corpus) {
  MORPHEUS_ASSIGN_OR_RETURN(const std::string text, morpheus::read_file(corpus));
  return distinct_runs(text);
}

// The lines of a file, as they are.
morpheus::StatusOr<std::vector<std::string>> file_lines(const std::string& path) {
  morpheus::LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(&line)) lines.push_back(line);
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return lines;
}

// Words/s of seg.segment_many over `words` (best of `reps`).
double words_per_s(const morpheus::infer::NeuralSegmenter& seg,
                   const std::vector<std::string>& words, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t = Clock::now();
    (void)seg.segment_many(words);
    best = std::min(best, seconds_since(t));
  }
  return static_cast<double>(words.size()) / best;
}

double spm_words_per_s(const std::string& spm_model, const std::string& words_file, size_t n) {
#ifndef MORPHEUS_SPM_BINARY
  (void)spm_model, (void)words_file, (void)n;
  return 0;
#else
  if (spm_model.empty()) return 0;
  const std::string command = std::string(MORPHEUS_SPM_BINARY) + " encode --model " + spm_model +
                              " " + words_file + " > /dev/null";
  const auto t = Clock::now();
  if (std::system(command.c_str()) != 0) return 0;
  return static_cast<double>(n) / seconds_since(t);
#endif
}

// Words whose pieces are the same in `a` and `b` (aligned).
size_t same_count(const std::vector<std::vector<std::string>>& a,
                  const std::vector<std::vector<std::string>>& b) {
  size_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i] ? 1 : 0;
  return same;
}

void report(const char* name, const morpheus::infer::NeuralSegmenter& fast,
            const morpheus::infer::NeuralSegmenter& old, const std::vector<std::string>& words,
            double spm, int reps) {
  const double old_rate = words_per_s(old, words, reps);
  const double fast_rate = words_per_s(fast, words, reps);
  const auto a = old.segment_many(words);
  const size_t same = same_count(a, fast.segment_many(words));
  std::printf(
      "%s: %zu new words, %d threads: default batches %.0f words/s, 32K-position batches %.0f "
      "words/s (%.2fx); same segmentation %zu/%zu; morpheus-spm encode %.0f words/s\n",
      name, words.size(), torch::get_num_threads(), fast_rate, old_rate, fast_rate / old_rate, same,
      a.size(), spm);
  // The same default batches through the padded modules (rows packed per layer, not per stack).
  morpheus::model::set_packed_inference_enabled(false);
  const double padded_rate = words_per_s(fast, words, reps);
  const size_t padded_same = same_count(fast.segment_many(words), a);
  morpheus::model::set_packed_inference_enabled(true);
  std::printf(
      "  packed stack %.0f words/s vs padded modules %.0f words/s (%.2fx); same segmentation "
      "%zu/%zu\n",
      fast_rate, padded_rate, fast_rate / padded_rate, padded_same, a.size());
}

// On CUDA: the same segmenter with TF32 matmuls (as training runs) against full float: words/s and
// how many words segment as in float.
void report_tf32(const morpheus::infer::NeuralSegmenter& seg, const std::vector<std::string>& words,
                 int reps, const torch::Device& device) {
  if (!device.is_cuda()) return;
  const double float_rate = words_per_s(seg, words, reps);
  const auto want = seg.segment_many(words);
  morpheus::model::configure_device(device);  // TF32 on
  const double rate = words_per_s(seg, words, reps);
  const size_t same = same_count(want, seg.segment_many(words));
  morpheus::model::configure_inference_device(device);  // full float again
  std::printf("  TF32 %.0f words/s vs float %.0f words/s (%.2fx); same segmentation %zu/%zu\n",
              rate, float_rate, rate / float_rate, same, want.size());
}

// Dynamic int8 (model/linear.h) against float on the same model and words: words/s and how
// many words segment as in float, with each fixed guard of `guards` (logit distance under which a
// chunk is decided again in float; 0 = none) and with the calibrated guard (the default).
void report_int8(const char* name, const morpheus::model::Morpheus& model,
                 const morpheus::tokenizer::CharVocab& chars, const std::vector<std::string>& words,
                 const std::vector<double>& guards, int reps) {
  morpheus::infer::NeuralSegmenterOptions options;
  options.cache_capacity = 0;
  const morpheus::infer::NeuralSegmenter float_seg(model, chars, options);
  const double float_rate = words_per_s(float_seg, words, reps);
  const auto want = float_seg.segment_many(words);
  std::printf("%s: float %.0f words/s\n", name, float_rate);
  options.int8 = true;
  for (size_t g = 0; g <= guards.size(); ++g) {
    // Each fixed guard, then the calibrated one (the default).
    options.int8_calibrate = g == guards.size();
    options.int8_guard = options.int8_calibrate ? 0 : guards[g];
    const morpheus::infer::NeuralSegmenter seg(model, chars, options);
    if (!seg.int8()) {
      std::printf("  int8 unavailable (%s)\n", seg.int8_status().to_string().c_str());
      return;
    }
    const double rate = words_per_s(seg, words, reps);
    const size_t same = same_count(want, seg.segment_many(words));
    std::printf(
        "  int8, %s guard %.2f: %.0f words/s (%.2fx float), same segmentation as float %.4f, "
        "model passes re-run in float %.4f\n",
        options.int8_calibrate ? "calibrated" : "fixed", seg.int8_guard(), rate, rate / float_rate,
        static_cast<double>(same) / static_cast<double>(want.size()),
        static_cast<double>(seg.int8_rechecks()) / static_cast<double>(seg.model_chunks()));
  }
}

// Words/s at each batch size of a comma-separated list (positions per model call).
void sweep(const morpheus::model::Morpheus& model, const morpheus::tokenizer::CharVocab& chars,
           const std::vector<std::string>& words, const std::string& sizes,
           const torch::Device& device) {
  size_t begin = 0;
  while (begin < sizes.size()) {
    size_t end = sizes.find(',', begin);
    if (end == std::string::npos) end = sizes.size();
    morpheus::infer::NeuralSegmenterOptions options;
    options.cache_capacity = 0;
    options.device = device;
    options.max_batch_chars = std::stoll(sizes.substr(begin, end - begin));
    morpheus::infer::NeuralSegmenter seg(model, chars, options);
    std::printf("  batch %lld positions: %.0f words/s\n",
                static_cast<long long>(options.max_batch_chars), words_per_s(seg, words, 1));
    begin = end + 1;
  }
}

// Dynamic int8 (model::Linear in an Int8Scope, on each quantized engine) against float for one
// position-wise Linear layer [rows, in] -> [rows, out]: whether Debian's LibTorch reaches it from
// C++, its speed and its largest deviation.
void quantised_linear_probe(int64_t rows, int64_t in, int64_t out) {
  torch::manual_seed(2);
  const torch::Tensor x = torch::randn({rows, in});
  const torch::Tensor w = torch::randn({out, in}) * 0.05;
  const torch::Tensor b = torch::zeros({out});
  const auto time_of = [](const auto& fn) {
    double best = 1e30;
    for (int r = 0; r < 20; ++r) {
      const auto t = Clock::now();
      (void)fn();
      best = std::min(best, seconds_since(t));
    }
    return best;
  };
  const double t_float = time_of([&] { return torch::linear(x, w, b); });
  for (const c10::QEngine engine : at::globalContext().supportedQEngines()) {
    if (engine == c10::QEngine::NoQEngine) continue;
    try {
      at::globalContext().setQEngine(engine);
      // Per-channel int8 weights and 7-bit inputs, as in the segmenter.
      morpheus::model::Linear layer(in, out);
      layer->weight.data().copy_(w);
      layer->bias.data().copy_(b);
      layer->eval();
      layer->quantize_int8();
      c10::InferenceMode guard;
      const auto run = [&] {
        const morpheus::model::Int8Scope scope(true);
        return layer(x);
      };
      const double t_int8 = time_of(run);
      const float dev = (run() - torch::linear(x, w, b)).abs().max().item<float>();
      std::printf(
          "dynamic int8 linear (%s) [%lld,%lld]->%lld: float %.3f ms, int8 %.3f ms (%.2fx), "
          "max |diff| %.4f\n",
          c10::toString(engine).c_str(), static_cast<long long>(rows), static_cast<long long>(in),
          static_cast<long long>(out), t_float * 1e3, t_int8 * 1e3, t_float / t_int8, dev);
    } catch (const std::exception& e) {
      std::printf("dynamic int8 linear (%s): not reachable (%s)\n", c10::toString(engine).c_str(),
                  std::string(e.what()).substr(0, 120).c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace morpheus;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  model::install_caching_cpu_allocator();  // as morpheus-torch does
  const std::string corpus =
      arg(argc, argv, "--corpus",
          std::string(MORPHEUS_SOURCE_DIR) + "/node_modules/nlptoolkit-corpus/corpus.txt");
  const std::string tokdir = arg(argc, argv, "--model", "");
  const std::string spm_model = arg(argc, argv, "--spm-model", "");
  const size_t tiny_words = std::stoul(arg(argc, argv, "--words", "30000"));
  const size_t paper_words = std::stoul(arg(argc, argv, "--paper-words", "1500"));
  const int reps = std::stoi(arg(argc, argv, "--reps", "2"));
  std::vector<double> guards;  // int8 guards to compare (0 = none)
  {
    const std::string list = arg(argc, argv, "--int8-guards", "0,0.5");
    for (size_t begin = 0; begin < list.size();) {
      size_t end = list.find(',', begin);
      if (end == std::string::npos) end = list.size();
      guards.push_back(std::stod(list.substr(begin, end - begin)));
      begin = end + 1;
    }
  }
  if (const std::string t = arg(argc, argv, "--threads", ""); !t.empty()) {
    torch::set_num_threads(std::stoi(t));
  }
  if (arg(argc, argv, "--quant-probe", "") == "1") {
    std::string engines;
    for (const c10::QEngine e : at::globalContext().supportedQEngines()) {
      engines += " " + c10::toString(e);
    }
    std::printf("quantized engines:%s\n", engines.c_str());
    quantised_linear_probe(2048, 64, 128);  // tiny FFN
    quantised_linear_probe(819, 320, 960);  // paper q/k/v
    quantised_linear_probe(819, 320, 640);  // paper FFN
    return 0;
  }
  const StatusOr<torch::Device> device = model::resolve_device(arg(argc, argv, "--device", "cpu"));
  const std::string words_in = arg(argc, argv, "--words-file", "");
  StatusOr<std::vector<std::string>> read =
      words_in.empty() ? corpus_runs(corpus) : file_lines(words_in);
  if (!read.ok() || !device.ok()) {
    std::fprintf(stderr, "%s\n", (read.ok() ? device.status() : read.status()).to_string().c_str());
    return 1;
  }
  std::vector<std::string> runs = std::move(*read);
  std::printf("%s: %zu distinct letter runs; device %s\n",
              words_in.empty() ? corpus.c_str() : words_in.c_str(), runs.size(),
              device->str().c_str());
  const std::string words_file = "/tmp/morpheus_inference_bench_words.txt";
  const auto take = [&](size_t n) {
    std::vector<std::string> w(runs.begin(), runs.begin() + std::min(n, runs.size()));
    std::string lines;
    for (const std::string& s : w) lines += s + "\n";
    (void)write_file_atomic(words_file, lines);
    return w;
  };
  infer::NeuralSegmenterOptions fast_options;
  fast_options.cache_capacity = 0;
  fast_options.device = *device;
  infer::NeuralSegmenterOptions old_options = fast_options;
  old_options.max_batch_chars = 1 << 15;
  if (!tokdir.empty()) {
    StatusOr<model::Morpheus> m = model::load_inference_checkpoint(path_join(tokdir, "model"));
    StatusOr<tokenizer::CharVocab> chars =
        tokenizer::CharVocab::load(path_join(tokdir, "char_vocab.json"));
    if (!m.ok() || !chars.ok()) {
      std::fprintf(stderr, "cannot load the model of %s\n", tokdir.c_str());
      return 1;
    }
    const std::vector<std::string> words = take(tiny_words);
    const double spm = spm_words_per_s(spm_model, words_file, words.size());
    infer::NeuralSegmenter fast(*m, *chars, fast_options);
    infer::NeuralSegmenter old(*m, *chars, old_options);
    report(("model of " + tokdir).c_str(), fast, old, words, spm, reps);
    report_tf32(fast, words, reps, *device);
    if (device->is_cpu())
      report_int8(("model of " + tokdir).c_str(), *m, *chars, words, guards, reps);
    sweep(*m, *chars, words, arg(argc, argv, "--sweep", ""), *device);
  }
  {
    std::unordered_map<char32_t, uint64_t> counts;
    for (const std::string& r : runs) {
      const StatusOr<std::u32string> cps = utf8::decode(r);
      if (cps.ok()) {
        for (char32_t c : *cps) ++counts[c];
      }
    }
    const tokenizer::CharVocab chars = tokenizer::CharVocab::build(counts, 0.9999, 1, U"");
    model::ModelConfig config;  // paper configuration, random weights
    config.char_vocab_size = chars.size();
    torch::manual_seed(1);
    model::Morpheus model(config);
    const std::vector<std::string> words = take(paper_words);
    const double spm = spm_words_per_s(spm_model, words_file, words.size());
    infer::NeuralSegmenter fast(model, chars, fast_options);
    infer::NeuralSegmenter old(model, chars, old_options);
    report("random paper-size model", fast, old, words, spm, 1);
    report_tf32(fast, words, reps, *device);
    if (device->is_cpu()) report_int8("random paper-size model", model, chars, words, guards, 1);
    sweep(model, chars, words, arg(argc, argv, "--sweep", ""), *device);
  }
  return 0;
}
