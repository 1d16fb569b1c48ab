// SPDX-License-Identifier: MIT
// `morpheus-spm train|encode|decode|segment`: SentencePiece BPE/Unigram (baselines/spm/spm_model.h)
// with the same line I/O as the other tokenizers (tools/codec_io.h); `morpheus-spm
// unigram-pieces`: a Unigram model's pieces for the plain tokenizers
// (baselines/spm/spm_unigram_pieces.h).
#include "tools/spm_commands.h"

#include <chrono>
#include <memory>
#include <string>

#include "baselines/spm/spm_model.h"
#include "baselines/spm/spm_unigram_pieces.h"
#include "core/logging.h"
#include "tools/codec_io.h"

namespace morpheus::tools {
namespace {

struct SpmRunArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
};

Status run_spm(const SpmRunArgs& args, const std::string& mode) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::SpmModel> model,
                            tokenizer::SpmModel::load(args.model));
  const tokenizer::SpmModel& m = *model;
  if (mode == "encode") {
    return encode_lines(
        args.input, args.output, false,
        [&m](std::string_view line, std::vector<int32_t>* ids) { return m.encode(line, ids); });
  }
  if (mode == "decode") {
    return decode_lines(
        args.input, args.output,
        [&m](const std::vector<int32_t>& ids, std::string* text) { return m.decode(ids, text); });
  }
  return segment_lines(args.input, args.output,
                       [&m](std::string_view word) { return m.segment(word); });
}

Status run_unigram_pieces(const tokenizer::UnigramPiecesOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::UnigramPieces pieces,
                            tokenizer::write_unigram_pieces(options));
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  MORPHEUS_LOG(kInfo, "morpheus-spm: wrote ", options.out, " (", pieces.pieces.size(),
               " pieces from ", pieces.trained_on_types, " types, ", pieces.trained_on_tokens,
               " tokens, ", seconds.count(), " s)");
  if (pieces.pieces.size() < static_cast<size_t>(options.train.vocab_size)) {
    MORPHEUS_LOG(kWarning, "morpheus-spm: ", pieces.pieces.size(), " pieces, not ",
                 options.train.vocab_size, ": the types allow no more");
  }
  return ok_status();
}

void add_train(CLI::App& app, CommandRegistry& registry) {
  auto targs = std::make_shared<tokenizer::SpmTrainOptions>();
  CLI::App* train = app.add_subcommand("train", "Train a SentencePiece model directory");
  train->add_option("--corpus", targs->corpus, "Text corpus, one sentence per line")->required();
  train->add_option("--type", targs->type, "bpe or unigram")->capture_default_str();
  train->add_option("--vocab-size", targs->vocab_size, "Vocabulary size")->capture_default_str();
  train->add_option("--threads", targs->threads, "Trainer threads")->capture_default_str();
  train->add_flag("--add-dummy-prefix", targs->add_dummy_prefix,
                  "SentencePiece's add_dummy_prefix: a U+2581 before each non-empty line, dropped "
                  "again by decode (default: off)");
  train->add_option("--out", targs->out, "Output model directory")->required();
  registry.add(train, [targs] {
    MORPHEUS_RETURN_IF_ERROR(tokenizer::spm_train(*targs));
    MORPHEUS_LOG(kInfo, "morpheus-spm: wrote ", targs->out);
    return ok_status();
  });
}

void add_unigram_pieces(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<tokenizer::UnigramPiecesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "unigram-pieces",
      "Word types with counts -> a Unigram model's pieces and log-probs (the plain tokenizers)");
  cmd->footer(
      "SentencePiece's Unigram trainer on the types (input_format=tsv): no dummy prefix, identity "
      "normalization, no byte fallback, character coverage 1.0 (every character is a piece). "
      "PIECES.json: {\"format_version\":1, \"kind\":\"unigram-pieces\", \"pieces\", "
      "\"log_probs\", \"trained_on\":{\"types\",\"tokens\"}, \"vocab_size\"}.");
  cmd->add_option("--words", args->words,
                  "TYPES.tsv: word<TAB>count per line, case-folded letter runs, each once")
      ->required();
  cmd->add_option("--vocab-size", args->train.vocab_size,
                  "Pieces wanted in the JSON, <unk> not counted (fewer when the types allow no "
                  "more; at least the number of distinct characters)")
      ->required();
  cmd->add_option("--out", args->out, "PIECES.json, written atomically")->required();
  cmd->add_option("--threads", args->train.threads, "Trainer threads")->capture_default_str();
  registry.add(cmd, [args] { return run_unigram_pieces(*args); });
}

}  // namespace

void register_spm_commands(CLI::App& app, CommandRegistry& registry) {
  add_train(app, registry);
  add_unigram_pieces(app, registry);
  for (const std::string mode : {"encode", "decode", "segment"}) {
    auto args = std::make_shared<SpmRunArgs>();
    const char* help = mode == "encode"   ? "Text lines -> space-separated ids per line"
                       : mode == "decode" ? "Id lines -> the original text lines"
                                          : "One word per line -> word<TAB>piece piece ...";
    CLI::App* cmd = app.add_subcommand(mode, help);
    cmd->add_option("--model", args->model, "morpheus-spm model directory")->required();
    cmd->add_option("input", args->input, "Input file, - for stdin")->capture_default_str();
    cmd->add_option("-o,--output", args->output, "Output file, - for stdout")
        ->capture_default_str();
    registry.add(cmd, [args, mode] { return run_spm(*args, mode); });
  }
}

}  // namespace morpheus::tools
