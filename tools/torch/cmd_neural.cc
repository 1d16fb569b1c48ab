// SPDX-License-Identifier: MIT
// `morpheus export|upgrade|embed|neighbors|boundaries` (+ encode|decode|segment from
// cmd_tokenize.cc): the Morpheus tokenizer directory (exporter/torch/export.h,
// infer/tokenizer_model.h). On the CPU the model is the torch-free engine (engine/directory.h);
// LibTorch runs it on a GPU.
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "core/logging.h"
#include "core/utf8.h"
#include "core/word_counts.h"
#include "embed/ann_index.h"
#include "engine/directory.h"
#include "engine/embedding_layout.h"
#include "eval/embedding_metrics.h"
#include "eval/gold_data.h"
#include "exporter/torch/export.h"
#include "infer/tokenizer_model.h"
#include "infer/word_vectors.h"
#include "model/runtime.h"
#include "morph/root_lexicon.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/segment_table.h"
#include "tools/cmd_embed.h"
#include "tools/cmd_tokenize.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct ExportArgs {
  exporter::ExportOptions options;
  WriterLists lists;  // options.writer's special tokens and user symbols
  std::string data;
  std::string device = "cpu";
  std::string embedding = "root-inflection";
};

struct BoundaryArgs {
  std::string model;
  std::string words;
  std::string out = "-";
};

struct NeighborArgs {
  std::string model;
  std::string query;
  std::string queries;  // word list: one query per line
  size_t k = 10;
  std::string vocab;
  std::string index;  // embeddings of the candidates (`morpheus embed` output)
  std::string faiss;  // a `morpheus index build` index of the candidates
  embed::AnnSearchOptions search;
  std::string part = "full";  // the columns of the model's vectors (engine/embedding_layout.h)
};

Status run_export(ExportArgs args) {
  MORPHEUS_ASSIGN_OR_RETURN(args.options.embedding,
                            engine::parse_embedding_pooling(args.embedding));
  exporter::WriterOptions& w = args.options.writer;
  resolve_writer_lists(args.lists, &w);
  if (w.words.empty() == args.data.empty()) {
    return invalid_argument("give exactly one of --words FILE and --data DIR",
                            "--data DIR reads DIR/words.tsv written by morpheus prepare");
  }
  if (!args.data.empty()) {
    w.words = path_join(args.data, "words.tsv");
    const std::string corpus = path_join(args.data, "corpus.txt");
    if (w.text.empty() && file_exists(corpus)) w.text = corpus;
  }
  MORPHEUS_ASSIGN_OR_RETURN(args.options.device, model::resolve_device(args.device));
  exporter::ExportSummary summary;
  MORPHEUS_RETURN_IF_ERROR(exporter::export_tokenizer(args.options, &summary));
  MORPHEUS_LOG(kInfo, "export: wrote ", w.out, " (", summary.pieces, " pieces from ",
               summary.letter_runs, " letter runs of ", summary.word_types, " word types, ",
               summary.seconds, " s)");
  return ok_status();
}

// The tokenizer at `dir` with its model in process on `device` (auto|cpu|cuda[:N];
// model::resolve_device).
StatusOr<std::unique_ptr<tokenizer::Tokenizer>> load_tokenizer(const std::string& dir, size_t cache,
                                                               const std::string& device = "cpu") {
  infer::NeuralSegmenterOptions options;
  options.cache_capacity = cache;
  MORPHEUS_ASSIGN_OR_RETURN(options.device, model::resolve_device(device));
  return infer::load_with_model(dir, options);
}

// embed: the engine on the CPU (cmd_embed.h; also when --device auto finds no GPU), LibTorch
// on a GPU.
Status run_embed(const EmbedArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(const torch::Device device, model::resolve_device(args.device));
  if (device.is_cpu()) {
    EmbedArgs on_cpu = args;
    on_cpu.device = "cpu";
    return run_engine_embed(on_cpu);
  }
  MORPHEUS_RETURN_IF_ERROR(check_vector_path(args.out));
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> words, read_embed_words(args.words));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            load_tokenizer(args.model, 0, args.device));
  MORPHEUS_ASSIGN_OR_RETURN(const infer::NeuralSegmenter* seg, infer::neural_model(*tok));
  MORPHEUS_RETURN_IF_ERROR(seg->embedding_layout().part(args.part).status());  // before work
  const torch::Tensor emb = infer::embed_words(*seg, words);
  return write_embed_part(
      args, words, std::vector<float>(emb.data_ptr<float>(), emb.data_ptr<float>() + emb.numel()),
      seg->embedding_layout());
}

// The model of --model, loaded on first need.
struct NeighborModel {
  std::unique_ptr<tokenizer::Tokenizer> tok;
  const infer::NeuralSegmenter* seg = nullptr;
};

// Candidate words with their vectors [V,D] (not yet normalised) or their FAISS index, and the
// query vectors [Q,D]: a query among the candidates takes its vector from there (no model
// needed) and is not its own neighbour; the others are embedded with --model in one call.
struct NeighborSpace {
  std::vector<std::string> words;
  std::vector<float> storage;            // the --index vectors, viewed by `candidates` (not copied)
  torch::Tensor candidates;              // undefined with --faiss
  std::unique_ptr<embed::AnnIndex> ann;  // --faiss
  torch::Tensor queries;
  std::vector<std::vector<int64_t>> exclude;  // per query: the rows of the query word
};

// word<TAB>p1 p2 ... per word of the list (the model's gap probabilities, lower-cased word).
Status run_boundaries(const BoundaryArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> words, read_word_list(args.words));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            load_tokenizer(args.model, 0));
  MORPHEUS_ASSIGN_OR_RETURN(const infer::NeuralSegmenter* seg, infer::neural_model(*tok));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(args.out));
  constexpr size_t kBlock = 8192;
  for (size_t begin = 0; begin < words.size(); begin += kBlock) {
    std::vector<std::string> block;
    for (size_t i = begin; i < std::min(words.size(), begin + kBlock); ++i) {
      block.push_back(tokenizer::fold_run(words[i]));
    }
    const std::vector<std::vector<float>> probs = seg->boundary_probabilities(block);
    std::string text;
    for (size_t i = 0; i < block.size(); ++i) {
      text += block[i];
      text += '\t';
      for (size_t r = 0; r < probs[i].size(); ++r) {
        char buf[16];
        std::snprintf(buf, sizeof(buf), r == 0 ? "%.4f" : " %.4f", probs[i][r]);
        text += buf;
      }
      text += '\n';
    }
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
  }
  return out.close();
}

Status load_neighbor_model(const NeighborArgs& args, const std::string& why, NeighborModel* m) {
  if (m->seg != nullptr) return ok_status();
  if (args.model.empty()) {
    return invalid_argument("neighbors: " + why, "give --model TOKENIZER_DIR to embed the query");
  }
  MORPHEUS_ASSIGN_OR_RETURN(m->tok, load_tokenizer(args.model, 0));
  MORPHEUS_ASSIGN_OR_RETURN(m->seg, infer::neural_model(*m->tok));
  return ok_status();
}

// The columns of args.part of the model's vectors of `words` [N, part dim].
StatusOr<torch::Tensor> embed_part(const NeighborArgs& args, const NeighborModel& model,
                                   const std::vector<std::string>& words) {
  MORPHEUS_ASSIGN_OR_RETURN(const engine::EmbeddingPart part,
                            model.seg->embedding_layout().part(args.part));
  return infer::embed_words(*model.seg, words)
      .narrow(1, static_cast<int64_t>(part.offset), static_cast<int64_t>(part.dim))
      .contiguous();
}

Status load_candidates(const NeighborArgs& args, NeighborModel* model, NeighborSpace* space) {
  if (!args.faiss.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(space->ann, embed::AnnIndex::load(args.faiss));
    space->words = space->ann->words();
    return ok_status();
  }
  if (!args.index.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(eval::Embeddings e, eval::load_embeddings(args.index));
    const auto rows = static_cast<int64_t>(e.vectors.rows);
    const auto cols = static_cast<int64_t>(e.vectors.cols);
    space->storage = std::move(e.vectors.data);  // moving keeps the buffer: the view stays valid
    space->candidates = torch::from_blob(space->storage.data(), {rows, cols});
    space->words = std::move(e.words);
    return ok_status();
  }
  MORPHEUS_RETURN_IF_ERROR(load_neighbor_model(args, "needs --model, --index or --faiss", model));
  const std::string vocab_path =
      args.vocab.empty() ? path_join(args.model, "words.tsv") : args.vocab;
  MORPHEUS_ASSIGN_OR_RETURN(space->words, read_word_list(vocab_path));
  MORPHEUS_ASSIGN_OR_RETURN(space->candidates, embed_part(args, *model, space->words));
  return ok_status();
}

Status load_queries(const NeighborArgs& args, const std::vector<std::string>& queries,
                    NeighborModel* model, NeighborSpace* space) {
  std::unordered_map<std::string, std::vector<int64_t>> rows;
  for (size_t i = 0; i < space->words.size(); ++i) {
    rows[space->words[i]].push_back(static_cast<int64_t>(i));
  }
  const int64_t dim =
      space->ann ? static_cast<int64_t>(space->ann->dim()) : space->candidates.size(1);
  space->queries = torch::zeros({static_cast<int64_t>(queries.size()), dim});
  space->exclude.assign(queries.size(), {});
  std::vector<std::string> missing;
  std::vector<int64_t> missing_at;
  for (size_t q = 0; q < queries.size(); ++q) {
    const auto it = rows.find(queries[q]);
    const auto at = static_cast<int64_t>(q);
    if (it == rows.end()) {
      missing.push_back(queries[q]);
      missing_at.push_back(at);
      continue;
    }
    space->exclude[q] = it->second;
    const int64_t row = it->second.front();
    space->queries[at] = space->ann ? torch::tensor(space->ann->vector(static_cast<size_t>(row)))
                                    : space->candidates[row];
  }
  if (missing.empty()) return ok_status();
  const std::string source = !args.faiss.empty() ? args.faiss : args.index;
  MORPHEUS_RETURN_IF_ERROR(
      load_neighbor_model(args, "\"" + missing[0] + "\" is not in " + source, model));
  MORPHEUS_ASSIGN_OR_RETURN(const torch::Tensor v, embed_part(args, *model, missing));
  if (v.size(1) != dim) {
    return invalid_argument(source + ": " + std::to_string(dim) +
                                "-dimensional vectors, the model's --part " + args.part + " has " +
                                std::to_string(v.size(1)),
                            "build the index with `morpheus embed --model` of this model and "
                            "the same --part");
  }
  space->queries.index_copy_(0, torch::tensor(missing_at), v);
  return ok_status();
}

Status check_neighbor_args(const NeighborArgs& args) {
  if (args.query.empty() == args.queries.empty()) {
    return invalid_argument("neighbors: give exactly one of --query WORD and --queries FILE",
                            "--queries answers one word per line with one load");
  }
  if (!args.index.empty() + !args.faiss.empty() + !args.vocab.empty() > 1) {
    return invalid_argument("neighbors: --index, --faiss and --vocab exclude each other",
                            "the words of the index are the candidates");
  }
  return utf8::validate(args.query);
}

Status run_neighbors(const NeighborArgs& args) {
  MORPHEUS_RETURN_IF_ERROR(check_neighbor_args(args));
  std::vector<std::string> queries{args.query};
  if (!args.queries.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(queries, read_word_list(args.queries));
  }
  NeighborModel model;
  NeighborSpace space;
  MORPHEUS_RETURN_IF_ERROR(load_candidates(args, &model, &space));
  MORPHEUS_RETURN_IF_ERROR(load_queries(args, queries, &model, &space));
  std::vector<std::vector<embed::Neighbor>> found;
  if (space.ann) {
    const torch::Tensor q = space.queries.contiguous();
    const std::vector<float> flat(q.data_ptr<float>(), q.data_ptr<float>() + q.numel());
    MORPHEUS_ASSIGN_OR_RETURN(found, space.ann->search(flat, args.k, args.search, space.exclude));
  } else {
    found = infer::cosine_neighbors(space.candidates, space.queries, space.exclude, args.k);
  }
  std::string text;
  char buf[32];
  for (size_t q = 0; q < queries.size(); ++q) {
    for (const embed::Neighbor& n : found[q]) {
      std::snprintf(buf, sizeof(buf), "\t%.4f\n", static_cast<double>(n.score));
      if (!args.queries.empty()) text += queries[q] + "\t";
      text += space.words[static_cast<size_t>(n.row)] + buf;
    }
  }
  return write_output("-", text);
}

// One function per command of this file, each registering its options and its runner.
void register_export(CLI::App& app, CommandRegistry& registry) {
  auto eargs = std::make_shared<ExportArgs>();
  CLI::App* exp = app.add_subcommand(
      "export", "Checkpoint -> tokenizer directory (segment the word types, distil the pieces)");
  exp->add_option("--checkpoint", eargs->options.checkpoint,
                  "Checkpoint directory with char_vocab.json (e.g. <run>/final)")
      ->required();
  exporter::WriterOptions& w = eargs->options.writer;
  exp->add_option("--out", w.out, "Tokenizer directory to write")->required();
  exp->add_option("--words", w.words, "Word types, word<TAB>count per line");
  exp->add_option("--data", eargs->data,
                  "Prepared data directory (reads its words.tsv, and corpus.txt as --text)");
  add_writer_options(exp, &w, &eargs->lists);
  exp->add_option("--device", eargs->device,
                  "Where the model segments the word types: auto, cpu, cuda or cuda:N")
      ->capture_default_str();
  exp->add_option("--threshold", eargs->options.threshold,
                  "Boundary probability threshold of the segmentation in (0, 1), chosen on a "
                  "tune split (embeddings keep model.threshold); 0 keeps the model's own")
      ->capture_default_str();
  w.root_lexicon = morph::default_root_lexicon();  // the root correction's defaults
  w.suffix_lexicon = morph::default_suffix_lexicon();
  exp->add_flag("--root-snap", w.root_snap,
                "Cut every word after its shortest dictionary root (at least 2 letters) whose rest "
                "is a known suffix chain, optionally after voice suffixes of a verb root (kat|ıl|"
                "mıyorum), the junction obeying Turkish sound rules; nowhere inside the root "
                "(rule 2, morph/root_snap.h; copies both lexicons into the directory)");
  exp->add_option("--root-lexicon", w.root_lexicon, "Roots for --root-snap")->capture_default_str();
  exp->add_option("--suffix-lexicon", w.suffix_lexicon, "Suffix chains for --root-snap")
      ->capture_default_str();
  exp->add_option(
         "--embedding", eargs->embedding,
         "Word vectors: root-inflection = [root | inflection] parts (the root segment; "
         "the suffixes' and the last suffix's letters, scaled by --inflection-weight), mean = one "
         "vector of all segments (engine/embedding_layout.h)")
      ->capture_default_str()
      ->check(CLI::IsMember({"root-inflection", "mean"}));
  exp->add_option("--inflection-weight", eargs->options.inflection_weight,
                  "Length of each inflection block against the unit root block in the full "
                  "vector (its share of the full vector's cosine)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  registry.add(exp, [eargs] { return run_export(*eargs); });
}

void register_upgrade(CLI::App& app, CommandRegistry& registry) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "upgrade",
      "Adds what an older export lacks to a tokenizer directory: the torch-free engine's weights "
      "(model.weights, from its model/), the prebuilt vocabulary (pieces.bin) and root snap "
      "lexicon (root_snap/lexicon.bin), both mapped at load, and the faster checksums of its "
      "files; then checks the directory with its model self-test");
  cmd->add_option("--model", *dir, "Tokenizer directory (morpheus export)")->required();
  registry.add(cmd, [dir] {
    MORPHEUS_RETURN_IF_ERROR(exporter::upgrade_tokenizer(*dir));
    MORPHEUS_LOG(kInfo, "upgrade: ", *dir,
                 " is up to date (engine weights, prebuilt images, checksums)");
    return ok_status();
  });
}

void register_embed(CLI::App& app, CommandRegistry& registry) {
  auto margs = std::make_shared<EmbedArgs>();
  CLI::App* embed = app.add_subcommand("embed", "Word list -> embeddings (.npy + .vocab or .vec)");
  add_embed_options(embed, margs.get());
  registry.add(embed, [margs] { return run_embed(*margs); });
}

void register_boundaries(CLI::App& app, CommandRegistry& registry) {
  auto bargs = std::make_shared<BoundaryArgs>();
  CLI::App* bnd = app.add_subcommand(
      "boundaries",
      "Word list -> word<TAB>boundary probability of each gap (the model's, before "
      "the threshold and the root snap)");
  bnd->add_option("--model", bargs->model, "Tokenizer directory (morpheus export)")->required();
  bnd->add_option("words", bargs->words,
                  "One word per line (or word<TAB>count); printed lower-cased (Turkish rules)")
      ->required();
  bnd->add_option("-o,--output", bargs->out, "Output file, - for stdout")->capture_default_str();
  registry.add(bnd, [bargs] { return run_boundaries(*bargs); });
}

void register_neighbors(CLI::App& app, CommandRegistry& registry) {
  auto nargs = std::make_shared<NeighborArgs>();
  CLI::App* nb = app.add_subcommand("neighbors", "Cosine nearest neighbours of words");
  nb->add_option("--model", nargs->model,
                 "Tokenizer directory (morpheus export); optional with --index/--faiss when the "
                 "queries are in the index");
  nb->add_option("--query", nargs->query, "Query word (prints word<TAB>cosine)");
  nb->add_option("--queries", nargs->queries,
                 "Query words, one per line, answered with one load, one matrix product per "
                 "block of queries (prints query<TAB>word<TAB>cosine)");
  nb->add_option("-k", nargs->k, "Neighbours per query")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  nb->add_option("--vocab", nargs->vocab,
                 "Candidate words (word[<TAB>count] per line; default: the tokenizer's words.tsv)");
  nb->add_option("--index", nargs->index,
                 "Candidates with their vectors: FILE.npy (+ FILE.vocab) or FILE.vec written by "
                 "`morpheus embed` (nothing is re-embedded; exact)");
  nb->add_option("--faiss", nargs->faiss,
                 "Candidates in a FAISS index FILE.faiss (+ FILE.vocab) of `morpheus index "
                 "build` (approximate for hnsw/ivf)");
  nb->add_option("--part", nargs->part,
                 "Which columns of the model's vectors rank the candidates: full, root or "
                 "inflection (a directory's parts; --index/--faiss files must hold the same "
                 "part, as `morpheus embed --part` writes it)")
      ->capture_default_str();
  nb->add_option("--ef-search", nargs->search.ef_search, "--faiss hnsw: search candidate list")
      ->capture_default_str();
  nb->add_option("--nprobe", nargs->search.nprobe, "--faiss ivf: lists visited per query")
      ->capture_default_str();
  registry.add(nb, [nargs] { return run_neighbors(*nargs); });
}

}  // namespace

ModelMaker torch_model_maker() {
  return [](const ModelRequest& request) -> StatusOr<tokenizer::SegmenterSpec> {
    MORPHEUS_ASSIGN_OR_RETURN(const torch::Device device, model::resolve_device(request.device));
    if (device.is_cpu()) {
      return engine::engine_model_spec(request.threads > 0 ? request.threads : 1);
    }
    if (request.threads > 0) torch::set_num_threads(request.threads);
    infer::NeuralSegmenterOptions options;
    options.cache_capacity = request.cache;
    tokenizer::SegmenterSpec spec = infer::in_process_model(options);
    spec.options["device"] = request.device;  // resolved when the model loads
    return spec;
  };
}

void register_neural_commands(CLI::App& app, CommandRegistry& registry) {
  register_export(app, registry);
  register_tokenize_commands(app, registry, torch_model_maker());
  register_upgrade(app, registry);
  register_embed(app, registry);
  register_boundaries(app, registry);
  register_neighbors(app, registry);
}

}  // namespace morpheus::tools
