// SPDX-License-Identifier: MIT
// `morpheus embed` on the torch-free engine, and the .npy / .vec writers.
#include "tools/cmd_embed.h"

#include <cstdio>
#include <memory>

#include "core/file_util.h"
#include "core/logging.h"
#include "core/word_counts.h"
#include "engine/directory.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::tools {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// NumPy's .npy header of a float32 [n, dim] matrix (format 1.0, 64-byte aligned).
std::string npy_header(size_t n, size_t dim) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) +
                       ", " + std::to_string(dim) + "), }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string prefix("\x93NUMPY\x01\x00", 8);
  prefix += static_cast<char>(header.size() & 0xff);
  prefix += static_cast<char>((header.size() >> 8) & 0xff);
  return prefix + header;
}

Status write_vec(AtomicFileWriter* out, const std::vector<std::string>& words, const float* data,
                 size_t dim) {
  MORPHEUS_RETURN_IF_ERROR(
      out->write(std::to_string(words.size()) + " " + std::to_string(dim) + "\n"));
  std::string line;
  char buf[32];
  for (size_t i = 0; i < words.size(); ++i) {
    line = words[i];
    for (size_t j = 0; j < dim; ++j) {
      std::snprintf(buf, sizeof(buf), " %.6g", static_cast<double>(data[i * dim + j]));
      line += buf;
    }
    line += '\n';
    MORPHEUS_RETURN_IF_ERROR(out->write(line));
  }
  return ok_status();
}

}  // namespace

StatusOr<std::vector<std::string>> read_embed_words(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> words, read_word_list(path));
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].find_first_of(" \t\r\n") != std::string::npos) {
      return invalid_argument(
          path + ": word " + std::to_string(i + 1) + " (\"" + words[i] + "\") contains white space",
          "one word per line (optionally word<TAB>count)");
    }
  }
  return words;
}

Status check_vector_path(const std::string& out) {
  if (ends_with(out, ".npy") || ends_with(out, ".vec")) return ok_status();
  return invalid_argument("--out " + out + " must end in .npy or .vec",
                          ".npy = float32 matrix + .vocab word list; .vec = word2vec text");
}

Status write_word_vectors(const std::string& out, const std::vector<std::string>& words,
                          const float* data, size_t dim) {
  MORPHEUS_RETURN_IF_ERROR(check_vector_path(out));
  const bool npy = ends_with(out, ".npy");
  AtomicFileWriter file;
  MORPHEUS_RETURN_IF_ERROR(file.open(out));
  if (npy) {
    MORPHEUS_RETURN_IF_ERROR(file.write(npy_header(words.size(), dim)));
    MORPHEUS_RETURN_IF_ERROR(file.write(
        std::string_view(reinterpret_cast<const char*>(data), words.size() * dim * sizeof(float))));
    std::string vocab;
    for (const std::string& w : words) vocab += w + "\n";
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(out.substr(0, out.size() - 4) + ".vocab", vocab));
  } else {
    MORPHEUS_RETURN_IF_ERROR(write_vec(&file, words, data, dim));
  }
  MORPHEUS_RETURN_IF_ERROR(file.commit());
  MORPHEUS_LOG(kInfo, "embed: wrote ", words.size(), " x ", dim, " to ", out);
  return ok_status();
}

Status run_engine_embed(const EmbedArgs& args) {
  MORPHEUS_RETURN_IF_ERROR(check_vector_path(args.out));  // before any work
  if (args.device != "cpu") {
    return invalid_argument("--device " + args.device + " needs LibTorch",
                            "run morpheus-torch embed (the morpheus front hands it over)");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> words, read_embed_words(args.words));
  MORPHEUS_ASSIGN_OR_RETURN(
      std::unique_ptr<tokenizer::Tokenizer> tok,
      tokenizer::Tokenizer::load(args.model, true, engine::engine_model_spec(args.threads)));
  MORPHEUS_ASSIGN_OR_RETURN(const engine::EngineSegmenter* model, engine::engine_model(*tok));
  MORPHEUS_RETURN_IF_ERROR(model->embedding_layout().part(args.part).status());  // before work
  return write_embed_part(args, words, model->embed(words), model->embedding_layout());
}

Status write_embed_part(const EmbedArgs& args, const std::vector<std::string>& words,
                        const std::vector<float>& rows, const engine::EmbeddingLayout& layout) {
  MORPHEUS_ASSIGN_OR_RETURN(const engine::EmbeddingPart part, layout.part(args.part));
  const std::vector<float> columns = engine::take_part(rows, words.size(), layout.dim(), part);
  return write_word_vectors(args.out, words, columns.data(), part.dim);
}

void add_embed_options(CLI::App* cmd, EmbedArgs* args) {
  cmd->add_option("--model", args->model, "Tokenizer directory (morpheus export)")->required();
  cmd->add_option("--words", args->words, "One word per line (or word<TAB>count)")->required();
  cmd->add_option("--out", args->out, "FILE.npy (float32, with FILE.vocab) or FILE.vec")
      ->required();
  cmd->add_option("--device", args->device,
                  "cpu (the torch-free engine), or auto, cuda[:N] (LibTorch; the rows come back "
                  "as float32 either way)")
      ->capture_default_str();
  cmd->add_option("--part", args->part,
                  "The columns to write: full, or a part of the directory's layout (root, "
                  "inflection; `morpheus tokenizer-info` lists them; a directory exported before "
                  "the parts has only full)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Engine threads (cpu)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
}

void register_embed_command(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<EmbedArgs>();
  CLI::App* cmd = app.add_subcommand("embed", "Word list -> embeddings (.npy + .vocab or .vec)");
  add_embed_options(cmd, args.get());
  registry.add(cmd, [args] { return run_engine_embed(*args); });
}

}  // namespace morpheus::tools
