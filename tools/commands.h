// SPDX-License-Identifier: MIT
// Registration functions for the `morpheus` subcommands, one per tools/cmd_*.cc file.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "exporter/tokenizer_writer.h"
#include "tools/cli.h"
#include "tools/cmd_tokenize.h"

namespace morpheus::tools {

// pretokenize: text lines → JSON spans (tools/cmd_text.cc).
void register_text_commands(CLI::App& app, CommandRegistry& registry);
// device: which device --device auto resolves to, and the BLAS in use (tools/torch/cmd_runtime.cc).
void register_runtime_commands(CLI::App& app, CommandRegistry& registry);
// hybrid encode|decode|segment: the Bayram et al. hybrid tokenizer (tools/cmd_hybrid.cc).
void register_hybrid_commands(CLI::App& app, CommandRegistry& registry);
// cbpe train|encode|decode|segment: constrained BPE (tools/cmd_cbpe.cc).
void register_cbpe_commands(CLI::App& app, CommandRegistry& registry);
// export-plain: the Morpheus tokenizer format cut by plain BPE or Unigram (tools/cmd_plain.cc).
void register_plain_commands(CLI::App& app, CommandRegistry& registry);
// The writer's lists on the command line, comma-separated (CLI11's vector options would read
// "[PAD],[CLS]" as a list literal).
struct WriterLists {
  std::string special_tokens;
  std::string user_symbols;
};
// The tokenizer writer's settings on the command line, one block for export and export-plain
// (tools/cmd_plain.cc): --text, --vocab-size, --special-tokens, --user-symbols, --min-count, the
// id stream's layout (--word-initial/--no-word-initial, --word-initial-share, --merge-share) and
// --card-eval.
void add_writer_options(CLI::App* cmd, exporter::WriterOptions* writer, WriterLists* lists);
// writer's special tokens and user symbols from the comma-separated lists.
void resolve_writer_lists(const WriterLists& lists, exporter::WriterOptions* writer);
// eval: every system on every metric → report.md/json + figures (tools/cmd_eval.cc).
void register_eval_commands(CLI::App& app, CommandRegistry& registry);
// prepare: corpus → teacher → root correction → vocabularies → caches (tools/cmd_prepare.cc).
void register_prepare_commands(CLI::App& app, CommandRegistry& registry);

// info: parameter counts per model part as JSON (tools/torch/cmd_info.cc).
void register_info_commands(CLI::App& app, CommandRegistry& registry);
// train: the training loop on a prepared cache (tools/torch/cmd_train.cc).
void register_train_commands(CLI::App& app, CommandRegistry& registry);

// export|encode|decode|segment|embed|neighbors: the Morpheus tokenizer (tools/torch/cmd_neural.cc).
void register_neural_commands(CLI::App& app, CommandRegistry& registry);
// The model of the tokenizer commands in morpheus-torch: the engine on the CPU, LibTorch on a GPU
// (tools/torch/cmd_neural.cc); also the model of `pack` there.
ModelMaker torch_model_maker();
// index build: FAISS nearest-neighbour indexes over embeddings (tools/torch/cmd_index.cc).
void register_index_commands(CLI::App& app, CommandRegistry& registry);
// lm train|eval|generate|check|…: language models over tokenizer ids (tools/torch/cmd_lm.cc).
void register_lm_commands(CLI::App& app, CommandRegistry& registry);

}  // namespace morpheus::tools
