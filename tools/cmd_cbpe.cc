// SPDX-License-Identifier: MIT
// `morpheus cbpe train|encode|decode|segment`: the constrained-BPE baseline (baselines/cbpe/).
#include <filesystem>
#include <memory>
#include <string>

#include "baselines/cbpe/cbpe_model.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "tokenizer/segment_table.h"
#include "tools/codec_io.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

struct CbpeTrainArgs {
  std::string corpus;
  std::string pretokens;
  std::string boundaries;
  bool tagalog = false;
  std::string tagalog_tables;
  std::string tagalog_roots = "/usr/share/ispell/tagalog.mwl.gz";
  size_t vocab_size = 32000;
  std::string out;
};

struct CbpeRunArgs {
  std::string model;
  std::string input = "-";
  std::string output = "-";
  bool allow_invalid = false;
};

Status run_cbpe_train(const CbpeTrainArgs& args) {
  using tokenizer::cbpe::CbpeConfig;
  using tokenizer::cbpe::CbpeModel;
  const bool have_corpus = !args.corpus.empty();
  if (have_corpus == !args.pretokens.empty()) {
    return invalid_argument("give exactly one of --corpus and --pretokens",
                            "--corpus FILE [--boundaries FILE.tsv | --tagalog], or "
                            "--pretokens FILE.json");
  }
  if (!args.pretokens.empty()) {
    if (!args.boundaries.empty() || args.tagalog) {
      return invalid_argument("--pretokens already carries its boundaries (U+2581 markers)",
                              "drop --boundaries/--tagalog");
    }
    MORPHEUS_ASSIGN_OR_RETURN(CbpeModel model,
                              CbpeModel::train_pretokens(args.pretokens, args.vocab_size));
    MORPHEUS_RETURN_IF_ERROR(model.save(args.out));
    MORPHEUS_LOG(kInfo, "cbpe: wrote ", args.out, " (", model.stats().merges, " merges)");
    return ok_status();
  }
  if (!args.boundaries.empty() && args.tagalog) {
    return invalid_argument("--boundaries and --tagalog are exclusive");
  }
  CbpeConfig config;
  std::shared_ptr<const tokenizer::Segmenter> boundaries;
  if (!args.boundaries.empty()) {
    config.boundaries = "file";
    MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::TableSegmenter> table,
                              tokenizer::TableSegmenter::load(args.boundaries, true));
    boundaries = std::move(table);
  } else if (args.tagalog) {
    if (args.tagalog_tables.empty()) {
      return invalid_argument("--tagalog needs --tagalog-tables DIR",
                              "the reference's affix tables, e.g. ../shared/data/cbpe/tables");
    }
    config.boundaries = "tagalog";
    config.turkish_case = false;
    config.tagalog_tables = absolute_path(args.tagalog_tables);
    config.tagalog_roots = absolute_path(args.tagalog_roots);
    MORPHEUS_ASSIGN_OR_RETURN(boundaries, CbpeModel::tagalog_boundaries(config));
  }
  MORPHEUS_ASSIGN_OR_RETURN(
      CbpeModel model, CbpeModel::train_corpus(args.corpus, boundaries, config, args.vocab_size));
  MORPHEUS_RETURN_IF_ERROR(model.save(args.out));
  MORPHEUS_LOG(kInfo, "cbpe: wrote ", args.out, " (", model.stats().merges, " merges)");
  return ok_status();
}

Status run_cbpe(const CbpeRunArgs& args, const std::string& mode) {
  using tokenizer::cbpe::CbpeModel;
  MORPHEUS_ASSIGN_OR_RETURN(CbpeModel model, CbpeModel::load(args.model));
  const tokenizer::PieceCodec& codec = model.codec();
  if (mode == "encode") {
    const bool allow_invalid = args.allow_invalid;
    return encode_lines(args.input, args.output, allow_invalid,
                        [&codec, allow_invalid](std::string_view line, std::vector<int32_t>* ids) {
                          return codec.encode(line, ids, nullptr, allow_invalid);
                        });
  }
  if (mode == "decode") {
    return decode_lines(args.input, args.output,
                        [&codec](const std::vector<int32_t>& ids, std::string* text) {
                          return codec.decode(ids, text);
                        });
  }
  return segment_lines(args.input, args.output,
                       [&codec](std::string_view word) { return codec.segment_word(word); });
}

}  // namespace

void register_cbpe_commands(CLI::App& app, CommandRegistry& registry) {
  CLI::App* cbpe = app.add_subcommand(
      "cbpe", "Constrained BPE baseline: BPE whose merges never cross a morpheme boundary");
  cbpe->require_subcommand(1);

  auto targs = std::make_shared<CbpeTrainArgs>();
  CLI::App* train = cbpe->add_subcommand("train", "Train a CBPE model directory");
  train->add_option("--corpus", targs->corpus, "Text corpus, one sentence per line");
  train->add_option("--pretokens", targs->pretokens,
                    "The reference's annotated pre-token list (JSON array; U+2581 = boundary)");
  train->add_option("--boundaries", targs->boundaries,
                    "Segmentation file word<TAB>piece piece ... giving the morpheme boundaries");
  train->add_flag("--tagalog", targs->tagalog, "Boundaries from the Tagalog rule segmenter");
  train->add_option("--tagalog-tables", targs->tagalog_tables,
                    "Directory with {prefix,suffix,infix,circumfix}_table.json");
  train
      ->add_option("--tagalog-roots", targs->tagalog_roots,
                   "Root word list (plain or .gz; Debian itagalog)")
      ->capture_default_str();
  train->add_option("--vocab-size", targs->vocab_size, "Vocabulary size (specials + base + merges)")
      ->capture_default_str();
  train->add_option("--out", targs->out, "Output model directory")->required();
  registry.add(train, [targs] { return run_cbpe_train(*targs); });

  for (const std::string mode : {"encode", "decode", "segment"}) {
    auto args = std::make_shared<CbpeRunArgs>();
    const char* help = mode == "encode"   ? "Text lines -> space-separated ids per line"
                       : mode == "decode" ? "Id lines -> the original text lines"
                                          : "One word per line -> word<TAB>piece piece ...";
    CLI::App* cmd = cbpe->add_subcommand(mode, help);
    cmd->add_option("--model", args->model, "CBPE model directory")->required();
    cmd->add_option("input", args->input, "Input file, - for stdin")->capture_default_str();
    cmd->add_option("-o,--output", args->output, "Output file, - for stdout")
        ->capture_default_str();
    if (mode == "encode") {
      cmd->add_flag("--allow-invalid", args->allow_invalid,
                    "Encode invalid UTF-8 bytes as byte tokens instead of failing");
    }
    registry.add(cmd, [args, mode] { return run_cbpe(*args, mode); });
  }
}

}  // namespace morpheus::tools
