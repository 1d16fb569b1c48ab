// SPDX-License-Identifier: MIT
// TYPES.tsv -> SentencePiece's Unigram trainer -> PIECES.json.
#include "baselines/spm/spm_unigram_pieces.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {
namespace {

constexpr uint64_t kMaxCount = static_cast<uint64_t>(INT64_MAX);
constexpr char32_t kSpmWhitespaceMarker = 0x2581;  // SentencePiece's whitespace marker
constexpr char32_t kSpmUnknownMarker = 0x2585;  // its stand-in for characters outside the alphabet
constexpr int kSpmDefaultMaxSentenceLength = 4192;
const char* const kTypesHint =
    "each line of TYPES.tsv is word<TAB>count: a case-folded letter "
    "run without whitespace, a tab, a whole number >= 1";

std::string code_point_name(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

bool reserved_by_spm(char32_t cp) {
  return cp == kSpmWhitespaceMarker || cp == kSpmUnknownMarker || cp == 0;
}

// INVALID_ARGUMENT: word "ki tap" holds U+0020 at byte 2, `why`.
Status bad_character(std::string_view word, char32_t cp, size_t pos, const std::string& why) {
  return invalid_argument("word \"" + std::string(word) + "\" holds " + code_point_name(cp) +
                          " at byte " + std::to_string(pos) + ", " + why);
}

Status check_word(std::string_view word) {
  if (word.empty()) return invalid_argument("empty word before the tab");
  for (size_t pos = 0; pos < word.size();) {
    const utf8::Decoded d = utf8::decode_one(word, pos);
    if (unicode::is_space(d.code_point))
      return bad_character(word, d.code_point, pos, "whitespace");
    if (reserved_by_spm(d.code_point)) {
      return bad_character(word, d.code_point, pos, "a character SentencePiece reserves");
    }
    pos += d.length;
  }
  return ok_status();
}

StatusOr<uint64_t> parse_count(std::string_view text) {
  uint64_t count = 0;
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (!digits || error != std::errc() || end != text.data() + text.size() || count < 1 ||
      count > kMaxCount) {
    return invalid_argument("count \"" + std::string(text) + "\" is not a whole number in [1, " +
                            std::to_string(kMaxCount) + "]");
  }
  return count;
}

StatusOr<WordType> parse_type_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos)
    return invalid_argument("expected word<TAB>count, found no tab");
  if (line.find('\t', tab + 1) != std::string_view::npos) {
    return invalid_argument("expected word<TAB>count, found more than one tab");
  }
  WordType type;
  MORPHEUS_RETURN_IF_ERROR(check_word(line.substr(0, tab)));
  type.word = std::string(line.substr(0, tab));
  MORPHEUS_ASSIGN_OR_RETURN(type.count, parse_count(line.substr(tab + 1)));
  return type;
}

// The types as SentencePiece's tsv sentences, word<TAB>count, one per type.
class TypeLines : public sentencepiece::SentenceIterator {
 public:
  explicit TypeLines(const std::vector<WordType>& types) : types_(types) { load(); }
  bool done() const override { return next_ > types_.size(); }
  void Next() override { load(); }
  const std::string& value() const override { return value_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  void load() {
    if (next_ < types_.size()) {
      value_ = types_[next_].word + "\t" + std::to_string(types_[next_].count);
    }
    ++next_;
  }

  const std::vector<WordType>& types_;
  size_t next_ = 0;
  std::string value_;
};

Status check_train_options(const std::vector<WordType>& types, const UnigramTrainOptions& o) {
  if (types.empty()) return invalid_argument("no word types to train on");
  if (o.threads < 1 || o.threads > 128) {
    return invalid_argument("--threads " + std::to_string(o.threads) + " is outside [1, 128]");
  }
  if (o.vocab_size < 1 || o.vocab_size == INT_MAX) {
    return invalid_argument("--vocab-size " + std::to_string(o.vocab_size) + " is outside [1, " +
                                std::to_string(INT_MAX - 1) + "]",
                            "use e.g. --vocab-size 50000");
  }
  std::unordered_set<char32_t> chars;
  for (const WordType& t : types) {
    for (size_t pos = 0; pos < t.word.size();) {
      const utf8::Decoded d = utf8::decode_one(t.word, pos);
      chars.insert(d.code_point);
      pos += d.length;
    }
  }
  if (chars.size() > static_cast<size_t>(o.vocab_size)) {
    return invalid_argument(
        "--vocab-size " + std::to_string(o.vocab_size) + " is smaller than the " +
            std::to_string(chars.size()) + " distinct characters of the types",
        "every character is a piece (character coverage 1.0): use --vocab-size >= " +
            std::to_string(chars.size()));
  }
  return ok_status();
}

// SentencePiece's trainer options (see the top of the header).
std::unordered_map<std::string, std::string> trainer_kwargs(const std::vector<WordType>& types,
                                                            const UnigramTrainOptions& o) {
  size_t longest = 0;
  uint64_t code_points = 0;
  for (const WordType& t : types) {
    longest = std::max(longest, t.word.size());
    code_points += utf8::length(t.word) + 1;
  }
  const bool large = code_points > static_cast<uint64_t>(INT32_MAX);
  return {
      {"model_type", "unigram"},
      {"vocab_size", std::to_string(o.vocab_size + 1)},  // + <unk>
      {"input_format", "tsv"},
      {"character_coverage", "1.0"},
      {"byte_fallback", "false"},
      {"normalization_rule_name", "identity"},
      {"remove_extra_whitespaces", "false"},
      {"add_dummy_prefix", "false"},
      {"unk_id", "0"},
      {"bos_id", "-1"},
      {"eos_id", "-1"},
      {"pad_id", "-1"},
      {"hard_vocab_limit", "false"},
      {"num_threads", std::to_string(o.threads)},
      {"max_sentence_length",
       std::to_string(std::max<size_t>(longest, kSpmDefaultMaxSentenceLength))},
      {"train_extremely_large_corpus", large ? "true" : "false"},
      {"minloglevel", "1"},
  };
}

// The normal pieces of a trained model and their scores, in id order.
StatusOr<UnigramPieces> normal_pieces(const std::string& model_proto) {
  sentencepiece::SentencePieceProcessor sp;
  const sentencepiece::util::Status loaded = sp.LoadFromSerializedProto(model_proto);
  if (!loaded.ok()) {
    return internal_error("SentencePiece cannot load the model it trained: " +
                          std::string(loaded.message()));
  }
  UnigramPieces out;
  for (int id = 0; id < sp.GetPieceSize(); ++id) {
    if (sp.IsControl(id) || sp.IsUnknown(id) || sp.IsUnused(id) || sp.IsByte(id)) continue;
    const std::string& piece = sp.IdToPiece(id);
    if (piece.find("\u2581") != std::string::npos) {
      return internal_error("SentencePiece made the piece \"" + piece +
                            "\" with its whitespace marker U+2581 from words without whitespace");
    }
    out.pieces.push_back(piece);
    out.log_probs.push_back(sp.GetScore(id));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<WordType>> read_word_types(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  std::vector<WordType> types;
  std::unordered_map<std::string, uint64_t> first_line;
  uint64_t tokens = 0;
  std::string line;
  while (reader.next(&line)) {
    const std::string where = path + ": line " + std::to_string(reader.line_number());
    StatusOr<WordType> type = parse_type_line(line);
    if (!type.ok()) return invalid_argument(where + ": " + type.status().message(), kTypesHint);
    const auto [it, inserted] = first_line.emplace(type->word, reader.line_number());
    if (!inserted) {
      return invalid_argument(
          where + ": word \"" + type->word + "\" repeats line " + std::to_string(it->second),
          "list each word type once, with its summed count");
    }
    if (type->count > kMaxCount - tokens) {
      return invalid_argument(where + ": the counts add up to more than " +
                              std::to_string(kMaxCount));
    }
    tokens += type->count;
    types.push_back(std::move(type).value());
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (types.empty()) return invalid_argument(path + ": no word types", kTypesHint);
  return types;
}

StatusOr<UnigramTraining> train_unigram_pieces(const std::vector<WordType>& types,
                                               const UnigramTrainOptions& options) {
  MORPHEUS_RETURN_IF_ERROR(check_train_options(types, options));
  TypeLines lines(types);
  UnigramTraining out;
  const sentencepiece::util::Status trained = sentencepiece::SentencePieceTrainer::Train(
      trainer_kwargs(types, options), &lines, &out.model_proto);
  if (!trained.ok()) {
    return invalid_argument("SentencePiece's Unigram trainer: " + std::string(trained.message()));
  }
  MORPHEUS_ASSIGN_OR_RETURN(out.pieces, normal_pieces(out.model_proto));
  out.pieces.trained_on_types = types.size();
  for (const WordType& t : types) out.pieces.trained_on_tokens += t.count;
  out.pieces.vocab_size = options.vocab_size;
  return out;
}

StatusOr<UnigramPieces> write_unigram_pieces(const UnigramPiecesOptions& options) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<WordType> types, read_word_types(options.words));
  MORPHEUS_ASSIGN_OR_RETURN(UnigramTraining trained, train_unigram_pieces(types, options.train));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(options.out, unigram_pieces_json(trained.pieces)));
  return std::move(trained.pieces);
}

}  // namespace morpheus::tokenizer
