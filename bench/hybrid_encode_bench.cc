// SPDX-License-Identifier: MIT
// Encoding speed of the hybrid Turkish tokenizer (reference and lossless modes) against a 32K
// SentencePiece BPE model trained on the same text, in one run on one core; plus the round-trip
// rate and tokens per word of both hybrid modes on a sentence file (Kenet dev by default).
//   hybrid_encode_bench [--corpus FILE] [--lexicon DIR] [--sentences FILE] [--vocab-size N]
//                       [--train-lines N] [--passes N]
// Torch-free: SentencePiece may live in this process (it never shares one with LibTorch, whose
// protobuf clashes with its own).
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "baselines/hybrid/hybrid_tokenizer.h"
#include "bench/shared_data.h"
#include "core/file_util.h"
#include "core/utf8.h"

namespace {

using morpheus::tokenizer::hybrid::HybridMode;
using morpheus::tokenizer::hybrid::HybridTokenizer;

struct Options {
  std::string corpus =
      std::string(MORPHEUS_SOURCE_DIR) + "/node_modules/nlptoolkit-corpus/corpus.txt";
  std::string lexicon = morpheus::bench::shared_data_dir() + "/hybrid";
  std::string sentences;  // default: <lexicon>/golden/kenet_dev.txt
  int vocab_size = 32768;
  size_t train_lines = 0;  // 0: all
  int passes = 3;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::string> read_lines(const std::string& path) {
  morpheus::LineReader reader;
  std::vector<std::string> lines;
  morpheus::Status st = reader.open(path);
  if (!st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    std::exit(1);
  }
  std::string line;
  while (reader.next(&line)) lines.push_back(line);
  if (!reader.status().ok()) {
    std::fprintf(stderr, "error: %s\n", reader.status().message().c_str());
    std::exit(1);
  }
  return lines;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timing {
  double wall = 1e30;  // best wall-clock seconds over the passes
  double cpu = 1e30;   // best CPU seconds of this thread (robust on a shared machine)
  size_t tokens = 0;
};

// Best times of `passes` runs of `fn` over all lines.
template <typename Fn>
Timing best_time(int passes, const std::vector<std::string>& lines, Fn fn) {
  Timing best;
  for (int p = 0; p < passes; ++p) {
    size_t n = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_seconds();
    for (const std::string& line : lines) n += fn(line);
    best.cpu = std::min(best.cpu, thread_cpu_seconds() - c0);
    best.wall = std::min(best.wall, seconds_since(t0));
    best.tokens = n;
  }
  return best;
}

void print_timing(const char* what, const Timing& t, double chars) {
  std::printf("  %-18s %8.2f M chars/s (CPU time)  %8.2f M chars/s (wall)  %.3f tokens/char\n",
              what, chars / t.cpu / 1e6, chars / t.wall / 1e6,
              static_cast<double>(t.tokens) / chars);
}

void round_trip_report(const HybridTokenizer& tok, const std::vector<std::string>& sentences) {
  size_t exact = 0;
  size_t words = 0;
  size_t tokens = 0;
  std::vector<int32_t> ids;
  std::set<std::string> types;
  for (const std::string& s : sentences) {
    tok.encode(s, &ids);
    auto back = tok.decode(ids);
    if (back.ok() && *back == s) ++exact;
    for (int32_t id : ids) tokens += id != morpheus::tokenizer::hybrid::kSpaceId ? 1 : 0;
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t end = s.find(' ', pos);
      if (end == std::string::npos) end = s.size();
      if (end > pos) {
        ++words;
        types.insert(s.substr(pos, end - pos));
      }
      pos = end + 1;
    }
  }
  size_t type_exact = 0;
  size_t running_exact = 0;
  for (const std::string& w : types) {
    auto back = tok.decode(tok.encode(w));
    if (back.ok() && *back == w) ++type_exact;
  }
  for (const std::string& s : sentences) {
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t end = s.find(' ', pos);
      if (end == std::string::npos) end = s.size();
      if (end > pos) {
        const std::string w = s.substr(pos, end - pos);
        auto back = tok.decode(tok.encode(w));
        if (back.ok() && *back == w) ++running_exact;
      }
      pos = end + 1;
    }
  }
  std::printf(
      "  %-16s sentences exact %zu/%zu (%.2f%%)  word types exact %zu/%zu (%.2f%%)  running "
      "words %.2f%%  non-space tokens/word %.3f\n",
      tok.name().c_str(), exact, sentences.size(),
      100.0 * static_cast<double>(exact) / static_cast<double>(sentences.size()), type_exact,
      types.size(), 100.0 * static_cast<double>(type_exact) / static_cast<double>(types.size()),
      100.0 * static_cast<double>(running_exact) / static_cast<double>(words),
      static_cast<double>(tokens) / static_cast<double>(words));
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus") {
      opt.corpus = value();
    } else if (a == "--lexicon") {
      opt.lexicon = value();
    } else if (a == "--sentences") {
      opt.sentences = value();
    } else if (a == "--vocab-size") {
      opt.vocab_size = std::atoi(value().c_str());
    } else if (a == "--train-lines") {
      opt.train_lines = static_cast<size_t>(std::atol(value().c_str()));
    } else if (a == "--passes") {
      opt.passes = std::max(1, std::atoi(value().c_str()));
    } else {
      std::fprintf(stderr,
                   "usage: hybrid_encode_bench [--corpus FILE] [--lexicon DIR] [--sentences FILE] "
                   "[--vocab-size N] [--train-lines N] [--passes N]\n");
      return 2;
    }
  }
  if (opt.sentences.empty()) opt.sentences = opt.lexicon + "/golden/kenet_dev.txt";

  auto reference = HybridTokenizer::load(opt.lexicon, HybridMode::kReference);
  if (!reference.ok()) {
    std::fprintf(stderr, "error: %s\n", reference.status().message().c_str());
    return 1;
  }
  const HybridTokenizer lossless(
      std::make_shared<const morpheus::tokenizer::hybrid::HybridLexicon>(reference->lexicon()),
      HybridMode::kLossless);
  const std::vector<std::string> lines = read_lines(opt.corpus);
  size_t chars = 0;
  size_t bytes = 0;
  for (const std::string& l : lines) {
    chars += morpheus::utf8::length(l);
    bytes += l.size();
  }
  std::printf("corpus: %s: %zu lines, %zu chars (code points), %zu bytes\n", opt.corpus.c_str(),
              lines.size(), chars, bytes);

  // Train SentencePiece BPE on the same text.
  char tmpl[] = "/tmp/hybrid_bench_XXXXXX";
  const char* tmp = mkdtemp(tmpl);
  if (tmp == nullptr) {
    std::fprintf(stderr, "error: cannot create a temp directory\n");
    return 1;
  }
  const std::string prefix = std::string(tmp) + "/spm";
  const std::string args =
      "--input=" + opt.corpus + " --model_prefix=" + prefix +
      " --model_type=bpe --vocab_size=" + std::to_string(opt.vocab_size) +
      " --character_coverage=1.0 --num_threads=2 --minloglevel=2" +
      (opt.train_lines > 0 ? " --input_sentence_size=" + std::to_string(opt.train_lines) +
                                 " --shuffle_input_sentence=true"
                           : std::string());
  std::printf("training SentencePiece: %s\n", args.c_str());
  std::fflush(stdout);
  const auto t_train = std::chrono::steady_clock::now();
  const auto trained = sentencepiece::SentencePieceTrainer::Train(args);
  if (!trained.ok()) {
    std::fprintf(stderr, "error: SentencePiece training failed: %s\n", trained.ToString().c_str());
    return 1;
  }
  std::printf("trained in %.1f s\n", seconds_since(t_train));
  sentencepiece::SentencePieceProcessor spm;
  const auto loaded = spm.Load(prefix + ".model");
  if (!loaded.ok()) {
    std::fprintf(stderr, "error: %s\n", loaded.ToString().c_str());
    return 1;
  }
  std::remove((prefix + ".model").c_str());
  std::remove((prefix + ".vocab").c_str());
  std::remove(tmp);

  std::vector<int32_t> ids;
  std::vector<int> spm_ids;
  const Timing t_ref = best_time(opt.passes, lines, [&](const std::string& l) {
    reference->encode(l, &ids);
    return ids.size();
  });
  const Timing t_ll = best_time(opt.passes, lines, [&](const std::string& l) {
    lossless.encode(l, &ids);
    return ids.size();
  });
  const Timing t_spm = best_time(opt.passes, lines, [&](const std::string& l) {
    spm.Encode(l, &spm_ids).IgnoreError();
    return spm_ids.size();
  });
  const double c = static_cast<double>(chars);
  std::printf("encode, one thread, best of %d passes (text in memory, lexicon/model loaded):\n",
              opt.passes);
  print_timing("hybrid reference", t_ref, c);
  print_timing("hybrid lossless", t_ll, c);
  print_timing("sentencepiece bpe", t_spm, c);
  std::printf("  (SentencePiece vocab %d)\n", spm.GetPieceSize());
  std::printf(
      "  ratio vs sentencepiece (CPU time): hybrid reference %.2fx, hybrid lossless %.2fx\n",
      t_spm.cpu / t_ref.cpu, t_spm.cpu / t_ll.cpu);

  if (morpheus::file_exists(opt.sentences)) {
    const std::vector<std::string> sentences = read_lines(opt.sentences);
    std::printf("round trip decode(encode(s)) == s on %s:\n", opt.sentences.c_str());
    round_trip_report(*reference, sentences);
    round_trip_report(lossless, sentences);
  }
  return 0;
}
