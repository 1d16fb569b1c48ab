// SPDX-License-Identifier: MIT
// The Morpheus tokenizer directory written by `morpheus export` and read by encode/decode/
// segment/embed/neighbors (format 2):
//   tokenizer.json   {"format_version","kind":"morpheus-tokenizer","vocab_size","threshold",
//                     "max_word_len","turkish_case","files":{relative path: checksum},
//                     "self_test":[{"text","ids"}],"model_self_test":[{"run","pieces"}], ...}
//   pieces.json      {"pieces":[...],"counts":[...]}: piece i has id 259 + i (PieceCodec layout)
//   segments.bin     the model's pieces of every exported letter run (tokenizer/tokenizer_dir.h)
//   model/           inference checkpoint (model/checkpoint.h)
//   char_vocab.json  the model's character vocabulary (model/char_vocab.h)
//   words.tsv        the word types (word<TAB>count) the vocabulary was distilled from
// Loading checks the checksums of pieces.json and segments.bin and re-encodes the self-test texts
// (table only). The model is loaded lazily, on the first letter run the table lacks; then its
// files are checksummed and the model self-test runs must segment as at export.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "infer/neural_segmenter.h"
#include "tokenizer/piece_codec.h"
#include "tokenizer/segmenter.h"
#include "tokenizer/tokenizer_dir.h"

namespace morpheus::infer {

struct ExportOptions {
  std::string checkpoint;  // inference or training checkpoint dir with char_vocab.json
  std::string words;       // word<TAB>count file (words.tsv of `morpheus prepare`)
  // Running text (e.g. the training corpus), optional: the runs the apostrophe convention keeps
  // whole (proper names before an apostrophe, "'da"-style suffix chains; tokenizer/piece_codec.h)
  // count as candidate pieces, once per occurrence.
  std::string text;
  std::string out;            // tokenizer directory (replaced atomically)
  size_t vocab_size = 50000;  // total ids incl. 256 bytes and 2 case tokens
  uint64_t min_count = 2;     // pieces seen less often (weighted) are not kept
  double threshold = 0;       // boundary probability threshold in (0, 1); 0: the model's own
  // Root snap (morph/root_snap.h) on every segmentation, table and model alike; the two
  // lexicons are copied into the directory (root_snap/).
  bool root_snap = false;
  std::string root_lexicon;    // first field per line: roots
  std::string suffix_lexicon;  // first field per line: suffix chains
  // Where the model segments the word types. The table of a CUDA export can differ from a CPU
  // export's where a gap's probability is within float rounding of the threshold; the model
  // self-test uses runs far from it, so the directory loads on any device.
  torch::Device device = torch::kCPU;
};

struct ExportSummary {
  size_t word_types = 0;   // distinct words read
  size_t letter_runs = 0;  // distinct folded letter runs segmented
  size_t pieces = 0;       // pieces in the vocabulary
  double seconds = 0;
};

// Segments the word types with the model, distils the piece vocabulary (weighted by counts) and
// writes the tokenizer directory. Errors name the file and line.
Status export_tokenizer(const ExportOptions& options, ExportSummary* summary = nullptr);

// Reads a word<TAB>count file (a line without a tab counts 1; "<unk>" lines are skipped).
StatusOr<std::vector<std::pair<std::string, uint64_t>>> read_word_counts(const std::string& path);

// Loads the model of the tokenizer directory `dir` (its tokenizer.json is `config`): checks the
// checksums of model/ and char_vocab.json and runs the model self-test (DATA_LOSS naming the run
// when a segmentation differs); FAILED_PRECONDITION when options.int8 cannot be honoured.
StatusOr<std::unique_ptr<NeuralSegmenter>> load_model_segmenter(const std::string& dir,
                                                                const nlohmann::json& config,
                                                                NeuralSegmenterOptions options);

// The spec of the "morpheus-model" segmenter (tokenizer/segmenter.h), registered by this call:
// load_model_segmenter on the directory at spec.path, in this process. It carries `options`'
// cache_capacity, max_batch_chars and device as {"cache", "max_batch_chars", "device"}; the
// threshold and the root snap come from the directory.
tokenizer::SegmenterSpec in_process_model(const NeuralSegmenterOptions& options);

class NeuralTokenizer {
 public:
  // Loads a tokenizer directory (TokenizerDir::load); the model is loaded on first use.
  static StatusOr<std::unique_ptr<NeuralTokenizer>> load(const std::string& dir,
                                                         bool self_test = true,
                                                         NeuralSegmenterOptions options = {});

  const tokenizer::PieceCodec& codec() const { return dir_->codec(); }
  const tokenizer::TokenizerDir& tokenizer() const { return *dir_; }
  const std::string& dir() const { return dir_->dir(); }
  // The model segmenter, loaded (and checked) on the first call; later calls return it or the
  // same error.
  StatusOr<const NeuralSegmenter*> segmenter() const;

  // TokenizerDir::prefetch / encode.
  Status prefetch(const std::vector<std::string>& texts) const { return dir_->prefetch(texts); }
  Status encode(std::string_view text, std::vector<int32_t>* ids,
                bool allow_invalid = false) const {
    return dir_->encode(text, ids, allow_invalid);
  }

 private:
  NeuralTokenizer() = default;
  std::unique_ptr<tokenizer::TokenizerDir> dir_;
};

}  // namespace morpheus::infer
