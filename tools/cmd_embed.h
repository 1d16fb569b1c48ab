// SPDX-License-Identifier: MIT
// `morpheus embed --model TOKDIR --words FILE --out F.npy|F.vec [--part P]`: word embeddings from
// the torch-free engine (engine/directory.h), shared by the `morpheus` front and `morpheus-torch`
// (which runs LibTorch instead for --device cuda), and the writer of both output formats.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/embedding_layout.h"
#include "tools/cli.h"

namespace morpheus::tools {

struct EmbedArgs {
  std::string model;
  std::string words;
  std::string out;
  std::string device = "cpu";  // cpu: the engine; auto, cuda, cuda:N: LibTorch (morpheus-torch)
  size_t threads = 1;          // engine threads
  std::string part = "full";   // a part of the directory's layout (engine/embedding_layout.h)
};

// The words of an embed word list (word[<TAB>count] per line), none with white space inside.
StatusOr<std::vector<std::string>> read_embed_words(const std::string& path);
// OK when `out` ends in .npy or .vec (the formats write_word_vectors writes).
Status check_vector_path(const std::string& out);
// Writes `words` with their rows data[words.size() × dim] to `out`: FILE.npy (float32, and the
// words in FILE.vocab) or FILE.vec (word2vec text), atomically; another suffix is
// INVALID_ARGUMENT.
Status write_word_vectors(const std::string& out, const std::vector<std::string>& words,
                          const float* data, size_t dim);
// Writes the columns of args.part of rows [words × layout.dim()] (write_word_vectors);
// INVALID_ARGUMENT naming the layout's parts when it has no such part.
Status write_embed_part(const EmbedArgs& args, const std::vector<std::string>& words,
                        const std::vector<float>& rows, const engine::EmbeddingLayout& layout);
// The embed command on the engine (the CPU).
Status run_engine_embed(const EmbedArgs& args);
// Adds the options of embed to `cmd`.
void add_embed_options(CLI::App* cmd, EmbedArgs* args);
// embed on the engine (the front; --device other than cpu is morpheus-torch's).
void register_embed_command(CLI::App& app, CommandRegistry& registry);

}  // namespace morpheus::tools
