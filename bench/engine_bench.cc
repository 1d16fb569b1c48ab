// SPDX-License-Identifier: MIT
// engine_bench: words/s of new word types (every distinct letter run of a corpus once, no cache)
// through the torch-free engine (engine::EngineSegmenter) and through the LibTorch packed path
// (infer::NeuralSegmenter in float), on the same random-weight model at configs/tiny.json and
// configs/paper.json, at each thread count; prints the ratio engine / LibTorch, the words the two
// segment differently (close calls only), the share of chunks the engine recomputed in double
// precision, and the engine's words/s with a threshold no logit comes near (its float path
// alone: random weights put many logits near the default threshold's). Targets:
// engine >= 2x LibTorch for the tiny model, >= 1x for the paper-size one.
// Options (defaults): --corpus FILE (the npm corpus), --words 30000 (tiny), --paper-words 2000,
// --reps 3 (best of), --threads 1,2, --block POSITIONS (engine block size; 0 = its default),
// --engine-only 1 (no LibTorch runs: for profiling the engine), --model TOKDIR (instead: the
// trained model of a tokenizer directory on --words words, at its threshold).
// BLAS threads: LibTorch runs with OpenBLAS at its thread count, the engine with one BLAS thread
// per call (its own threads split the words).
#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "engine/forward.h"
#include "engine/segmenter.h"
#include "engine/weight_file.h"
#include "exporter/torch/engine_weights.h"
#include "infer/neural_segmenter.h"
#include "model/checkpoint.h"
#include "model/cpu_allocator.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/pretokenizer.h"

namespace {

using namespace morpheus;
using engine::EngineCounters;
using Clock = std::chrono::steady_clock;

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (name == argv[i]) return argv[i + 1];
  }
  return fallback;
}

std::vector<size_t> thread_counts(const std::string& list) {
  std::vector<size_t> out;
  for (size_t begin = 0; begin < list.size();) {
    size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    out.push_back(std::stoul(list.substr(begin, end - begin)));
    begin = end + 1;
  }
  return out;
}

// OpenBLAS's thread count (no-op with another BLAS).
void set_blas_threads(int n) {
  using SetThreads = void (*)(int);
  if (void* f = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"); f != nullptr) {
    reinterpret_cast<SetThreads>(f)(n);
  }
}

// Distinct folded letter runs of `text`, in order of first occurrence.
std::vector<std::string> distinct_runs(const std::string& text) {
  std::vector<std::string> runs;
  std::unordered_set<std::string> seen;
  std::vector<tokenizer::Span> spans;
  tokenizer::pretokenize_into(text, spans);
  for (const tokenizer::Span& s : spans) {
    if (s.kind != tokenizer::SpanKind::kLetter) continue;
    std::string folded = unicode::to_lower(std::string(s.text(text)));
    if (seen.insert(folded).second) runs.push_back(std::move(folded));
  }
  return runs;
}

tokenizer::CharVocab vocab_of(const std::vector<std::string>& runs) {
  std::unordered_map<char32_t, uint64_t> counts;
  for (const std::string& r : runs) {
    if (StatusOr<std::u32string> cps = utf8::decode(r); cps.ok()) {
      for (char32_t c : *cps) ++counts[c];
    }
  }
  return tokenizer::CharVocab::build(counts, 0.9999, 1, U"");
}

// Best wall time of `reps` runs of fn.
template <typename Fn>
double best_seconds(int reps, Fn fn) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t).count());
  }
  return best;
}

struct Options {
  std::vector<size_t> threads;
  int reps = 3;
  size_t block = 0;
  bool engine_only = false;
};

// Writes the engine weights of `m` and times both paths on `words` (threshold 0: the model's).
void run_model(const std::string& name, const model::Morpheus& m,
               const std::vector<std::string>& words, const tokenizer::CharVocab& chars,
               double threshold, const Options& opt) {
  const std::string path = "/tmp/morpheus_engine_bench.weights";
  if (const Status s = exporter::write_engine_weights(m, path); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return;
  }
  StatusOr<std::shared_ptr<const engine::Model>> model = engine::Model::load(path);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().to_string().c_str());
    return;
  }
  infer::NeuralSegmenterOptions torch_options;
  torch_options.cache_capacity = 0;
  torch_options.threshold = threshold;
  const infer::NeuralSegmenter torch_segmenter(m, chars, torch_options);
  for (size_t t : opt.threads) {
    torch::set_num_threads(static_cast<int>(t));
    set_blas_threads(static_cast<int>(t));
    std::vector<std::vector<std::string>> expected(words.size());
    const double torch_s = opt.engine_only ? 0.0 : best_seconds(opt.reps, [&] {
      expected = torch_segmenter.segment_many(words);
    });
    set_blas_threads(1);
    engine::EngineSegmenterOptions options;
    if (threshold > 0) options.threshold = threshold;
    options.threads = t;
    options.block_positions = opt.block;
    const engine::EngineSegmenter engine_segmenter(*model, chars, options);
    tokenizer::Segmentation pieces;
    const double engine_s =
        best_seconds(opt.reps, [&] { pieces = engine_segmenter.segment(words).value(); });
    // The float path alone: a threshold no logit comes near (no close calls to recompute).
    options.threshold = 1 - 1e-9;
    const engine::EngineSegmenter far_segmenter(*model, chars, options);
    const double far_s =
        best_seconds(opt.reps, [&] { (void)far_segmenter.segment(words).value(); });
    const double n = static_cast<double>(words.size());
    const EngineCounters c = engine_segmenter.counters();
    const double rechecked =
        100.0 * static_cast<double>(c.rechecked) / static_cast<double>(c.chunks);
    if (opt.engine_only) {
      std::printf(
          "%-10s threads %zu: engine %7.0f words/s; engine without close calls %7.0f "
          "words/s; %zu words, %.2f %% of chunks recomputed in double\n",
          name.c_str(), t, n / engine_s, n / far_s, words.size(), rechecked);
      continue;
    }
    size_t differ = 0;
    float widest = 0;  // the largest LibTorch decision margin among the words that differ
    for (size_t i = 0; i < words.size(); ++i) {
      if (pieces[i] == expected[i]) continue;
      ++differ;
      widest = std::max(widest, torch_segmenter.decision_margin(words[i]));
    }
    std::printf(
        "%-10s threads %zu: engine %7.0f words/s, LibTorch %7.0f words/s, ratio %.2fx; "
        "engine without close calls %7.0f words/s (%.2fx); %zu words, %zu segmented "
        "differently (largest LibTorch |logit - threshold logit| among them %.4f; close-call "
        "margin of the engine %.4f), %.2f %% of chunks recomputed in double\n",
        name.c_str(), t, n / engine_s, n / torch_s, torch_s / engine_s, n / far_s, torch_s / far_s,
        words.size(), differ, static_cast<double>(widest), engine::kCloseCallMargin, rechecked);
  }
}

// A random-weight model of configs/NAME.
void run_config(const std::string& name, const std::vector<std::string>& words,
                const tokenizer::CharVocab& chars, const Options& opt) {
  StatusOr<nlohmann::json> j =
      load_json_file(std::string(MORPHEUS_SOURCE_DIR) + "/configs/" + name);
  if (!j.ok()) {
    std::fprintf(stderr, "%s\n", j.status().to_string().c_str());
    return;
  }
  model::ModelConfig config;
  from_json(j->at("model"), config);
  config.char_vocab_size = chars.size();
  torch::manual_seed(1);
  model::Morpheus m(config);
  m->eval();
  run_model(name, m, words, chars, 0.0, opt);
}

// The trained model of a tokenizer directory (its LibTorch checkpoint, characters and
// threshold).
void run_trained(const std::string& dir, const std::vector<std::string>& words,
                 const Options& opt) {
  StatusOr<model::Morpheus> m = model::load_inference_checkpoint(path_join(dir, "model"));
  StatusOr<tokenizer::CharVocab> chars =
      tokenizer::CharVocab::load(path_join(dir, "char_vocab.json"));
  StatusOr<nlohmann::json> config = load_json_file(path_join(dir, "morpheus.json"));
  if (!m.ok() || !chars.ok() || !config.ok()) {
    std::fprintf(stderr, "%s: not a tokenizer directory with a LibTorch checkpoint\n", dir.c_str());
    return;
  }
  (*m)->eval();
  run_model("trained", *m, words, *chars, config->value("threshold", 0.0), opt);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  model::install_caching_cpu_allocator();  // as morpheus-torch does
  const std::string corpus =
      arg(argc, argv, "--corpus",
          std::string(MORPHEUS_SOURCE_DIR) + "/node_modules/nlptoolkit-corpus/corpus.txt");
  const size_t tiny_words = std::stoul(arg(argc, argv, "--words", "30000"));
  const size_t paper_words = std::stoul(arg(argc, argv, "--paper-words", "2000"));
  Options opt;
  opt.reps = std::stoi(arg(argc, argv, "--reps", "3"));
  opt.threads = thread_counts(arg(argc, argv, "--threads", "1,2"));
  opt.block = std::stoul(arg(argc, argv, "--block", "0"));
  opt.engine_only = arg(argc, argv, "--engine-only", "0") == "1";
  StatusOr<std::string> text = read_file(corpus);
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", text.status().to_string().c_str());
    return 1;
  }
  const std::vector<std::string> runs = distinct_runs(*text);
  const tokenizer::CharVocab chars = vocab_of(runs);
  std::printf("%s: %zu distinct letter runs, %u chars\n", corpus.c_str(), runs.size(),
              chars.size());
  auto take = [&](size_t n) {
    return std::vector<std::string>(
        runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(std::min(n, runs.size())));
  };
  const std::string trained = arg(argc, argv, "--model", "");
  if (!trained.empty()) {
    run_trained(trained, take(tiny_words), opt);
    return 0;
  }
  if (tiny_words > 0) run_config("tiny.json", take(tiny_words), chars, opt);
  if (paper_words > 0) run_config("paper.json", take(paper_words), chars, opt);
  return 0;
}
