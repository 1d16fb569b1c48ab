// SPDX-License-Identifier: MIT
// The BPE and Unigram run segmenters of the plain tokenizer directories.
#include "baselines/plain/plain_export.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "baselines/cbpe/bpe_trainer.h"
#include "baselines/cbpe/cbpe_model.h"
#include "baselines/plain/plain_segmenters.h"
#include "baselines/plain/unigram_segmenter.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "core/word_counts.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/pretokenizer.h"

namespace morpheus::exporter {
namespace {

using nlohmann::json;
using tokenizer::cbpe::BpeModel;

// The single-code-point letters among `pieces`, in their order.
std::vector<std::string> letters_of(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (const std::string& p : pieces) {
    if (utf8::length(p) == 1 && unicode::is_letter(utf8::decode_one(p, 0).code_point)) {
      out.push_back(p);
    }
  }
  return out;
}

// Plain BPE: merges learned on the folded runs, no boundaries.
class BpeRunSegmenter : public RunSegmenter {
 public:
  explicit BpeRunSegmenter(BpeModel bpe)
      : bpe_(std::make_shared<const BpeModel>(std::move(bpe))), cut_(bpe_, nullptr) {}
  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& runs) const override {
    return cut_.segment(runs);
  }
  std::vector<std::string> letters() const override { return letters_of(bpe_->tokens()); }
  std::vector<std::string> spare_pieces() const override {
    return {bpe_->tokens().begin() + tokenizer::cbpe::kNumSpecials, bpe_->tokens().end()};
  }
  StatusOr<std::vector<std::string>> write_files(const std::string& dir) const override {
    MORPHEUS_RETURN_IF_ERROR(make_dirs(path_join(dir, "bpe")));
    MORPHEUS_RETURN_IF_ERROR(bpe_->save(path_join(dir, tokenizer::cbpe::kPlainBpeVocab),
                                        path_join(dir, tokenizer::cbpe::kPlainBpeMerges)));
    return std::vector<std::string>{tokenizer::cbpe::kPlainBpeVocab,
                                    tokenizer::cbpe::kPlainBpeMerges};
  }
  json config() const override {
    return json{
        {"segmenter",
         {{"name", "bpe"}, {"merges", bpe_->merges().size()}, {"tokens", bpe_->tokens().size()}}}};
  }

 private:
  std::shared_ptr<const BpeModel> bpe_;
  tokenizer::cbpe::CbpeSegmenter cut_;
};

// Unigram: the most likely cut over a trained model's pieces.
class UnigramRunSegmenter : public RunSegmenter {
 public:
  UnigramRunSegmenter(std::string pieces_path, std::string pieces_json,
                      std::shared_ptr<const tokenizer::UnigramSegmenter> cut)
      : pieces_path_(std::move(pieces_path)),
        pieces_json_(std::move(pieces_json)),
        cut_(std::move(cut)) {}
  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& runs) const override {
    return cut_->segment(runs);
  }
  std::vector<std::string> letters() const override { return letters_of(cut_->pieces()); }
  std::vector<std::string> spare_pieces() const override { return cut_->pieces(); }
  StatusOr<std::vector<std::string>> write_files(const std::string& dir) const override {
    MORPHEUS_RETURN_IF_ERROR(make_dirs(path_join(dir, "unigram")));
    MORPHEUS_RETURN_IF_ERROR(
        write_file_atomic(path_join(dir, tokenizer::cbpe::kPlainUnigramPieces), pieces_json_));
    return std::vector<std::string>{tokenizer::cbpe::kPlainUnigramPieces};
  }
  json config() const override {
    return json{{"segmenter", {{"name", "unigram"}, {"pieces", cut_->pieces().size()}}}};
  }

 private:
  std::string pieces_path_;
  std::string pieces_json_;
  std::shared_ptr<const tokenizer::UnigramSegmenter> cut_;
};

StatusOr<std::unique_ptr<RunSegmenter>> train_bpe_segmenter(const WriterOptions& writer,
                                                            const PlainOptions& plain) {
  MORPHEUS_ASSIGN_OR_RETURN(auto runs, plain_runs(writer.words));
  std::vector<tokenizer::cbpe::TrainingWord> words;
  words.reserve(runs.size());
  for (const auto& [run, count] : runs) {
    tokenizer::cbpe::TrainingWord w;
    w.text = utf8::decode(run).value();  // folded letter runs: valid UTF-8
    w.count = count;
    words.push_back(std::move(w));
  }
  tokenizer::cbpe::TrainerOptions options;
  options.vocab_size = plain.bpe_vocab_size > 0 ? plain.bpe_vocab_size
                                                : writer.vocab_size - reserved_ids(writer) +
                                                      tokenizer::cbpe::kNumSpecials;
  options.printable_ascii = false;  // letter runs only
  tokenizer::cbpe::TrainerStats stats;
  MORPHEUS_ASSIGN_OR_RETURN(BpeModel bpe, tokenizer::cbpe::train_bpe(words, options, &stats));
  MORPHEUS_LOG(kInfo, "export-plain: bpe ", stats.merges, " merges on ", runs.size(), " runs",
               stats.exhausted ? " (no pairs left)" : "");
  return std::unique_ptr<RunSegmenter>(std::make_unique<BpeRunSegmenter>(std::move(bpe)));
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, uint64_t>>> plain_runs(const std::string& words) {
  MORPHEUS_ASSIGN_OR_RETURN(auto types, read_word_counts(words));
  std::unordered_map<std::string, uint64_t> counts;
  std::vector<tokenizer::Span> spans;
  for (const auto& [word, count] : types) {
    spans.clear();
    tokenizer::pretokenize_into(word, spans);
    for (const tokenizer::Span& span : spans) {
      if (span.kind == tokenizer::SpanKind::kLetter) {
        counts[tokenizer::fold_run(span.text(word))] += count;
      }
    }
  }
  std::vector<std::pair<std::string, uint64_t>> runs(counts.begin(), counts.end());
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return runs;
}

StatusOr<std::unique_ptr<RunSegmenter>> make_plain_segmenter(const WriterOptions& writer,
                                                             const PlainOptions& plain) {
  if (plain.segmenter == "bpe") return train_bpe_segmenter(writer, plain);
  if (plain.segmenter != "unigram") {
    return invalid_argument("unknown --segmenter \"" + plain.segmenter + "\"",
                            "use bpe or unigram");
  }
  if (plain.pieces.empty()) {
    return invalid_argument("--segmenter unigram needs --pieces PIECES.json",
                            "train it with: morpheus export-plain --runs-out RUNS.tsv --words "
                            "WORDS.tsv, then morpheus-spm unigram-pieces --words RUNS.tsv");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string json_text, read_file(plain.pieces));
  MORPHEUS_ASSIGN_OR_RETURN(std::shared_ptr<const tokenizer::UnigramSegmenter> cut,
                            tokenizer::UnigramSegmenter::load(plain.pieces));
  return std::unique_ptr<RunSegmenter>(
      std::make_unique<UnigramRunSegmenter>(plain.pieces, std::move(json_text), std::move(cut)));
}

}  // namespace morpheus::exporter
