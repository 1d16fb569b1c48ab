// SPDX-License-Identifier: MIT
// `morpheus hybrid encode|decode|segment --lexicon DIR [--lossless] [FILE|-]`: the rule-based
// hybrid Turkish tokenizer of Bayram et al. (baselines/hybrid/). encode prints space-separated ids
// per input line, decode turns such lines back into text, segment prints word<TAB>pieces.
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "baselines/hybrid/hybrid_tokenizer.h"
#include "core/file_util.h"
#include "tokenizer/segment_file.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

using tokenizer::hybrid::HybridMode;
using tokenizer::hybrid::HybridTokenizer;

enum class HybridAction { kEncode, kDecode, kSegment };

struct HybridArgs {
  std::string lexicon;
  bool lossless = false;
  std::string input = "-";
  std::string output = "-";
};

std::string at_line(const LineReader& reader) {
  return reader.path() + ": line " + std::to_string(reader.line_number());
}

// Parses "12 0 345" into ids; errors name the offending token.
Status parse_ids(const std::string& line, std::vector<int32_t>* ids) {
  ids->clear();
  size_t pos = 0;
  while (pos < line.size()) {
    if (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r') {
      ++pos;
      continue;
    }
    size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    const std::string token = line.substr(pos, end - pos);
    char* stop = nullptr;
    errno = 0;
    const long long value = std::strtoll(token.c_str(), &stop, 10);
    if (token.empty() || stop != token.c_str() + token.size() || errno != 0 || value < 0 ||
        value > INT32_MAX) {
      return invalid_argument("\"" + token + "\" is not a token id",
                              "decode expects lines of space-separated non-negative integers");
    }
    ids->push_back(static_cast<int32_t>(value));
    pos = end;
  }
  return ok_status();
}

Status run_hybrid(HybridAction action, const HybridArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(
      HybridTokenizer tok,
      HybridTokenizer::load(args.lexicon,
                            args.lossless ? HybridMode::kLossless : HybridMode::kReference));
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(args.input, /*validate_utf8=*/true));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(args.output));
  std::string line;
  std::string text;
  std::vector<int32_t> ids;
  while (reader.next(&line)) {
    text.clear();
    if (action == HybridAction::kEncode) {
      tok.encode(line, &ids);
      for (size_t i = 0; i < ids.size(); ++i) {
        if (i > 0) text.push_back(' ');
        text += std::to_string(ids[i]);
      }
    } else if (action == HybridAction::kDecode) {
      Status parsed = parse_ids(line, &ids);
      if (!parsed.ok()) return parsed.prepend(at_line(reader));
      StatusOr<std::string> decoded = tok.decode(ids);
      if (!decoded.ok()) {
        Status s = decoded.status();
        return s.prepend(at_line(reader));
      }
      text = std::move(decoded).value();
    } else {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      if (line.find_first_of(" \t") != std::string::npos) {
        return invalid_argument(at_line(reader) + ": a word holds a space or tab",
                                "segment reads one word per line (run pretokenize first)");
      }
      text = tokenizer::format_segment_line(line, tok.cut(line));
    }
    text.push_back('\n');
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out.close();
}

}  // namespace

void register_hybrid_commands(CLI::App& app, CommandRegistry& registry) {
  CLI::App* hybrid = app.add_subcommand(
      "hybrid", "The rule-based hybrid Turkish tokenizer of Bayram et al. (roots, suffixes, BPE)");
  hybrid->require_subcommand(1);
  struct Leaf {
    const char* name;
    HybridAction action;
    const char* help;
  };
  const Leaf leaves[] = {
      {"encode", HybridAction::kEncode, "Text lines in, space-separated ids out (one line each)"},
      {"decode", HybridAction::kDecode, "Lines of space-separated ids in, text lines out"},
      {"segment", HybridAction::kSegment,
       "One word per line in, word<TAB>piece piece ... out (pieces spell the word)"},
  };
  for (const Leaf& leaf : leaves) {
    auto args = std::make_shared<HybridArgs>();
    CLI::App* cmd = hybrid->add_subcommand(leaf.name, leaf.help);
    cmd->add_option("--lexicon", args->lexicon,
                    "Directory with kokler.json, ekler.json, bpe_tokenler.json")
        ->required();
    cmd->add_flag("--lossless", args->lossless,
                  "Lossless mode: decode(encode(s)) == s for every string (272 extra ids); "
                  "default is the reference behaviour, id for id");
    cmd->add_option("input", args->input, "Input file, - for stdin")->capture_default_str();
    cmd->add_option("-o,--output", args->output, "Output file, - for stdout")
        ->capture_default_str();
    const HybridAction action = leaf.action;
    registry.add(cmd, [args, action] { return run_hybrid(action, *args); });
  }
}

}  // namespace morpheus::tools
