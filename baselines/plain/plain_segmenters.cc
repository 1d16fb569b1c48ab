// SPDX-License-Identifier: MIT
// The "bpe" and "unigram" segmenters of the plain tokenizer directories.
#include "baselines/plain/plain_segmenters.h"

#include <memory>
#include <mutex>
#include <utility>

#include "baselines/cbpe/bpe_model.h"
#include "baselines/cbpe/cbpe_model.h"
#include "baselines/plain/unigram_segmenter.h"
#include "core/file_util.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer::cbpe {
namespace {

// The shared unigram segmenter as an owned Segmenter (the factory hands out unique_ptr).
class SharedSegmenter : public Segmenter {
 public:
  explicit SharedSegmenter(std::shared_ptr<const Segmenter> inner) : inner_(std::move(inner)) {}
  StatusOr<Segmentation> segment(const std::vector<std::string>& words) const override {
    return inner_->segment(words);
  }
  StatusOr<std::vector<std::string>> segment_word(std::string_view word) const override {
    return inner_->segment_word(word);
  }
  std::string name() const override { return inner_->name(); }

 private:
  std::shared_ptr<const Segmenter> inner_;
};

StatusOr<std::unique_ptr<Segmenter>> create_bpe(const SegmenterSpec& spec) {
  MORPHEUS_ASSIGN_OR_RETURN(BpeModel bpe, BpeModel::load(path_join(spec.path, kPlainBpeVocab),
                                                         path_join(spec.path, kPlainBpeMerges)));
  return std::unique_ptr<Segmenter>(
      std::make_unique<CbpeSegmenter>(std::make_shared<const BpeModel>(std::move(bpe)), nullptr));
}

StatusOr<std::unique_ptr<Segmenter>> create_unigram(const SegmenterSpec& spec) {
  MORPHEUS_ASSIGN_OR_RETURN(std::shared_ptr<const UnigramSegmenter> unigram,
                            UnigramSegmenter::load(path_join(spec.path, kPlainUnigramPieces)));
  return std::unique_ptr<Segmenter>(std::make_unique<SharedSegmenter>(std::move(unigram)));
}

}  // namespace

void register_plain_segmenters() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    register_segmenter("bpe", create_bpe);
    register_segmenter("unigram", create_unigram);
  });
}

}  // namespace morpheus::tokenizer::cbpe
