// SPDX-License-Identifier: MIT
// `morpheus-spm train|encode|decode|segment`: SentencePiece BPE/Unigram (tokenizer/spm_model.h)
// with the same line I/O as the other tokenizers (tools/codec_io.h).
#include "tools/spm_commands.h"

#include <memory>
#include <string>

#include "core/logging.h"
#include "tokenizer/spm_model.h"
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

}  // namespace

void register_spm_commands(CLI::App& app, CommandRegistry& registry) {
  auto targs = std::make_shared<tokenizer::SpmTrainOptions>();
  CLI::App* train = app.add_subcommand("train", "Train a SentencePiece model directory");
  train->add_option("--corpus", targs->corpus, "Text corpus, one sentence per line")->required();
  train->add_option("--type", targs->type, "bpe or unigram")->capture_default_str();
  train->add_option("--vocab-size", targs->vocab_size, "Vocabulary size")->capture_default_str();
  train->add_option("--threads", targs->threads, "Trainer threads")->capture_default_str();
  train->add_option("--out", targs->out, "Output model directory")->required();
  registry.add(train, [targs] {
    MORPHEUS_RETURN_IF_ERROR(tokenizer::spm_train(*targs));
    MORPHEUS_LOG(kInfo, "morpheus-spm: wrote ", targs->out);
    return ok_status();
  });
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
