// SPDX-License-Identifier: MIT
// `morpheus pack`: JSONL or plain-text corpora → the tokenizer's ids → Megatron-LM, llm.c or npy
// token files with a PREFIX.json manifest (pack/packer.h); `morpheus pack merge`: shards → one
// pack (pack/merge.h). Torch-free: the model is the caller's ModelMaker.
#include "tools/cmd_pack.h"

#include <memory>
#include <string>
#include <vector>

#include "baselines/plain/plain_segmenters.h"
#include "core/logging.h"
#include "pack/merge.h"
#include "pack/packer.h"
#include "tools/codec_io.h"

namespace morpheus::tools {
namespace {

struct PackArgs {
  std::string model;
  std::string out;
  std::string format = "megatron";
  std::string jsonl_key = "text";
  bool plain = false;
  bool append_eos = false;
  bool prepend_bos = false;
  bool skip_invalid = false;
  size_t workers = 1;
  std::string shard;
  std::string cache_file;
  size_t block_docs = 2048;
  std::vector<std::string> inputs;
  ModelRequest request;  // --model-threads, --device, --cache
};

struct MergeArgs {
  std::string out;
  std::vector<std::string> parts;
};

std::string summary(const pack::Manifest& m) {
  std::string s = std::string(pack::format_name(m.format)) + ", " + pack::dtype_name(m.dtype) +
                  ": " + std::to_string(m.documents) + " documents, " + std::to_string(m.tokens) +
                  " tokens";
  if (!m.skipped_documents.empty()) {
    s += ", " + std::to_string(m.skipped_documents.size()) + " invalid skipped";
  }
  return s;
}

Status fill_options(const PackArgs& args, pack::PackOptions* options) {
  if (args.model.empty() || args.out.empty() || args.inputs.empty()) {
    return invalid_argument("pack needs --model TOKDIR, --out PREFIX and input files",
                            "morpheus pack --model TOKDIR --out data/train corpus.jsonl");
  }
  MORPHEUS_ASSIGN_OR_RETURN(options->format, pack::parse_format(args.format));
  BlockOptions shard;
  if (!args.shard.empty()) MORPHEUS_RETURN_IF_ERROR(parse_shard(args.shard, &shard));
  options->inputs = args.inputs;
  options->out = args.out;
  options->content.plain = args.plain;
  options->content.jsonl_key = args.jsonl_key;
  options->content.append_eos = args.append_eos;
  options->content.prepend_bos = args.prepend_bos;
  options->content.skip_invalid = args.skip_invalid;
  options->workers = args.workers;
  options->shard_index = shard.shard_index;
  options->shard_count = shard.shard_count;
  options->block_docs = args.block_docs;
  return ok_status();
}

Status run_pack(const PackArgs& args, const ModelMaker& model) {
  pack::PackOptions options;
  MORPHEUS_RETURN_IF_ERROR(fill_options(args, &options));
  tokenizer::cbpe::register_plain_segmenters();  // directories cut by plain BPE or Unigram
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::SegmenterSpec spec, model(args.request));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            tokenizer::Tokenizer::load(args.model, true, std::move(spec)));
  if (!args.cache_file.empty()) MORPHEUS_RETURN_IF_ERROR(tok->attach_cache(args.cache_file));
  MORPHEUS_ASSIGN_OR_RETURN(const pack::Manifest m, pack::pack_corpus(*tok, options));
  MORPHEUS_LOG(kInfo, "pack: wrote ", args.out, " (", summary(m), ")");
  return ok_status();
}

Status run_merge(const MergeArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(const pack::Manifest m, pack::merge_packs(args.parts, args.out));
  MORPHEUS_LOG(kInfo, "pack merge: wrote ", args.out, " from ", args.parts.size(), " parts (",
               summary(m), ")");
  return ok_status();
}

void add_pack_options(CLI::App* cmd, PackArgs* args) {
  cmd->add_option("--model", args->model, "Tokenizer directory (morpheus export)");
  cmd->add_option("--out", args->out,
                  "Output prefix: PREFIX.bin/.idx (megatron), PREFIX.bin (llmc) or "
                  "PREFIX.npy/.idx.npy (npy), and PREFIX.json");
  cmd->add_option("--format", args->format, "megatron, llmc or npy")
      ->check(CLI::IsMember({"megatron", "llmc", "npy"}))
      ->capture_default_str();
  CLI::Option* key =
      cmd->add_option("--jsonl-key", args->jsonl_key, "JSONL: the key of each object's text")
          ->capture_default_str();
  cmd->add_flag("--plain", args->plain, "One document per line of plain text instead of JSONL")
      ->excludes(key);
  cmd->add_flag("--append-eos", args->append_eos, "End every document with </s>");
  cmd->add_flag("--prepend-bos", args->prepend_bos, "Begin every document with <s>");
  cmd->add_option("--workers", args->workers, "Threads encoding the documents of a block")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--shard", args->shard,
                  "i/n: pack only documents k with (k - 1) mod n == i, k counted from 1 over all "
                  "inputs (join the shards with pack merge)");
  cmd->add_option("--cache-file", args->cache_file,
                  "Persistent cache of the model's segmentations (as encode --cache-file)");
  cmd->add_flag("--skip-invalid", args->skip_invalid,
                "Skip and count documents with invalid JSON, no text key, a non-string text or "
                "invalid UTF-8 (default: an error naming the file and line)");
  cmd->add_option("--block-docs", args->block_docs,
                  "Documents per block (the model sees a block's new words in one call)")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd->add_option("--model-threads", args->request.threads,
                  "Threads of the model per batch of new words (0: one)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--device", args->request.device,
                  "Where the model segments new words: cpu (the engine), auto, cuda, cuda:N")
      ->capture_default_str();
  cmd->add_option("--cache", args->request.cache, "LibTorch model's LRU cache (--device cuda)")
      ->capture_default_str();
  cmd->add_option("inputs", args->inputs, "JSONL or text files (.gz, .zst: decompressed)");
}

}  // namespace

void register_pack_commands(CLI::App& app, CommandRegistry& registry, ModelMaker model) {
  auto args = std::make_shared<PackArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pack", "Corpus (JSONL or text) -> token files for LM trainers (Megatron-LM, llm.c, npy)");
  cmd->require_subcommand(0, 1);
  add_pack_options(cmd, args.get());
  auto merge = std::make_shared<MergeArgs>();
  CLI::App* mcmd = cmd->add_subcommand(
      "merge",
      "Join packs: shards i/n re-interleaved into the unsharded pack, or whole packs "
      "concatenated in the order given");
  mcmd->add_option("--out", merge->out, "Output prefix")->required();
  mcmd->add_option("parts", merge->parts, "Prefixes of the parts (their PREFIX.json)")->required();
  // The leaf first: `pack merge` also marks `pack` parsed.
  registry.add(mcmd, [merge] { return run_merge(*merge); });
  registry.add(cmd, [args, model] { return run_pack(*args, model); });
}

}  // namespace morpheus::tools
