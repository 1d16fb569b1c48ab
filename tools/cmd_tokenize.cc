// SPDX-License-Identifier: MIT
// `morpheus encode|decode|segment --model TOKDIR`: the Morpheus tokenizer directory as a lossless
// tokenizer and offline segmenter. Torch-free: letter runs outside the segment table go to
// a model segmenter made by the caller (the engine in process, or LibTorch on a GPU).
#include "tools/cmd_tokenize.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "baselines/plain/plain_segmenters.h"
#include "core/logging.h"
#include "engine/directory.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_cache.h"
#include "tools/codec_io.h"

namespace morpheus::tools {
namespace {

struct RunArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  bool allow_invalid = false;
  bool text = false;
  std::string output_format = "id";  // encode: id, piece or json
  bool add_bos = false;
  bool add_eos = false;
  bool keep_special = false;  // decode
  std::string shard;
  ModelRequest request;  // --cache, --model-threads, --device
  std::string cache_file;
  size_t block_lines = 4096;
  size_t workers = 1;
};

struct CacheArgs {
  std::string model;
  std::vector<std::string> inputs;
  std::string output;
};

// One line of `segment --text`: a JSON array of the pieces of every span, in order; an invalid
// byte (with --allow-invalid) is {"byte": value}. Concatenating the strings gives the line.
Status segment_text_line(const tokenizer::Tokenizer& tok, std::string_view line, bool allow_invalid,
                         std::string* out) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<tokenizer::Span> spans,
                            tokenizer::pretokenize(line, allow_invalid));
  // Spans between white space and invalid bytes are segmented together, so that the codec sees
  // their context (an apostrophe between a proper name and its suffix chain).
  nlohmann::json row = nlohmann::json::array();
  size_t chunk = std::string_view::npos;  // start of the pending chunk
  const auto flush = [&](size_t end) -> Status {
    if (chunk == std::string_view::npos) return ok_status();
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces,
                              tok.segment(line.substr(chunk, end - chunk)));
    for (std::string& p : pieces) row.push_back(std::move(p));
    chunk = std::string_view::npos;
    return ok_status();
  };
  for (const tokenizer::Span& span : spans) {
    const std::string_view text = span.text(line);
    if (span.kind == tokenizer::SpanKind::kInvalid || span.kind == tokenizer::SpanKind::kSpace) {
      MORPHEUS_RETURN_IF_ERROR(flush(span.begin));
      if (span.kind == tokenizer::SpanKind::kInvalid) {
        row.push_back({{"byte", static_cast<unsigned char>(text[0])}});
      } else {
        row.push_back(std::string(text));
      }
      continue;
    }
    if (chunk == std::string_view::npos) chunk = span.begin;
  }
  MORPHEUS_RETURN_IF_ERROR(flush(line.size()));
  *out += row.dump();
  *out += '\n';
  return ok_status();
}

// A piece for `encode --output-format piece`: white space and backslashes escaped (\s \t \r \n
// \\), so that the pieces of a line, joined by spaces, line up one to one with its ids.
void append_escaped_piece(const std::string& piece, std::string* out) {
  for (const char c : piece) {
    switch (c) {
      case ' ':
        *out += "\\s";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\\':
        *out += "\\\\";
        break;
      default:
        *out += c;
    }
  }
}

// One line of `encode --output-format piece|json`.
Status format_encoded_line(const tokenizer::Tokenizer& tok, std::string_view line,
                           const tokenizer::EncodeOptions& options, bool json, std::string* out) {
  std::vector<int32_t> ids;
  tokenizer::Offsets offsets;
  MORPHEUS_RETURN_IF_ERROR(tok.encode(line, options, &ids, json ? &offsets : nullptr));
  if (!json) {
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) *out += ' ';
      append_escaped_piece(tok.id_to_piece(ids[i]), out);
    }
    *out += '\n';
    return ok_status();
  }
  nlohmann::ordered_json row = {{"ids", ids},
                                {"pieces", nlohmann::ordered_json::array()},
                                {"offsets", nlohmann::ordered_json::array()}};
  for (size_t i = 0; i < ids.size(); ++i) {
    row["pieces"].push_back(tok.id_to_piece(ids[i]));
    row["offsets"].push_back({offsets.chars[i].begin, offsets.chars[i].end});
  }
  *out += row.dump();
  *out += '\n';
  return ok_status();
}

// `morpheus tokenizer-info`: the id layout of a tokenizer directory as one JSON object.
Status run_tokenizer_info(const std::string& dir) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            tokenizer::Tokenizer::load(dir, true, {}));
  nlohmann::json info = {{"format_version", tok->config().value("format_version", 0)},
                         {"vocab_size", tok->vocab_size()},
                         {"pieces", tok->vocab_size() - tokenizer::PieceCodec::kFirstPieceId -
                                        static_cast<int32_t>(tok->special_tokens().size() +
                                                             tok->user_symbols().size())},
                         {"special_tokens", tok->special_tokens()},
                         {"user_symbols", tok->user_symbols()},
                         {"pad_id", tok->pad_id()},
                         {"bos_id", tok->bos_id()},
                         {"eos_id", tok->eos_id()},
                         {"mask_id", tok->mask_id()},
                         {"stream",
                          {{"word_initial", tok->codec_options().word_initial},
                           {"line_start_prefix", tok->codec_options().line_start_prefix},
                           {"merge_pieces", tok->codec_options().merge_pieces}}}};
  if (tok->config().contains("embedding")) {
    info["embedding"] = tok->config()["embedding"];
  } else if (tok->config().value("segmenter", nlohmann::json::object()).value("name", "") ==
             tokenizer::kModelSegmenter) {
    info["embedding"] = {{"pooling", "mean"}, {"parts", {{{"name", "full"}}}}};  // one part
  }
  std::printf("%s\n", info.dump(2).c_str());
  return ok_status();
}

// Progress note: shares of the distinct letter runs answered by the table / the cache file /
// the model; *words = letter runs so far.
std::string run_note(const tokenizer::Tokenizer& tok, uint64_t* words) {
  const tokenizer::Tokenizer::RunStats s = tok.run_stats();
  *words = s.words;
  const auto pct = [&s](uint64_t n) {
    return std::to_string(s.runs == 0 ? 0 : (100 * n + s.runs / 2) / s.runs) + "%";
  };
  std::string note = "distinct: table " + pct(s.table);
  if (s.cache > 0) note += " cache " + pct(s.cache);
  return note + " model " + pct(s.runs - s.table - s.cache);
}

// `morpheus cache merge|dump`.
Status run_cache(const CacheArgs& args, const std::string& mode) {
  if (mode == "dump") {
    tokenizer::CacheRecords records;
    tokenizer::CacheFileInfo info;
    MORPHEUS_RETURN_IF_ERROR(tokenizer::read_cache_file(args.inputs[0], 0, &records, &info));
    std::vector<const std::pair<const std::string, std::string>*> sorted;
    sorted.reserve(records.size());
    for (const auto& r : records) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    std::string text;
    for (const auto* r : sorted) text += r->first + "\t" + r->second + "\n";
    Output out;
    MORPHEUS_RETURN_IF_ERROR(out.open(args.output.empty() ? "-" : args.output));
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
    return out.close();
  }
  if (args.model.empty() || args.output.empty()) {
    return invalid_argument("cache merge needs --model TOKDIR and -o OUT",
                            "morpheus cache merge --model TOKDIR -o merged.cache a.cache b.cache");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            tokenizer::Tokenizer::load(args.model, false, {}));
  tokenizer::MergeSummary summary;
  MORPHEUS_RETURN_IF_ERROR(
      tokenizer::merge_cache_files(args.inputs, tok->id(), args.output, &summary));
  if (summary.conflicts > 0) {
    MORPHEUS_LOG(kWarning, "cache merge: ", summary.conflicts,
                 " runs segmented differently by two inputs (the first input's kept)");
  }
  std::fprintf(stderr, "cache merge: wrote %s (%zu runs from %zu files)\n", args.output.c_str(),
               summary.records, summary.files);
  return ok_status();
}

Status run_tokenizer(const RunArgs& args, const std::string& mode, const ModelMaker& model) {
  BlockOptions block;
  block.block_lines = args.block_lines;
  block.workers = args.workers;
  if (!args.shard.empty()) MORPHEUS_RETURN_IF_ERROR(parse_shard(args.shard, &block));
  tokenizer::cbpe::register_plain_segmenters();  // directories cut by plain BPE or Unigram
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::SegmenterSpec spec, model(args.request));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> loaded,
                            tokenizer::Tokenizer::load(args.model, true, std::move(spec)));
  const tokenizer::Tokenizer& tok = *loaded;
  if (!args.cache_file.empty()) MORPHEUS_RETURN_IF_ERROR(loaded->attach_cache(args.cache_file));
  block.prefetch = [&tok](const std::vector<std::string>& lines) {
    return tok.prefetch_begin(lines);
  };
  block.prefetch_wait = [&tok]() { return tok.prefetch_end(); };
  block.progress_note = [&tok](uint64_t* words) { return run_note(tok, words); };
  const bool allow_invalid = args.allow_invalid;
  if (mode == "encode") {
    block.progress_label = "encode";
    tokenizer::EncodeOptions options;
    options.allow_invalid = allow_invalid;
    options.add_bos = args.add_bos;
    options.add_eos = args.add_eos;
    if (args.output_format == "id") {
      return encode_lines(
          args.input, args.output, allow_invalid,
          [&tok, options](std::string_view line, std::vector<int32_t>* ids) {
            return tok.encode(line, options, ids);
          },
          block);
    }
    const bool json = args.output_format == "json";
    return transform_lines(args.input, args.output, !allow_invalid, block,
                           [&tok, options, json](std::string_view line, std::string* out) {
                             return format_encoded_line(tok, line, options, json, out);
                           });
  }
  if (mode == "decode") {
    const bool keep = args.keep_special;
    return decode_lines(args.input, args.output,
                        [&tok, keep](const std::vector<int32_t>& ids, std::string* text) {
                          return tok.decode(ids, text, keep);
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
      args.input, args.output, [&tok](std::string_view word) { return tok.segment(word); }, block);
}

}  // namespace

ModelMaker engine_model_maker() {
  return [](const ModelRequest& request) -> StatusOr<tokenizer::SegmenterSpec> {
    if (request.device != "cpu") {
      return invalid_argument("--device " + request.device + " needs morpheus-torch",
                              "the installed `morpheus` hands --device cuda to morpheus-torch");
    }
    return engine::engine_model_spec(
        static_cast<size_t>(request.threads > 0 ? request.threads : 1));
  };
}

void register_tokenize_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model) {
  for (const std::string mode : {"encode", "decode", "segment"}) {
    auto args = std::make_shared<RunArgs>();
    const char* help = mode == "encode" ? "Text lines -> space-separated ids per line"
                       : mode == "decode"
                           ? "Id lines -> the original text lines"
                           : "One word per line -> word<TAB>piece piece ... (the segmenter's "
                             "pieces; encode's ids may split or join them)";
    CLI::App* cmd = app.add_subcommand(mode, help);
    cmd->add_option("--model", args->model, "Tokenizer directory (morpheus export)")->required();
    cmd->add_option("input", args->input, "Input file, - for stdin")->capture_default_str();
    cmd->add_option("-o,--output", args->output, "Output file, - for stdout")
        ->capture_default_str();
    if (mode != "decode") {
      cmd->add_flag("--allow-invalid", args->allow_invalid,
                    "Invalid UTF-8 bytes become byte tokens instead of an error");
      cmd->add_option(
          "--shard", args->shard,
          "i/n: process only the lines k with (k - 1) mod n == i, k counted from 1 (one "
          "shard per job; see README, many machines)");
      cmd->add_option("--cache", args->request.cache,
                      "Words kept in the LibTorch model's segmentation cache (LRU; --device cuda)")
          ->capture_default_str();
      cmd->add_option("--model-threads", args->request.threads,
                      "Threads of the model per batch of new words (0: one; with --device cuda, "
                      "LibTorch's intra-op threads)")
          ->check(CLI::Range(0, 1024))
          ->capture_default_str();
      cmd->add_option("--device", args->request.device,
                      "Where the model segments the letter runs the table lacks: cpu (the "
                      "torch-free engine), or auto, cuda, cuda:N (LibTorch; close calls are "
                      "decided by the engine, so the pieces are the same)")
          ->capture_default_str();
      cmd->add_option("--block-lines", args->block_lines, "Lines batched through the model")
          ->capture_default_str();
      cmd->add_option("--workers", args->workers,
                      "Threads processing the lines of a block (output in input order; the model "
                      "has its own --model-threads)")
          ->check(CLI::Range(1, 256))
          ->capture_default_str();
      cmd->add_option("--cache-file", args->cache_file,
                      "Persistent cache of the model's segmentations (created when absent, "
                      "appended to; one file per shard, join with morpheus cache merge)");
    }
    if (mode == "encode") {
      cmd->add_option("--output-format", args->output_format,
                      "id: space-separated ids; piece: the piece of each id, space-separated "
                      "(white space in a piece written \\s \\t \\r \\n, a backslash \\\\); json: "
                      "{\"ids\",\"pieces\",\"offsets\"} per line, offsets [begin, end) in "
                      "characters (code points) of the line")
          ->check(CLI::IsMember({"id", "piece", "json"}))
          ->capture_default_str();
      cmd->add_flag("--add-bos", args->add_bos, "Begin every line with <s> (special token)");
      cmd->add_flag("--add-eos", args->add_eos, "End every line with </s> (special token)");
    }
    if (mode == "decode") {
      cmd->add_flag("--keep-special", args->keep_special,
                    "Write special tokens (<s>, <pad>, ...) as their strings instead of "
                    "dropping them");
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
  auto info_dir = std::make_shared<std::string>();
  CLI::App* info = app.add_subcommand(
      "tokenizer-info",
      "The id layout of a tokenizer directory as JSON: vocab_size, special tokens, user "
      "symbols, pad_id/bos_id/eos_id/mask_id (-1 when absent)");
  info->add_option("--model", *info_dir, "Tokenizer directory (morpheus export)")->required();
  registry.add(info, [info_dir] { return run_tokenizer_info(*info_dir); });
  CLI::App* cache = app.add_subcommand("cache", "Segmentation cache files (--cache-file)");
  cache->require_subcommand(1);
  for (const std::string mode : {"merge", "dump"}) {
    auto args = std::make_shared<CacheArgs>();
    CLI::App* cmd = cache->add_subcommand(
        mode, mode == "merge" ? "Join cache files of one tokenizer into one (written atomically)"
                              : "Records of a cache file as run<TAB>piece piece... lines, sorted "
                                "(the format of segment; cut -f1 gives words for export --words)");
    if (mode == "merge") {
      cmd->add_option("--model", args->model, "Tokenizer directory the caches belong to")
          ->required();
      cmd->add_option("-o,--output", args->output, "Merged cache file")->required();
      cmd->add_option("inputs", args->inputs, "Cache files")->required();
    } else {
      cmd->add_option("input", args->inputs, "Cache file")->required()->expected(1);
      cmd->add_option("-o,--output", args->output, "Output file, - for stdout");
    }
    registry.add(cmd, [args, mode] { return run_cache(*args, mode); });
  }
}

}  // namespace morpheus::tools
