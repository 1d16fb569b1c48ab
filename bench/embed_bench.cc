// SPDX-License-Identifier: MIT
// embed_bench: words/s of `morpheus embed`'s engine path (engine::EngineSegmenter::embed) for the
// two word-vector layouts of engine/embedding_layout.h on one tokenizer directory's trained model,
// in the same run: "mean" (one vector of all segments) and "root-inflection" (the root segment,
// the suffixes' mean and the last suffix, three fusions per word). The layouts alternate
// rep by rep so the machine's state is shared; the ratio is root-inflection / mean.
//   build/dev/bench/embed_bench --model runs/main/tokenizer [--words 50000] [--reps 3]
//                               [--threads 1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/word_counts.h"
#include "engine/directory.h"
#include "engine/embedding_layout.h"
#include "tokenizer/directory_format.h"

namespace {

using Clock = std::chrono::steady_clock;
using morpheus::engine::EmbeddingLayout;
using morpheus::engine::EmbeddingPooling;

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (name == argv[i]) return argv[i + 1];
  }
  return fallback;
}

// Seconds of one embed call over `words` in `layout`.
double embed_seconds(morpheus::engine::EngineSegmenter* engine, const EmbeddingLayout& layout,
                     const std::vector<std::string>& words) {
  if (!engine->set_embedding_layout(layout).ok()) return -1;
  const auto t = Clock::now();
  const std::vector<float> rows = engine->embed(words);
  const double s = std::chrono::duration<double>(Clock::now() - t).count();
  return rows.size() == words.size() * layout.dim() ? s : -1;
}

int run(int argc, char** argv) {
  const std::string dir = arg(argc, argv, "--model", "runs/main/tokenizer");
  const size_t n = std::stoul(arg(argc, argv, "--words", "50000"));
  const int reps = std::stoi(arg(argc, argv, "--reps", "3"));
  morpheus::engine::EngineSegmenterOptions options;
  options.threads = std::stoul(arg(argc, argv, "--threads", "1"));
  auto config = morpheus::load_json_file(morpheus::tokenizer::tokenizer_config_path(dir));
  auto words = morpheus::read_word_list(morpheus::path_join(dir, "words.tsv"));
  if (!config.ok() || !words.ok()) {
    std::fprintf(stderr, "embed_bench: %s\n",
                 (!config.ok() ? config.status() : words.status()).to_string().c_str());
    return 1;
  }
  words->resize(std::min(n, words->size()));
  auto engine = morpheus::engine::load_directory_model(dir, *config, options);
  if (!engine.ok()) {
    std::fprintf(stderr, "embed_bench: %s\n", engine.status().to_string().c_str());
    return 1;
  }
  const size_t d = (*engine)->model().dim;
  const EmbeddingLayout mean(EmbeddingPooling::kMean, d);
  const EmbeddingLayout parts(EmbeddingPooling::kRootInflection, d);
  std::vector<double> best = {1e30, 1e30};
  for (int r = 0; r < reps; ++r) {
    for (size_t k = 0; k < 2; ++k) {
      const double s = embed_seconds(engine->get(), k == 0 ? mean : parts, *words);
      if (s < 0) {
        std::fprintf(stderr, "embed_bench: embed failed\n");
        return 1;
      }
      std::printf("rep %d %-16s %8.3f s  %9.0f words/s\n", r + 1,
                  k == 0 ? "mean" : "root-inflection", s, static_cast<double>(words->size()) / s);
      best[k] = std::min(best[k], s);
    }
  }
  std::printf(
      "%zu words of %s, %zu thread(s), best of %d: mean %.0f words/s, root-inflection "
      "%.0f words/s, ratio %.3f\n",
      words->size(), dir.c_str(), options.threads, reps,
      static_cast<double>(words->size()) / best[0], static_cast<double>(words->size()) / best[1],
      best[0] / best[1]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
