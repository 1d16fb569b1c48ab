// SPDX-License-Identifier: MIT
// CbpeModel: training from a corpus or pre-tokens, the model directory, the encoder wiring.
#include "baselines/cbpe/cbpe_model.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "baselines/cbpe/tagalog_segmenter.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "core/utf8.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_file.h"
#include "tokenizer/segment_table.h"

namespace morpheus::tokenizer::cbpe {
namespace {

constexpr int kFormatVersion = 1;

bool spells(const std::vector<std::string>& pieces, std::string_view word) {
  size_t pos = 0;
  for (const std::string& p : pieces) {
    if (word.compare(pos, p.size(), p) != 0) return false;
    pos += p.size();
  }
  return pos == word.size();
}

// BPE merging costs more than linear time in the segment length: a segment longer than this many
// code points (never a real word, e.g. a 50 MB line of letters) is merged in independent chunks,
// which keeps encoding linear. Pieces still concatenate to the segment.
constexpr size_t kMaxBpeChunk = 256;

void encode_pieces_chunked(const BpeModel& bpe, const std::string& segment,
                           std::vector<std::string>* pieces) {
  const std::u32string cps = utf8::decode(segment).value();
  const std::u32string_view view(cps);
  for (size_t i = 0; i < view.size(); i += kMaxBpeChunk) {
    bpe.encode_pieces(view.substr(i, kMaxBpeChunk), pieces);
  }
}

}  // namespace

// ---- CbpeModel -----------------------------------------------------------------------------

namespace {

// Pieces of `word` by `boundaries` (the whole word when null, failing or not spelling it).
std::vector<std::string> boundary_pieces(const Segmenter* boundaries, std::string_view word) {
  std::vector<std::string> segments;
  if (boundaries != nullptr) {
    StatusOr<std::vector<std::string>> cut = boundaries->segment_word(word);
    if (cut.ok()) segments = std::move(*cut);
  }
  if (segments.empty() || !spells(segments, word)) segments.assign(1, std::string(word));
  return segments;
}

}  // namespace

std::vector<std::string> CbpeSegmenter::cut(std::string_view folded_word) const {
  std::vector<std::string> pieces;
  for (const std::string& s : boundary_pieces(boundaries_.get(), folded_word)) {
    if (!s.empty()) encode_pieces_chunked(*bpe_, s, &pieces);
  }
  return pieces;
}

StatusOr<CbpeModel> CbpeModel::assemble(BpeModel bpe, std::shared_ptr<const Segmenter> boundaries,
                                        CbpeConfig config) {
  CbpeModel model;
  model.config_ = std::move(config);
  model.bpe_ = std::make_shared<const BpeModel>(std::move(bpe));
  model.boundaries_ = std::move(boundaries);
  std::vector<std::string> pieces(model.bpe_->tokens().begin() + kNumSpecials,
                                  model.bpe_->tokens().end());
  model.segmenter_ = std::make_shared<const CbpeSegmenter>(model.bpe_, model.boundaries_);
  PieceCodecOptions options;
  options.turkish_case = model.config_.turkish_case;
  StatusOr<PieceCodec> codec = PieceCodec::create(std::move(pieces), model.segmenter_, options);
  if (!codec.ok()) {
    return data_loss("vocabulary: " + codec.status().message(), codec.status().hint());
  }
  model.codec_ = std::make_shared<const PieceCodec>(std::move(codec).value());
  return model;
}

StatusOr<std::shared_ptr<const Segmenter>> CbpeModel::tagalog_boundaries(const CbpeConfig& config) {
  MORPHEUS_ASSIGN_OR_RETURN(TagalogAffixes affixes, TagalogAffixes::load(config.tagalog_tables));
  MORPHEUS_ASSIGN_OR_RETURN(TagalogRoots roots, TagalogRoots::load(config.tagalog_roots));
  return std::shared_ptr<const Segmenter>(
      std::make_shared<TagalogSegmenter>(std::move(affixes), std::move(roots)));
}

StatusOr<CbpeModel> CbpeModel::train_corpus(const std::string& corpus_path,
                                            std::shared_ptr<const Segmenter> boundaries,
                                            const CbpeConfig& config, size_t vocab_size) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(corpus_path));
  std::unordered_map<std::string, size_t> index;
  std::vector<std::pair<std::string, uint64_t>> types;
  std::string line;
  std::vector<Span> spans;
  size_t tokens = 0;
  while (reader.next(&line)) {
    spans.clear();
    pretokenize_into(line, spans);
    for (const Span& s : spans) {
      if (s.kind != SpanKind::kLetter) continue;
      std::string w = fold_run(s.text(line), config.turkish_case);  // a letter run: valid UTF-8
      const auto [it, inserted] = index.emplace(w, types.size());
      if (inserted) types.emplace_back(std::move(w), 0);
      ++types[it->second].second;
      ++tokens;
    }
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (types.empty()) {
    return invalid_argument(corpus_path + ": no words to train on", "pass a non-empty corpus");
  }
  MORPHEUS_LOG(kInfo, "cbpe: ", tokens, " words, ", types.size(), " types from ", corpus_path);
  std::vector<TrainingWord> words;
  words.reserve(types.size());
  size_t cut_words = 0;
  for (const auto& [w, count] : types) {
    TrainingWord tw;
    tw.text = utf8::decode(w).value();
    tw.count = count;
    if (boundaries) {
      const std::vector<std::string> pieces = boundary_pieces(boundaries.get(), w);
      if (pieces.size() > 1 && spells(pieces, w)) {
        uint32_t offset = 0;
        for (size_t k = 0; k + 1 < pieces.size(); ++k) {
          offset += static_cast<uint32_t>(utf8::length(pieces[k]));
          if (offset > 0 && offset < tw.text.size() &&
              (tw.cuts.empty() || tw.cuts.back() < offset)) {
            tw.cuts.push_back(offset);
          }
        }
        if (!tw.cuts.empty()) ++cut_words;
      }
    }
    words.push_back(std::move(tw));
  }
  if (boundaries) MORPHEUS_LOG(kInfo, "cbpe: ", cut_words, " types have morpheme boundaries");
  TrainerOptions options;
  options.vocab_size = vocab_size;
  TrainerStats stats;
  MORPHEUS_ASSIGN_OR_RETURN(BpeModel bpe, train_bpe(words, options, &stats));
  MORPHEUS_LOG(kInfo, "cbpe: ", stats.merges, " merges", stats.exhausted ? " (no pairs left)" : "");
  MORPHEUS_ASSIGN_OR_RETURN(CbpeModel model,
                            assemble(std::move(bpe), std::move(boundaries), config));
  model.stats_ = stats;
  return model;
}

StatusOr<CbpeModel> CbpeModel::train_pretokens(const std::string& json_path, size_t vocab_size) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(json_path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    return invalid_argument(json_path + ": not a JSON array of pre-token strings",
                            "pass the reference's annotated_entries.json");
  }
  std::vector<std::string> pretokens;
  pretokens.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string() || !utf8::is_valid(j[i].get_ref<const std::string&>())) {
      return invalid_argument(json_path + ": entry " + std::to_string(i) +
                              " is not a UTF-8 string");
    }
    pretokens.push_back(j[i].get<std::string>());
  }
  TrainerOptions options;
  options.vocab_size = vocab_size;
  options.marker_symbol = true;
  TrainerStats stats;
  MORPHEUS_ASSIGN_OR_RETURN(BpeModel bpe, train_bpe(count_pretokens(pretokens), options, &stats));
  CbpeConfig config;
  config.boundaries = "pretokens";
  config.turkish_case = false;
  MORPHEUS_ASSIGN_OR_RETURN(CbpeModel model, assemble(std::move(bpe), nullptr, config));
  model.stats_ = stats;
  return model;
}

Status CbpeModel::save(const std::string& dir) const {
  MORPHEUS_RETURN_IF_ERROR(make_dirs(dir));
  nlohmann::json meta = {
      {"format_version", kFormatVersion},       {"boundaries", config_.boundaries},
      {"turkish_case", config_.turkish_case},   {"tagalog_tables", config_.tagalog_tables},
      {"tagalog_roots", config_.tagalog_roots}, {"merges", bpe_->merges().size()},
      {"vocab_size", bpe_->tokens().size()},    {"codec_vocab_size", codec_->vocab_size()}};
  MORPHEUS_RETURN_IF_ERROR(bpe_->save(path_join(dir, "vocab.json"), path_join(dir, "merges.txt")));
  if (config_.boundaries == "file") {
    const auto* table = dynamic_cast<const TableSegmenter*>(boundaries_.get());
    MORPHEUS_CHECK(table != nullptr, "file boundaries without a TableSegmenter");
    MORPHEUS_RETURN_IF_ERROR(
        write_segment_file(path_join(dir, "segmentation.tsv"), table->table().entries()));
  }
  // cbpe.json last: a directory without it is not a model.
  return write_file_atomic(path_join(dir, "cbpe.json"), meta.dump(2) + "\n");
}

StatusOr<CbpeModel> CbpeModel::load(const std::string& dir) {
  const std::string meta_path = path_join(dir, "cbpe.json");
  if (!file_exists(meta_path)) {
    return not_found(dir + " is not a CBPE model directory (no cbpe.json)",
                     "train one with: morpheus cbpe train ... --out " + dir);
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(meta_path));
  nlohmann::json meta = nlohmann::json::parse(text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) {
    return data_loss(meta_path + ": not a JSON object", "the model directory is corrupt");
  }
  if (meta.value("format_version", 0) != kFormatVersion) {
    return data_loss(meta_path + ": format_version " +
                         meta.value("format_version", nlohmann::json()).dump() + ", expected " +
                         std::to_string(kFormatVersion),
                     "retrain the model with this version of morpheus");
  }
  CbpeConfig config;
  try {
    config.boundaries = meta.at("boundaries").get<std::string>();
    config.turkish_case = meta.at("turkish_case").get<bool>();
    config.tagalog_tables = meta.value("tagalog_tables", "");
    config.tagalog_roots = meta.value("tagalog_roots", "");
  } catch (const nlohmann::json::exception& e) {
    return data_loss(meta_path + ": " + e.what(), "the model directory is corrupt");
  }
  MORPHEUS_ASSIGN_OR_RETURN(
      BpeModel bpe, BpeModel::load(path_join(dir, "vocab.json"), path_join(dir, "merges.txt")));
  // The counts cbpe.json records catch a truncated or emptied vocab.json / merges.txt.
  struct RecordedCount {
    const char* key;
    const char* file;
    size_t have;
  };
  const RecordedCount counts[] = {{"merges", "merges.txt", bpe.merges().size()},
                                  {"vocab_size", "vocab.json", bpe.tokens().size()}};
  for (const auto& [key, file, have] : counts) {
    const nlohmann::json& want = meta.contains(key) ? meta[key] : nlohmann::json();
    if (want.is_number_unsigned() && want.get<uint64_t>() != have) {
      return data_loss(path_join(dir, file) + ": holds " + std::to_string(have) + " " + key +
                           " entries but cbpe.json records " + want.dump() + " (truncated?)",
                       "the model directory is corrupt; retrain or restore it");
    }
  }
  std::shared_ptr<const Segmenter> boundaries;
  if (config.boundaries == "file") {
    MORPHEUS_ASSIGN_OR_RETURN(
        std::unique_ptr<TableSegmenter> table,
        TableSegmenter::load(path_join(dir, "segmentation.tsv"), config.turkish_case));
    boundaries = std::move(table);
  } else if (config.boundaries == "tagalog") {
    MORPHEUS_ASSIGN_OR_RETURN(boundaries, tagalog_boundaries(config));
  } else if (config.boundaries != "none" && config.boundaries != "pretokens") {
    return data_loss(meta_path + ": unknown boundaries \"" + config.boundaries + "\"",
                     "expected none, file, tagalog or pretokens");
  }
  return assemble(std::move(bpe), std::move(boundaries), std::move(config));
}

}  // namespace morpheus::tokenizer::cbpe
