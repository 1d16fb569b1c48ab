// SPDX-License-Identifier: MIT
// `morpheus encode|decode|segment --model TOKDIR`: the Morpheus tokenizer directory as a lossless
// tokenizer and offline segmenter. Torch-free: letter runs outside the segmentation table go to
// a model segmenter made by the caller (in process, or the model server co-process).
#include "tools/cmd_tokenize.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/pretokenizer.h"
#include "tools/codec_io.h"

namespace morpheus::tools {
namespace {

struct RunArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  bool allow_invalid = false;
  bool text = false;
  std::string shard;
  size_t cache = 1 << 20;
  size_t block_lines = 4096;
};

// One line of `segment --text`: a JSON array of the pieces of every span, in order; an invalid
// byte (with --allow-invalid) is {"byte": value}. Concatenating the strings gives the line.
Status segment_text_line(const TokenizerDir& tok, std::string_view line, bool allow_invalid,
                         std::string* out) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<tokenizer::Span> spans,
                            tokenizer::pretokenize(line, allow_invalid));
  nlohmann::json row = nlohmann::json::array();
  for (const tokenizer::Span& span : spans) {
    const std::string_view text = span.text(line);
    if (span.kind == tokenizer::SpanKind::kInvalid) {
      row.push_back({{"byte", static_cast<unsigned char>(text[0])}});
      continue;
    }
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces, tok.segment_word(text));
    for (std::string& p : pieces) row.push_back(std::move(p));
  }
  *out += row.dump();
  *out += '\n';
  return ok_status();
}

Status run_tokenizer(const RunArgs& args, const std::string& mode, const ModelMaker& model) {
  BlockOptions block;
  block.block_lines = args.block_lines;
  if (!args.shard.empty()) MORPHEUS_RETURN_IF_ERROR(parse_shard(args.shard, &block));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<TokenizerDir> loaded,
                            TokenizerDir::load(args.model, true, model(args.cache)));
  const TokenizerDir& tok = *loaded;
  block.prefetch = [&tok](const std::vector<std::string>& lines) { return tok.prefetch(lines); };
  const bool allow_invalid = args.allow_invalid;
  if (mode == "encode") {
    block.progress_label = "encode";
    return encode_lines(
        args.input, args.output, allow_invalid,
        [&tok, allow_invalid](std::string_view line, std::vector<int32_t>* ids) {
          return tok.encode(line, ids, allow_invalid);
        },
        block);
  }
  if (mode == "decode") {
    const tokenizer::PieceCodec& codec = tok.codec();
    return decode_lines(args.input, args.output,
                        [&codec](const std::vector<int32_t>& ids, std::string* text) {
                          return codec.decode(ids, text);
                        });
  }
  block.progress_label = "segment";
  if (args.text) {
    return transform_lines(args.input, args.output, !allow_invalid, block,
                           [&tok, allow_invalid](std::string_view line, std::string* out) {
                             return segment_text_line(tok, line, allow_invalid, out);
                           });
  }
  return segment_lines(
      args.input, args.output, [&tok](std::string_view word) { return tok.segment_word(word); },
      block);
}

}  // namespace

void register_tokenize_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model) {
  for (const std::string mode : {"encode", "decode", "segment"}) {
    auto args = std::make_shared<RunArgs>();
    const char* help = mode == "encode"   ? "Text lines -> space-separated ids per line"
                       : mode == "decode" ? "Id lines -> the original text lines"
                                          : "One word per line -> word<TAB>piece piece ...";
    CLI::App* cmd = app.add_subcommand(mode, help);
    cmd->add_option("--model", args->model, "Tokenizer directory (morpheus export)")->required();
    cmd->add_option("input", args->input, "Input file, - for stdin")->capture_default_str();
    cmd->add_option("-o,--output", args->output, "Output file, - for stdout")
        ->capture_default_str();
    if (mode != "decode") {
      cmd->add_flag("--allow-invalid", args->allow_invalid,
                    "Invalid UTF-8 bytes become byte tokens instead of an error");
      cmd->add_option("--shard", args->shard,
                      "i/n: process only lines n with (n-1) mod n == i (for parallel jobs)");
      cmd->add_option("--cache", args->cache, "Words kept in the segmentation cache (LRU)")
          ->capture_default_str();
      cmd->add_option("--block-lines", args->block_lines, "Lines batched through the model")
          ->capture_default_str();
    }
    if (mode == "segment") {
      cmd->add_flag("--text", args->text,
                    "Running text in: one JSON array of pieces per line (their concatenation is "
                    "the line)");
    }
    registry.add(cmd, [args, mode, model] {
      if (mode == "segment" && args->allow_invalid && !args->text) {
        return invalid_argument("--allow-invalid needs --text for segment",
                                "word lists must be valid UTF-8");
      }
      return run_tokenizer(*args, mode, model);
    });
  }
}

}  // namespace morpheus::tools
