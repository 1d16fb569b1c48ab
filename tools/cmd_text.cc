// SPDX-License-Identifier: MIT
// `morpheus pretokenize [FILE|-]`: one JSON array of [kind, text] spans per input line.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/file_util.h"
#include "tokenizer/pretokenizer.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct PretokenizeArgs {
  std::string input = "-";
  std::string output = "-";
  bool allow_invalid = false;
};

Status run_pretokenize(const PretokenizeArgs& args) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(args.input, !args.allow_invalid));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(args.output));
  std::string line;
  std::vector<tokenizer::Span> spans;
  std::string buf;  // the JSON row, written out in pieces so a huge line stays cheap
  constexpr size_t kFlushBytes = size_t{1} << 20;
  while (reader.next(&line)) {
    spans.clear();
    tokenizer::pretokenize_into(line, spans);
    buf = "[";
    for (size_t i = 0; i < spans.size(); ++i) {
      const tokenizer::Span& s = spans[i];
      if (i > 0) buf += ',';
      buf += "[\"";
      if (s.kind == tokenizer::SpanKind::kInvalid) {
        buf += "invalid\",";
        buf += std::to_string(static_cast<unsigned>(static_cast<unsigned char>(line[s.begin])));
      } else {
        buf += tokenizer::span_kind_name(s.kind);
        buf += "\",";
        buf += nlohmann::json(std::string(s.text(line))).dump();
      }
      buf += ']';
      if (buf.size() >= kFlushBytes) {
        MORPHEUS_RETURN_IF_ERROR(out.write(buf));
        buf.clear();
      }
    }
    buf += "]\n";
    MORPHEUS_RETURN_IF_ERROR(out.write(buf));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out.close();
}

}  // namespace

void register_text_commands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<PretokenizeArgs>();
  CLI::App* cmd =
      app.add_subcommand("pretokenize",
                         "Cut text lines into lossless spans (letter, digit, space, apostrophe, "
                         "other); prints one JSON array of [kind, text] per line");
  cmd->add_option("input", args->input, "Input file, - for stdin")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Output file, - for stdout")->capture_default_str();
  cmd->add_flag("--allow-invalid", args->allow_invalid,
                "Pass invalid UTF-8 bytes through as [\"invalid\", byte] instead of failing");
  registry.add(cmd, [args] { return run_pretokenize(*args); });
}

}  // namespace morpheus::tools
