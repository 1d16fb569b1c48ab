// SPDX-License-Identifier: MIT
// CbpeModel: a trained constrained-BPE tokenizer: boundary provider (none, a segment file
// or the Tagalog rules) + BPE merges learned inside the boundaries, encoded/decoded losslessly by
// PieceCodec (tokenizer/piece_codec.h). Word w -> fold case -> provider pieces -> BPE per piece.
// Model directory (each file written atomically):
//   cbpe.json         {"format_version":1, "boundaries":"none|file|tagalog|pretokens",
//                      "turkish_case":bool, "tagalog_tables":DIR, "tagalog_roots":FILE}
//   vocab.json        the reference's layout (<pad> <unk> <s> </s>, base characters, merges)
//   merges.txt        "left<TAB>right" per merge, in rank order (byte-compatible with reference)
//   segmentation.tsv  only for "file": the boundaries of the training words, a segment file
//                     (tokenizer/segment_file.h) read as a TableSegmenter
// Codec ids: 0..255 bytes, 256 <cap>, 257 <upper>, 258 <upper_word>, then vocab.json token i
// (i >= 4) at 255 + i.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "baselines/cbpe/bpe_model.h"
#include "baselines/cbpe/bpe_trainer.h"
#include "core/status.h"
#include "tokenizer/piece_codec.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer::cbpe {

// The CBPE system: the provider's pieces of a case-folded word (the whole word when there is no
// provider or its pieces do not spell the word), each BPE-encoded. Shares the model's parts.
class CbpeSegmenter : public WordSegmenter {
 public:
  CbpeSegmenter(std::shared_ptr<const BpeModel> bpe, std::shared_ptr<const Segmenter> boundaries)
      : bpe_(std::move(bpe)), boundaries_(std::move(boundaries)) {}
  std::vector<std::string> cut(std::string_view folded_word) const override;
  std::string name() const override { return "cbpe"; }

 private:
  std::shared_ptr<const BpeModel> bpe_;
  std::shared_ptr<const Segmenter> boundaries_;  // may be null
};

struct CbpeConfig {
  std::string boundaries = "none";  // none | file | tagalog | pretokens
  bool turkish_case = true;         // Turkish I/ı İ/i folding (false for Tagalog)
  std::string tagalog_tables;       // affix table directory (boundaries == tagalog)
  std::string tagalog_roots;        // root word list (boundaries == tagalog)
};

class CbpeModel {
 public:
  // Trains on the letter runs of a corpus (one sentence per line; case-folded word types with
  // counts), cutting each type with `boundaries` (nullptr: plain BPE).
  static StatusOr<CbpeModel> train_corpus(const std::string& corpus_path,
                                          std::shared_ptr<const Segmenter> boundaries,
                                          const CbpeConfig& config, size_t vocab_size);
  // Trains in the reference's mode on its annotated pre-token list (a JSON array of strings).
  static StatusOr<CbpeModel> train_pretokens(const std::string& json_path, size_t vocab_size);
  // Builds the Tagalog segmenter from config.tagalog_tables / tagalog_roots.
  static StatusOr<std::shared_ptr<const Segmenter>> tagalog_boundaries(const CbpeConfig& config);

  static StatusOr<CbpeModel> load(const std::string& dir);
  Status save(const std::string& dir) const;

  const PieceCodec& codec() const { return *codec_; }
  const BpeModel& bpe() const { return *bpe_; }
  const CbpeConfig& config() const { return config_; }
  const TrainerStats& stats() const { return stats_; }
  // Pieces of one (case-folded) word: provider pieces, each BPE-encoded (CbpeSegmenter).
  std::vector<std::string> word_pieces(std::string_view folded_word) const {
    return segmenter_->cut(folded_word);
  }
  // The segmenter the codec uses (registry name "cbpe", tokenizer/segmenter.h).
  std::shared_ptr<const CbpeSegmenter> segmenter() const { return segmenter_; }

 private:
  static StatusOr<CbpeModel> assemble(BpeModel bpe, std::shared_ptr<const Segmenter> boundaries,
                                      CbpeConfig config);

  CbpeConfig config_;
  TrainerStats stats_;
  std::shared_ptr<const BpeModel> bpe_;
  std::shared_ptr<const Segmenter> boundaries_;
  std::shared_ptr<const CbpeSegmenter> segmenter_;
  std::shared_ptr<const PieceCodec> codec_;
};

}  // namespace morpheus::tokenizer::cbpe
