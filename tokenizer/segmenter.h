// SPDX-License-Identifier: MIT
// Segmenter: the one interface every segmenting system implements (the Morpheus model, the hybrid
// tokenizer, CBPE, a segment file), and the factory that creates the Morpheus model by name
// (SentencePiece's ModelInterface + model_factory), so that the torch-free tokenizer reaches it
// without linking LibTorch.
//   words {"evlerde", "kitap"} -> {{"ev", "ler", "de"}, {"kitap"}}
// Registry names:
//   "morpheus-engine" the Morpheus model of a tokenizer directory on the torch-free engine, in
//                     process (engine/directory.h): what every runtime uses on the CPU
//   "morpheus-model"  the same model on LibTorch, for a GPU (infer/tokenizer_model.h); its close
//                     calls are the engine's, so it gives the same pieces
//   "bpe", "unigram"  the segmenters of the plain directories (baselines/plain/plain_segmenters.h)
// The Morpheus tokenizer (tokenizer/tokenizer.h) gives its codec a Segmenter too: its stages 3
// and 4 (segment table, cache file, then the model created through this factory; the root
// snap).
// The baselines are built directly (baselines/cbpe/cbpe_model.h, baselines/hybrid/).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus::tokenizer {

// Pieces of each word of a batch, aligned with the words.
using Segmentation = std::vector<std::vector<std::string>>;

class Segmenter {
 public:
  virtual ~Segmenter() = default;

  // Pieces of every word of `words` (pretokenizer spans without whitespace), aligned with
  // `words`: each word's pieces concatenate to it. Systems that cut only lower-case text say so
  // (the codecs pass case-folded letter runs). Thread-safe unless the system says otherwise.
  virtual StatusOr<Segmentation> segment(const std::vector<std::string>& words) const = 0;
  // Short display name for reports, e.g. "cbpe", "hybrid-lossless".
  virtual std::string name() const = 0;

  // One request in flight: send() starts segmenting `words`, receive() returns their pieces (a
  // system that works in the background overrides both); by default send() keeps the words and
  // receive() segments them.
  virtual Status send(const std::vector<std::string>& words) {
    pending_ = words;
    return ok_status();
  }
  virtual StatusOr<Segmentation> receive() { return segment(pending_); }

  // segment() of one word (the piece codec's per-run call; WordSegmenter answers it directly).
  virtual StatusOr<std::vector<std::string>> segment_word(std::string_view word) const {
    MORPHEUS_ASSIGN_OR_RETURN(Segmentation pieces, segment({std::string(word)}));
    return std::move(pieces.front());
  }

 private:
  std::vector<std::string> pending_;
};

// Base of the systems that cut one word at a time and cannot fail: segment() loops over cut().
class WordSegmenter : public Segmenter {
 public:
  StatusOr<Segmentation> segment(const std::vector<std::string>& words) const final {
    Segmentation out;
    out.reserve(words.size());
    for (const std::string& w : words) out.push_back(cut(w));
    return out;
  }
  // No one-word batch to build: cut() itself.
  StatusOr<std::vector<std::string>> segment_word(std::string_view word) const final {
    return cut(word);
  }
  // Pieces of one word; their concatenation is `word` (or, for a system that folds case, the
  // folded word: see the system).
  virtual std::vector<std::string> cut(std::string_view word) const = 0;
};

// What create_segmenter builds: a registered system, the file or directory it reads, and its
// options (each system documents its keys; unknown keys are ignored).
struct SegmenterSpec {
  SegmenterSpec() = default;
  SegmenterSpec(std::string system, std::string file,
                nlohmann::json system_options = nlohmann::json::object())
      : name(std::move(system)), path(std::move(file)), options(std::move(system_options)) {}

  std::string name;  // registry key; empty = no system
  std::string path;
  nlohmann::json options = nlohmann::json::object();
  // The morpheus.json of a tokenizer directory at `path` when the caller has read it (null:
  // systems that need it read it; directory_format.h spec_directory_config).
  std::shared_ptr<const nlohmann::json> directory_config;
};

using SegmenterCreator =
    std::function<StatusOr<std::unique_ptr<Segmenter>>(const SegmenterSpec& spec)>;

// Registers (or replaces) the creator of `name`. Thread-safe. None is registered from the start.
void register_segmenter(const std::string& name, SegmenterCreator creator);
// Creates the system spec.name; NOT_FOUND naming the registered systems when it is unknown.
StatusOr<std::unique_ptr<Segmenter>> create_segmenter(const SegmenterSpec& spec);
// Registered names, sorted.
std::vector<std::string> segmenter_names();

}  // namespace morpheus::tokenizer
