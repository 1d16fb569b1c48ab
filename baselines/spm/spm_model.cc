// SPDX-License-Identifier: MIT
// SentencePiece training and lossless encode/decode behind morpheus-spm.
#include "baselines/spm/spm_model.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {
namespace {

constexpr char32_t kEscape = 0xE000;
constexpr char32_t kEscapedMarker = 0xE001;
constexpr char32_t kSpmSpace = 0x2581;
constexpr int kSpmFormatVersion = 1;

Status from_spm(const sentencepiece::util::Status& s, const std::string& what) {
  if (s.ok()) return ok_status();
  return invalid_argument(what + ": SentencePiece: " + std::string(s.message()));
}

// Streams escaped corpus lines into the trainer.
class EscapedLines : public sentencepiece::SentenceIterator {
 public:
  explicit EscapedLines(const std::string& path) {
    status_ = reader_.open(path, true);
    if (status_.ok()) Next();
  }
  bool done() const override { return done_; }
  void Next() override {
    std::string line;
    while (reader_.next(&line)) {
      if (line.empty()) continue;
      value_ = spm_escape(line);
      return;
    }
    if (status_.ok()) status_ = reader_.status();
    done_ = true;
  }
  const std::string& value() const override { return value_; }
  sentencepiece::util::Status status() const override {
    if (status_.ok()) return sentencepiece::util::Status();
    return sentencepiece::util::Status(sentencepiece::util::StatusCode::kInvalidArgument,
                                       status_.message());
  }
  const Status& morpheus_status() const { return status_; }

 private:
  LineReader reader_;
  Status status_;
  std::string value_;
  bool done_ = false;
};

}  // namespace

std::string spm_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (d.valid && d.code_point == kEscape) {
      utf8::append(kEscape, out);
      utf8::append(kEscape, out);
    } else if (d.valid && d.code_point == kSpmSpace) {
      utf8::append(kEscape, out);
      utf8::append(kEscapedMarker, out);
    } else {
      out.append(text.substr(pos, d.length));
    }
    pos += d.length;
  }
  return out;
}

std::string spm_unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (d.valid && d.code_point == kEscape && pos + d.length < text.size()) {
      const utf8::Decoded e = utf8::decode_one(text, pos + d.length);
      if (e.valid && (e.code_point == kEscape || e.code_point == kEscapedMarker)) {
        utf8::append(e.code_point == kEscape ? kEscape : kSpmSpace, out);
        pos += d.length + e.length;
        continue;
      }
    }
    out.append(text.substr(pos, d.length));
    pos += d.length;
  }
  return out;
}

Status spm_train(const SpmTrainOptions& o) {
  if (o.type != "bpe" && o.type != "unigram") {
    return invalid_argument("unknown --type \"" + o.type + "\"", "use bpe or unigram");
  }
  if (o.vocab_size < 300) {
    return invalid_argument("--vocab-size " + std::to_string(o.vocab_size) + " is too small",
                            "byte fallback alone needs 256 pieces + specials; use >= 300");
  }
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(o.corpus));
  MORPHEUS_RETURN_IF_ERROR(make_dirs(o.out));
  const std::string prefix = path_join(o.out, "spm");
  const std::unordered_map<std::string, std::string> kwargs = {
      {"model_prefix", prefix},
      {"model_type", o.type},
      {"vocab_size", std::to_string(o.vocab_size)},
      {"character_coverage", "0.9999"},
      {"byte_fallback", "true"},
      {"split_digits", "true"},
      {"normalization_rule_name", "identity"},
      {"remove_extra_whitespaces", "false"},
      {"add_dummy_prefix", o.add_dummy_prefix ? "true" : "false"},
      {"hard_vocab_limit", o.hard_vocab_limit ? "true" : "false"},
      {"num_threads", std::to_string(o.threads)},
      {"max_sentence_length", "16384"},
      {"minloglevel", "1"},
  };
  EscapedLines lines(o.corpus);
  MORPHEUS_RETURN_IF_ERROR(lines.morpheus_status());
  MORPHEUS_RETURN_IF_ERROR(from_spm(sentencepiece::SentencePieceTrainer::Train(kwargs, &lines),
                                    "training on " + o.corpus));
  MORPHEUS_RETURN_IF_ERROR(lines.morpheus_status());
  const nlohmann::json meta = {{"format_version", kSpmFormatVersion},
                               {"type", o.type},
                               {"vocab_size", o.vocab_size},
                               {"escape", "U+E000 -> U+E000 U+E000; U+2581 -> U+E000 U+E001"},
                               {"normalization", "identity"},
                               {"add_dummy_prefix", o.add_dummy_prefix}};
  return write_file_atomic(path_join(o.out, "spm.json"), meta.dump(2) + "\n");
}

SpmModel::SpmModel() : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
SpmModel::~SpmModel() = default;

StatusOr<std::unique_ptr<SpmModel>> SpmModel::load(const std::string& dir) {
  const std::string meta_path = path_join(dir, "spm.json");
  if (!file_exists(meta_path)) {
    return not_found(dir + " is not a morpheus-spm model directory (no spm.json)",
                     "train one with: morpheus-spm train --corpus FILE --out " + dir);
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(meta_path));
  const nlohmann::json meta = nlohmann::json::parse(text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object() ||
      meta.value("format_version", 0) != kSpmFormatVersion) {
    return data_loss(meta_path + ": not a format_version " + std::to_string(kSpmFormatVersion) +
                         " morpheus-spm model",
                     "retrain the model with this version of morpheus-spm");
  }
  const auto dummy_prefix = meta.find("add_dummy_prefix");
  if (dummy_prefix != meta.end() && !dummy_prefix->is_boolean()) {
    return data_loss(meta_path + ": \"add_dummy_prefix\" is not true or false",
                     "retrain the model with this version of morpheus-spm");
  }
  std::unique_ptr<SpmModel> model(new SpmModel());
  model->add_dummy_prefix_ = dummy_prefix != meta.end() && dummy_prefix->get<bool>();
  const std::string path = path_join(dir, "spm.model");
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  const sentencepiece::util::Status s = model->sp_->Load(path);
  if (!s.ok()) {
    return data_loss(path + ": " + std::string(s.message()), "the model file is corrupt");
  }
  return model;
}

int SpmModel::vocab_size() const { return sp_->GetPieceSize(); }

Status SpmModel::encode(std::string_view text, std::vector<int32_t>* ids) const {
  MORPHEUS_RETURN_IF_ERROR(utf8::validate(text));
  std::vector<int> out;
  MORPHEUS_RETURN_IF_ERROR(from_spm(sp_->Encode(spm_escape(text), &out), "encode"));
  ids->insert(ids->end(), out.begin(), out.end());
  return ok_status();
}

Status SpmModel::decode(const std::vector<int32_t>& ids, std::string* text) const {
  const int size = sp_->GetPieceSize();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= size) {
      return invalid_argument("id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                                  " is outside [0, " + std::to_string(size) + ")",
                              "decode ids produced by the same model");
    }
  }
  std::string raw;
  MORPHEUS_RETURN_IF_ERROR(
      from_spm(sp_->Decode(std::vector<int>(ids.begin(), ids.end()), &raw), "decode"));
  text->append(spm_unescape(raw));
  return ok_status();
}

StatusOr<std::vector<std::string>> SpmModel::segment(std::string_view word) const {
  MORPHEUS_RETURN_IF_ERROR(utf8::validate(word));
  const std::string escaped = spm_escape(word);
  sentencepiece::ImmutableSentencePieceText spt;
  MORPHEUS_RETURN_IF_ERROR(from_spm(sp_->Encode(escaped, spt.mutable_proto()), "segment"));
  std::vector<std::string> pieces;
  for (const auto& p : spt.pieces()) {
    if (p.end() > p.begin())
      pieces.push_back(spm_unescape(escaped.substr(p.begin(), p.end() - p.begin())));
  }
  return pieces;
}

}  // namespace morpheus::tokenizer
