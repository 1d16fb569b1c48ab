// SPDX-License-Identifier: MIT
// tokenizer_bench: speed of the Morpheus tokenizer next to SentencePiece BPE 32K on one corpus.
//   * cold segmentation: every distinct letter run of the corpus through the model (no cache)
//   * process start-up: the torch-free `morpheus` front, `morpheus-torch` (LibTorch), morpheus-spm
//   * encode: `morpheus encode` end to end, run twice (the second = warm OS caches), with the
//     segment table of the exported word types (the corpus's own), next to
//     `morpheus-spm encode`, and in process
//   * decode: words/s of `morpheus decode` and in process, next to `morpheus-spm decode`
// The model is randomly initialised with the paper configuration (same size and cost as a
// trained one; the segmentation it gives is meaningless, the speed is not).
#include <sys/wait.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bench/shared_data.h"
#include "core/file_util.h"
#include "core/status.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "exporter/torch/export.h"
#include "infer/tokenizer_model.h"
#include "model/checkpoint.h"
#include "tokenizer/char_vocab.h"
#include "tokenizer/pretokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;
using morpheus::path_join;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Runs a shell command; returns wall seconds, or -1 when it failed.
double timed_system(const std::string& command) {
  const auto t = Clock::now();
  const int rc = std::system(command.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "failed (%d): %s\n", rc, command.c_str());
    return -1;
  }
  return seconds_since(t);
}

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (name == argv[i]) return argv[i + 1];
  }
  return fallback;
}

// The corpus split into lines, with its length in characters and in whitespace-separated words.
struct Corpus {
  std::string text;
  std::vector<std::string> lines;
  size_t chars = 0;
  size_t words = 0;
};

Corpus split_corpus(std::string text) {
  Corpus corpus;
  corpus.text = std::move(text);
  const std::string& t = corpus.text;
  size_t begin = 0;
  while (begin < t.size()) {
    size_t end = t.find('\n', begin);
    if (end == std::string::npos) end = t.size();
    corpus.lines.push_back(t.substr(begin, end - begin));
    begin = end + 1;
  }
  corpus.chars = morpheus::utf8::length(t);
  bool in_word = false;
  for (char c : t) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space && !in_word) ++corpus.words;
    in_word = !space;
  }
  return corpus;
}

// Letter runs (original case) with counts, the char counts of the distinct folded runs and the
// distinct folded runs themselves.
struct LetterRuns {
  std::unordered_map<std::string, uint64_t> run_counts;
  std::unordered_map<char32_t, uint64_t> char_counts;
  std::unordered_set<std::string> folded_set;
};

LetterRuns collect_letter_runs(const std::vector<std::string>& lines) {
  using namespace morpheus;
  LetterRuns runs;
  std::vector<tokenizer::Span> spans;
  for (const std::string& line : lines) {
    spans.clear();
    tokenizer::pretokenize_into(line, spans);
    for (const tokenizer::Span& s : spans) {
      if (s.kind != tokenizer::SpanKind::kLetter) continue;
      const std::string run(s.text(line));
      ++runs.run_counts[run];
      const std::string folded = unicode::to_lower(run);
      if (runs.folded_set.insert(folded).second) {
        const StatusOr<std::u32string> cps = utf8::decode(folded);
        if (cps.ok()) {
          for (char32_t c : *cps) ++runs.char_counts[c];
        }
      }
    }
  }
  return runs;
}

// Cold segmentation: every distinct run through the model once, no cache.
void bench_cold_segmentation(const morpheus::model::Morpheus& model,
                             const morpheus::tokenizer::CharVocab& chars_vocab,
                             const std::unordered_set<std::string>& folded_set) {
  morpheus::infer::NeuralSegmenterOptions options;
  options.cache_capacity = 0;
  morpheus::infer::NeuralSegmenter seg(model, chars_vocab, options);
  const std::vector<std::string> runs(folded_set.begin(), folded_set.end());
  const auto t = Clock::now();
  seg.segment_many(runs);
  const double s = seconds_since(t);
  std::printf("cold segmentation: %zu words in %.2f s = %.0f words/s\n", runs.size(), s,
              static_cast<double>(runs.size()) / s);
}

// Throughput of the exported tokenizer in process (one thread).
struct InProcessSpeed {
  double warm_chars_per_s = 0;
  double decode_words_per_s = 0;
};

// In process: warm encode (second pass) and decode of the tokenizer under `tok`.
morpheus::StatusOr<InProcessSpeed> bench_in_process(const std::string& tok, const Corpus& corpus) {
  using namespace morpheus;
  auto loaded = infer::load_with_model(tok);
  if (!loaded.ok()) return loaded.status();
  const tokenizer::Tokenizer& t = **loaded;
  const std::vector<std::string>& lines = corpus.lines;
  std::vector<std::vector<int32_t>> ids(lines.size());
  MORPHEUS_RETURN_IF_ERROR(t.prefetch(lines));
  for (size_t i = 0; i < lines.size(); ++i) (void)t.encode(lines[i], &ids[i], false);
  for (auto& v : ids) v.clear();
  auto t0 = Clock::now();
  for (size_t i = 0; i < lines.size(); ++i) (void)t.encode(lines[i], &ids[i], false);
  const double enc = seconds_since(t0);
  InProcessSpeed speed;
  speed.warm_chars_per_s = static_cast<double>(corpus.chars) / enc;
  std::string back;
  t0 = Clock::now();
  for (const auto& v : ids) {
    back.clear();
    (void)t.decode(v, &back);
  }
  const double dec = seconds_since(t0);
  speed.decode_words_per_s = static_cast<double>(corpus.words) / dec;
  std::printf(
      "in-process (1 thread): warm encode %.2f M chars/s; decode %.2f M words/s; model loaded: "
      "%s (table runs %zu)\n",
      speed.warm_chars_per_s / 1e6, speed.decode_words_per_s / 1e6,
      t.model_created() ? "yes" : "no", t.table().size());
  return speed;
}

// Best wall time of `n` runs of a shell command, or -1 when one failed.
double best_of(int n, const std::string& command) {
  double best = 1e9;
  for (int i = 0; i < n; ++i) {
    const double s = timed_system(command);
    if (s < 0) return -1.0;
    best = std::min(best, s);
  }
  return best;
}

// The three binaries the command line figures compare.
struct Binaries {
  std::string morpheus = MORPHEUS_BINARY;
  std::string torch = MORPHEUS_TORCH_BINARY;
  std::string spm = MORPHEUS_SPM_BINARY;
};

// Process start-up (best of 5).
void bench_startup(const Binaries& bin) {
  const double start_front = best_of(5, bin.morpheus + " decode --help > /dev/null");
  const double start_torch = best_of(5, bin.torch + " --version > /dev/null");
  const double start_spm = best_of(5, bin.spm + " --help > /dev/null");
  std::printf(
      "process start-up: morpheus (torch-free front) %.3f s, morpheus-torch (LibTorch) %.3f s, "
      "morpheus-spm %.3f s\n",
      start_front, start_torch, start_spm);
}

// End to end through the command line tools, same corpus; each command runs twice and the
// second (warm) run counts. Trains the SentencePiece BPE-32K model on `spm_corpus` under `work`
// when it is not there yet. Returns the exit code: 0 when decode(encode(corpus)) == corpus.
int bench_cli(const Binaries& bin, const std::string& work, const std::string& tok,
              const std::string& corpus_path, const std::string& spm_corpus, const Corpus& corpus,
              const InProcessSpeed& in_process) {
  using morpheus::read_file;
  using morpheus::StatusOr;
  const std::string spm_model = path_join(work, "spm_bpe32k");
  if (!std::filesystem::exists(spm_model)) {
    if (timed_system(bin.spm + " train --corpus " + spm_corpus +
                     " --type bpe --vocab-size 32000 --out " + spm_model + " > /dev/null") < 0) {
      return 1;
    }
  }
  const std::string ids_m = path_join(work, "ids.morpheus");
  const std::string ids_s = path_join(work, "ids.spm");
  const std::string back_m = path_join(work, "back.morpheus");
  const std::string& m = bin.morpheus;
  const std::string& spm = bin.spm;
  const double enc_m_first =
      timed_system(m + " encode --model " + tok + " " + corpus_path + " > " + ids_m);
  const double enc_m =
      timed_system(m + " encode --model " + tok + " " + corpus_path + " > " + ids_m);
  (void)timed_system(spm + " encode --model " + spm_model + " " + corpus_path + " > " + ids_s);
  const double enc_s =
      timed_system(spm + " encode --model " + spm_model + " " + corpus_path + " > " + ids_s);
  (void)timed_system(m + " decode --model " + tok + " " + ids_m + " > " + back_m);
  const double dec_m = timed_system(m + " decode --model " + tok + " " + ids_m + " > " + back_m);
  (void)timed_system(spm + " decode --model " + spm_model + " " + ids_s + " > /dev/null");
  const double dec_s =
      timed_system(spm + " decode --model " + spm_model + " " + ids_s + " > /dev/null");
  if (enc_m_first < 0 || enc_m < 0 || enc_s < 0 || dec_m < 0 || dec_s < 0) return 1;
  StatusOr<std::string> back = read_file(back_m);
  const std::string& text = corpus.text;
  const bool round_trip =
      back.ok() && *back == text + (text.empty() || text.back() == '\n' ? "" : "\n");
  const double c = static_cast<double>(corpus.chars);
  const double w = static_cast<double>(corpus.words);
  const double warm_chars_per_s = in_process.warm_chars_per_s;
  std::printf("CLI round trip (decode(encode(corpus)) == corpus): %s\n", round_trip ? "yes" : "NO");
  std::printf(
      "CLI encode, warm (2nd run, end to end incl. start-up; 1st run %.3f s): morpheus %.3f s = "
      "%.2f M chars/s, morpheus-spm BPE-32K %.3f s = %.2f M chars/s, ratio morpheus/spm %.2f\n",
      enc_m_first, enc_m, c / enc_m / 1e6, enc_s, c / enc_s / 1e6, enc_s / enc_m);
  std::printf(
      "warm encode in process: morpheus %.2f M chars/s vs morpheus-spm CLI %.2f M chars/s, "
      "ratio %.2f\n",
      warm_chars_per_s / 1e6, c / enc_s / 1e6, warm_chars_per_s / (c / enc_s));
  std::printf(
      "CLI decode (2nd run): morpheus %.3f s = %.2f M words/s, morpheus-spm %.3f s = %.2f M "
      "words/s, ratio morpheus/spm %.2f; in process %.2f M words/s\n",
      dec_m, w / dec_m / 1e6, dec_s, w / dec_s / 1e6, dec_s / dec_m,
      in_process.decode_words_per_s / 1e6);
  return round_trip ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace morpheus;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are measured
  const std::string data = bench::shared_data_dir() + "/corpus/";
  const std::string corpus_path = arg(argc, argv, "--corpus", data + "dev_ud_sentences.txt");
  const std::string spm_corpus = arg(argc, argv, "--spm-corpus", data + "train_corpus.txt");
  const std::string work = arg(argc, argv, "--work", "/tmp/morpheus_tokenizer_bench");
  const Binaries bin;
  std::filesystem::create_directories(work);

  StatusOr<std::string> text = read_file(corpus_path);
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", text.status().to_string().c_str());
    return 1;
  }
  const Corpus corpus = split_corpus(std::move(*text));
  const LetterRuns runs = collect_letter_runs(corpus.lines);
  const tokenizer::CharVocab chars_vocab =
      tokenizer::CharVocab::build(runs.char_counts, 0.9999, 1, U"");
  model::ModelConfig config;  // paper configuration
  config.char_vocab_size = chars_vocab.size();
  torch::manual_seed(1);
  model::Morpheus model(config);
  const std::string ckpt = path_join(work, "ckpt");
  const std::string words_path = path_join(work, "words.tsv");
  const std::string tok = path_join(work, "tok");
  std::string words_tsv;
  for (const auto& [w, n] : runs.run_counts) words_tsv += w + "\t" + std::to_string(n) + "\n";
  if (!model::save_inference_checkpoint(ckpt, model).ok() ||
      !chars_vocab.save(path_join(ckpt, "char_vocab.json")).ok() ||
      !write_file_atomic(words_path, words_tsv).ok()) {
    std::fprintf(stderr, "cannot write under %s\n", work.c_str());
    return 1;
  }
  std::printf("corpus %s: %zu lines, %zu chars, %zu words, %zu distinct letter runs\n",
              corpus_path.c_str(), corpus.lines.size(), corpus.chars, corpus.words,
              runs.folded_set.size());
  std::printf("model: random paper configuration (%lld parameters), %d intra-op threads\n",
              static_cast<long long>(model::count_parameters(*model)), torch::get_num_threads());

  bench_cold_segmentation(model, chars_vocab, runs.folded_set);
  exporter::ExportOptions ex;
  ex.checkpoint = ckpt;
  ex.writer.words = words_path;
  ex.writer.out = tok;
  ex.writer.vocab_size = 32000;
  ex.writer.min_count = 1;
  if (Status s = exporter::export_tokenizer(ex); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    return 1;
  }
  const StatusOr<InProcessSpeed> in_process = bench_in_process(tok, corpus);
  if (!in_process.ok()) {
    std::fprintf(stderr, "%s\n", in_process.status().to_string().c_str());
    return 1;
  }
  bench_startup(bin);
  return bench_cli(bin, work, tok, corpus_path, spm_corpus, corpus, *in_process);
}
