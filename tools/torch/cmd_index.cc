// SPDX-License-Identifier: MIT
// `morpheus index build`: a FAISS index (flat, HNSW or IVF; embed/ann_index.h) over the vectors of
// a `morpheus embed` output, searched by `morpheus neighbors --faiss`.
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_config.h"
#include "core/logging.h"
#include "embed/ann_index.h"
#include "engine/embedding_layout.h"
#include "eval/embedding_metrics.h"
#include "tokenizer/directory_format.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct IndexBuildArgs {
  std::string embeddings;
  std::string out;
  std::string model;          // the tokenizer directory whose layout --part reads
  std::string part = "full";  // engine/embedding_layout.h
  embed::AnnBuildOptions options;
};

// The columns of args.part of full vectors of the directory args.model.
Status keep_part(const IndexBuildArgs& args, eval::Matrix* vectors) {
  if (args.model.empty()) {
    return invalid_argument("--part " + args.part + " needs --model TOKENIZER_DIR",
                            "the directory whose morpheus embed wrote --embeddings");
  }
  MORPHEUS_ASSIGN_OR_RETURN(const nlohmann::json config,
                            load_json_file(tokenizer::tokenizer_config_path(args.model)));
  StatusOr<engine::EmbeddingLayout> layout =
      engine::EmbeddingLayout::from_config_for_width(config, vectors->cols);
  if (!layout.ok()) return Status(layout.status()).prepend(args.embeddings);
  MORPHEUS_ASSIGN_OR_RETURN(const engine::EmbeddingPart part, layout->part(args.part));
  vectors->data = engine::take_part(vectors->data, vectors->rows, vectors->cols, part);
  vectors->cols = part.dim;
  return ok_status();
}

Status run_index_build(const IndexBuildArgs& args) {
  if (embed::ann_vocab_path(args.out) == args.out + ".vocab") {
    return invalid_argument("--out " + args.out + " must end in .faiss",
                            "the words go to the .vocab file beside it");
  }
  MORPHEUS_ASSIGN_OR_RETURN(eval::Embeddings e, eval::load_embeddings(args.embeddings));
  if (args.part != "full") MORPHEUS_RETURN_IF_ERROR(keep_part(args, &e.vectors));
  const auto start = std::chrono::steady_clock::now();
  MORPHEUS_ASSIGN_OR_RETURN(
      std::unique_ptr<embed::AnnIndex> index,
      embed::AnnIndex::build(e.vectors.data, e.vectors.rows, e.vectors.cols, args.options));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MORPHEUS_RETURN_IF_ERROR(index->save(args.out, e.words));
  MORPHEUS_LOG(kInfo, "index: ", args.options.type, " over ", e.vectors.rows, " x ", e.vectors.cols,
               " built in ", seconds, " s; wrote ", args.out, " and ",
               embed::ann_vocab_path(args.out));
  return ok_status();
}

}  // namespace

void register_index_commands(CLI::App& app, CommandRegistry& registry) {
  CLI::App* index = app.add_subcommand("index", "Nearest-neighbour indexes on FAISS");
  index->require_subcommand(1);
  auto args = std::make_shared<IndexBuildArgs>();
  CLI::App* build = index->add_subcommand(
      "build", "Embeddings (.npy + .vocab or .vec) -> FILE.faiss + FILE.vocab (cosine)");
  build->add_option("--embeddings", args->embeddings, "FILE.npy or FILE.vec of morpheus embed")
      ->required();
  build->add_option("--out", args->out, "Index file to write (FILE.faiss; words to FILE.vocab)")
      ->required();
  build
      ->add_option("--part", args->part,
                   "Index these columns of full vectors: full, root or inflection (the "
                   "directory's parts; needs --model)")
      ->capture_default_str();
  build->add_option("--model", args->model,
                    "Tokenizer directory whose layout --part reads (morpheus.json)");
  build->add_option("--type", args->options.type, "flat (exact), hnsw or ivf")
      ->check(CLI::IsMember({"flat", "hnsw", "ivf"}))
      ->capture_default_str();
  build->add_option("--m", args->options.hnsw_m, "HNSW: neighbours per node")
      ->capture_default_str();
  build
      ->add_option("--ef-construction", args->options.ef_construction,
                   "HNSW: candidate list while building")
      ->capture_default_str();
  build
      ->add_option("--nlist", args->options.nlist,
                   "IVF: inverted lists (0: 4*sqrt(rows), at most rows/39)")
      ->capture_default_str();
  registry.add(build, [args] { return run_index_build(*args); });
}

}  // namespace morpheus::tools
