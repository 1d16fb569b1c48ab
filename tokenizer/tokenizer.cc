// SPDX-License-Identifier: MIT
// The tokenizer (tokenizer.h): loading and checking the directory, its self-tests, the special
// tokens and user symbols (stage 0) around the piece codec (stages 1, 2 and 5), whose segmenter
// is the RunResolver (run_resolver.h: stages 3 and 4); the prefetch's scan of a block.
#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/file_util.h"
#include "core/flat_string_map.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/mapped_file.h"
#include "core/utf8.h"
#include "morph/root_lexicon.h"
#include "morph/root_snap.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_cache.h"

namespace morpheus::tokenizer {

using nlohmann::json;

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

namespace {

// The piece codec of the directory: pieces.bin mapped, or else pieces.json parsed (an older
// export), with the directory's case options; `runs` resolves its letter runs.
StatusOr<PieceCodec> load_codec(const std::string& dir, const json& config,
                                std::shared_ptr<const Segmenter> runs) {
  const PieceCodecOptions codec_options = config_codec_options(config);
  const bool has_image = lists_file(config, kPiecesImageFile);
  const std::string pieces_path = path_join(dir, has_image ? kPiecesImageFile : kPiecesFile);
  std::shared_ptr<const MappedFile> pieces_image;  // pieces.bin, or else pieces.json's pieces
  std::vector<std::string> pieces;
  if (has_image) {
    MORPHEUS_ASSIGN_OR_RETURN(pieces_image, map_tokenizer_file(dir, config, kPiecesImageFile));
    // The text it was built from must still be the exported one (every file is checked).
    MORPHEUS_RETURN_IF_ERROR(verify_tokenizer_file(dir, config, kPiecesFile));
  } else {
    MORPHEUS_ASSIGN_OR_RETURN(pieces, read_pieces_file(dir, config));
  }
  StatusOr<PieceCodec> codec =
      has_image ? PieceCodec::from_image(pieces_image->bytes(), pieces_image, runs, codec_options)
                : PieceCodec::create(std::move(pieces), runs, codec_options);
  if (!codec.ok()) {
    return data_loss(pieces_path + ": " + codec.status().message(), "re-run morpheus export");
  }
  return std::move(*codec);
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::load(const std::string& dir, bool self_test,
                                                     SegmenterSpec model) {
  const std::string config_path = tokenizer_config_path(dir);
  if (!file_exists(config_path)) {
    return not_found("no " + std::string(kTokenizerConfigFile) + " in " + dir,
                     "--model takes a directory written by morpheus export");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string config_bytes, read_file(config_path));
  MORPHEUS_ASSIGN_OR_RETURN(json config, parse_json(config_bytes, config_path));
  return create(dir, std::move(config), fnv1a64(config_bytes), self_test, std::move(model));
}

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::from_config(const std::string& dir,
                                                            nlohmann::json config, bool self_test,
                                                            SegmenterSpec model) {
  const uint64_t id = fnv1a64(config.dump());
  return create(dir, std::move(config), id, self_test, std::move(model));
}

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::create(const std::string& dir,
                                                       nlohmann::json json_config, uint64_t id,
                                                       bool self_test, SegmenterSpec model) {
  const std::string config_path = tokenizer_config_path(dir);
  std::unique_ptr<Tokenizer> tok(new Tokenizer());
  tok->dir_ = dir;
  tok->id_ = id;
  tok->config_ = std::make_shared<const json>(std::move(json_config));
  const json& config = *tok->config_;
  MORPHEUS_RETURN_IF_ERROR(check_tokenizer_config(dir, config));
  std::string image;
  MORPHEUS_RETURN_IF_ERROR(read_tokenizer_file(dir, config, kSegmentTableFile, &image));
  MORPHEUS_ASSIGN_OR_RETURN(
      SegmentTable table, SegmentTable::parse(std::move(image), path_join(dir, kSegmentTableFile)));
  tok->runs_ = std::make_shared<RunResolver>(dir, tok->config_, std::move(table), std::move(model));
  MORPHEUS_ASSIGN_OR_RETURN(PieceCodec codec, load_codec(dir, config, tok->runs_));
  tok->codec_ = std::make_unique<PieceCodec>(std::move(codec));
  MORPHEUS_RETURN_IF_ERROR(tok->load_symbols());
  const int64_t vocab_size = config.value("vocab_size", int64_t{-1});
  if (vocab_size != tok->vocab_size()) {
    return data_loss(config_path + " says vocab_size " + std::to_string(vocab_size) + " but " +
                         path_join(dir, kPiecesFile) + " and the special tokens give " +
                         std::to_string(tok->vocab_size()),
                     "the vocabulary does not belong to this tokenizer; re-run morpheus export");
  }
  if (self_test) MORPHEUS_RETURN_IF_ERROR(tok->self_test());
  return tok;
}

Status Tokenizer::self_test() const {
  const json& samples = config_->value("self_test", json::array());
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string text;
    std::vector<int32_t> want;
    try {
      text = samples[i].at("text").get<std::string>();
      want = samples[i].at("ids").get<std::vector<int32_t>>();
    } catch (const json::exception&) {
      return data_loss(
          tokenizer_config_path(dir_) + ": malformed self_test sample " + std::to_string(i),
          "re-run morpheus export");
    }
    std::vector<int32_t> got;
    const Status s = encode(text, &got, false);
    if (!s.ok() || got != want) {
      return data_loss(dir_ + ": self-test sample " + std::to_string(i) + " (\"" +
                           text.substr(0, 60) + "\") no longer encodes to the ids stored at export",
                       "the vocabulary (pieces.json) or the segment table (" +
                           std::string(kSegmentTableFile) +
                           ") were swapped or damaged; re-run morpheus export");
    }
    std::string back;
    if (!decode(want, &back).ok() || back != text) {
      return data_loss(dir_ + ": self-test sample " + std::to_string(i) + " does not decode back",
                       "re-run morpheus export");
    }
  }
  if (config_->value("format_version", 0) < 3) return ok_status();
  return special_self_test();
}

Status Tokenizer::special_self_test() const {
  const auto broken = [this](const std::string& what) {
    return data_loss(tokenizer_config_path(dir_) + ": special_self_test " + what,
                     "special_tokens or user_symbols were edited; re-run morpheus export");
  };
  const json& sample = config_->value("special_self_test", json());
  EncodeOptions options;
  std::string text;
  std::string decoded;
  std::vector<int32_t> want;
  try {
    text = sample.at("text").get<std::string>();
    decoded = sample.at("decoded").get<std::string>();
    want = sample.at("ids").get<std::vector<int32_t>>();
    options.add_bos = sample.at("add_bos").get<bool>();
    options.add_eos = sample.at("add_eos").get<bool>();
  } catch (const json::exception&) {
    return broken("is missing or malformed");
  }
  std::vector<int32_t> got(want);
  got.resize(std::min(want.size(), special_tokens_.size()));
  if (!encode(text, options, &got).ok() || got != want) return broken("encodes differently");
  std::string kept;
  std::string dropped;
  if (!decode(want, &kept, true).ok() || kept != decoded || !decode(want, &dropped).ok() ||
      dropped != text) {
    return broken("decodes differently");
  }
  return ok_status();
}

StatusOr<json> make_special_self_test(const Tokenizer& tok) {
  // The user symbols only: the special token strings would be letter runs the table may lack.
  std::string text;
  for (const std::string& s : tok.user_symbols()) text += (text.empty() ? "" : " ") + s;
  EncodeOptions options;
  options.add_bos = tok.bos_id() >= 0;
  options.add_eos = tok.eos_id() >= 0;
  std::vector<int32_t> ids;
  for (size_t i = 0; i < tok.special_tokens().size(); ++i) {
    ids.push_back(tok.piece_to_id(tok.special_tokens()[i]));
  }
  MORPHEUS_RETURN_IF_ERROR(tok.encode(text, options, &ids));
  std::string decoded;
  MORPHEUS_RETURN_IF_ERROR(tok.decode(ids, &decoded, true));
  return json{{"text", text},
              {"add_bos", options.add_bos},
              {"add_eos", options.add_eos},
              {"ids", ids},
              {"decoded", decoded}};
}

Status Tokenizer::load_symbols() {
  const std::string config_path = tokenizer_config_path(dir_);
  if (config_->value("format_version", 0) >= 3) {
    try {
      special_tokens_ = config_->at("special_tokens").get<std::vector<std::string>>();
      user_symbols_ = config_->at("user_symbols").get<std::vector<std::string>>();
    } catch (const json::exception&) {
      return data_loss(config_path + ": no special_tokens/user_symbols string arrays",
                       "re-run morpheus export");
    }
    const Status s = check_special_tokens(special_tokens_, user_symbols_);
    if (!s.ok()) return data_loss(config_path + ": " + s.message(), "re-run morpheus export");
    if (config_->value("first_special_id", -1) != codec_->vocab_size()) {
      return data_loss(config_path + ": first_special_id is not " +
                           std::to_string(codec_->vocab_size()) + " (after the pieces)",
                       "re-run morpheus export");
    }
  }
  symbols_ = special_tokens_;
  symbols_.insert(symbols_.end(), user_symbols_.begin(), user_symbols_.end());
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const int32_t id = codec_->vocab_size() + static_cast<int32_t>(i);
    symbol_ids_.insert(symbols_[i], id);
    if (i >= special_tokens_.size()) {
      longest_user_symbol_ = std::max(longest_user_symbol_, symbols_[i].size());
      symbol_first_bytes_.set(static_cast<unsigned char>(symbols_[i][0]));
      continue;
    }
    const std::string& s = symbols_[i];
    int32_t* role = s == "<pad>" || s == "[PAD]"     ? &pad_id_
                    : s == "<s>" || s == "[CLS]"     ? &bos_id_
                    : s == "</s>" || s == "[SEP]"    ? &eos_id_
                    : s == "<mask>" || s == "[MASK]" ? &mask_id_
                                                     : nullptr;
    if (role != nullptr && *role < 0) *role = id;
  }
  return ok_status();
}

namespace {

// The distinct folded letter runs of `texts` (valid UTF-8 only: encode reports the others), in
// order of first occurrence, without the runs the codec keeps whole (`turkish_apostrophe`: they
// never reach the segmenter).
std::vector<std::string> distinct_folded_runs(const std::vector<std::string>& texts,
                                              bool turkish_apostrophe) {
  std::vector<std::string> runs;
  thread_local FlatStringMap<uint8_t> seen;  // cleared per call, its capacity kept
  seen.clear();
  std::vector<Span> spans;
  std::string folded;
  for (const std::string& text : texts) {
    if (!utf8::is_valid(text)) continue;
    spans.clear();
    pretokenize_into(text, spans);
    for (size_t k = 0; k < spans.size(); ++k) {
      if (spans[k].kind != SpanKind::kLetter) continue;
      if (turkish_apostrophe && apostrophe_role(spans, k) != ApostropheRole::kNone) continue;
      fold_run_into(spans[k].text(text), &folded);
      if (seen.insert(folded, 1).second) runs.push_back(folded);
    }
  }
  return runs;
}

}  // namespace

Status Tokenizer::prefetch_begin(const std::vector<std::string>& texts) const {
  if (runs_->skip_scan()) return ok_status();
  // The block's runs without the resolver's lock, so encode can run on other threads meanwhile.
  return runs_->prefetch_begin(distinct_folded_runs(texts, codec_->options().turkish_apostrophe));
}

Status Tokenizer::prefetch_end() const { return runs_->prefetch_end(); }

Status Tokenizer::attach_cache(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<SegmentCache> cache, SegmentCache::open(path, id_));
  runs_->attach_cache(std::move(cache));
  return ok_status();
}

Tokenizer::RunStats Tokenizer::run_stats() const {
  const RunResolver::Counts c = runs_->counts();
  RunStats stats;
  stats.words = codec_->letter_runs();
  stats.table = c.table;
  stats.runs = c.table + c.lookups;
  stats.cache = c.cache;
  return stats;
}

StatusOr<Segmenter*> Tokenizer::model() const { return runs_->model(); }
bool Tokenizer::model_created() const { return runs_->model_created(); }
uint64_t Tokenizer::table_hits() const { return runs_->table_hits(); }
uint64_t Tokenizer::model_runs() const { return runs_->model_runs(); }

Status Tokenizer::prefetch(const std::vector<std::string>& texts) const {
  MORPHEUS_RETURN_IF_ERROR(prefetch_begin(texts));
  return prefetch_end();
}

Status Tokenizer::encode(std::string_view text, std::vector<int32_t>* ids,
                         bool allow_invalid) const {
  EncodeOptions options;
  options.allow_invalid = allow_invalid;
  return encode(text, options, ids);
}

namespace {

// Character spans of byte spans of `text`: a character is a code point, or one invalid byte.
void char_spans(std::string_view text, const TextSpan* bytes, size_t count,
                std::vector<TextSpan>* chars) {
  thread_local std::vector<size_t> char_of;  // per byte, the index of its character
  char_of.resize(text.size() + 1);
  size_t k = 0;
  for (size_t pos = 0; pos < text.size(); ++k) {
    const size_t length = utf8::decode_one(text, pos).length;
    for (size_t b = pos; b < pos + length; ++b) char_of[b] = k;
    pos += length;
  }
  char_of[text.size()] = k;
  for (size_t i = 0; i < count; ++i) {
    const TextSpan& b = bytes[i];
    const size_t begin = char_of[b.begin];
    chars->push_back({begin, b.end == b.begin ? begin : char_of[b.end - 1] + 1});
  }
}

}  // namespace

Status Tokenizer::encode_plain(std::string_view text, TextSpan part, bool allow_invalid,
                               std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const {
  const size_t first = offsets == nullptr ? 0 : offsets->size();
  MORPHEUS_RETURN_IF_ERROR(codec_->encode(text.substr(part.begin, part.end - part.begin), ids,
                                          nullptr, allow_invalid, offsets));
  if (offsets != nullptr && part.begin > 0) {
    for (size_t i = first; i < offsets->size(); ++i) {
      (*offsets)[i].begin += part.begin;
      (*offsets)[i].end += part.begin;
    }
  }
  return ok_status();
}

template <typename Plain, typename Symbol>
Status Tokenizer::split_user_symbols(std::string_view text, Plain plain, Symbol symbol) const {
  size_t start = 0;  // start of the text since the last user symbol
  for (size_t pos = 0; longest_user_symbol_ > 0 && pos < text.size();) {
    size_t length = 0;
    int32_t id = -1;  // the longest user symbol at pos
    if (symbol_first_bytes_.test(static_cast<unsigned char>(text[pos]))) {
      for (size_t n = std::min(longest_user_symbol_, text.size() - pos); n > 0 && id < 0; --n) {
        const int32_t* found = symbol_ids_.find(text.substr(pos, n));
        if (found != nullptr && !is_special(*found)) {
          id = *found;
          length = n;
        }
      }
    }
    if (id < 0) {
      ++pos;
      continue;
    }
    if (pos > start) MORPHEUS_RETURN_IF_ERROR(plain(TextSpan{start, pos}));
    MORPHEUS_RETURN_IF_ERROR(symbol(id, TextSpan{pos, pos + length}));
    pos += length;
    start = pos;
  }
  if (text.size() > start) MORPHEUS_RETURN_IF_ERROR(plain(TextSpan{start, text.size()}));
  return ok_status();
}

Status Tokenizer::encode(std::string_view text, const EncodeOptions& options,
                         std::vector<int32_t>* ids, Offsets* offsets) const {
  for (const auto& [wanted, id, name] : {std::make_tuple(options.add_bos, bos_id_, "<s>"),
                                         std::make_tuple(options.add_eos, eos_id_, "</s>")}) {
    if (wanted && id < 0) {
      return failed_precondition(dir_ + " has no " + name + " special token",
                                 "export with --special-tokens including it");
    }
  }
  if (!options.allow_invalid) MORPHEUS_RETURN_IF_ERROR(utf8::validate(text));
  std::vector<TextSpan>* bytes = offsets == nullptr ? nullptr : &offsets->bytes;
  const size_t first = bytes == nullptr ? 0 : bytes->size();
  const auto add = [ids, bytes](int32_t id, TextSpan span) {
    ids->push_back(id);
    if (bytes != nullptr) bytes->push_back(span);
  };
  if (options.add_bos) add(bos_id_, {0, 0});
  MORPHEUS_RETURN_IF_ERROR(split_user_symbols(
      text, [&](TextSpan part) { return encode_plain(text, part, true, ids, bytes); },
      [&](int32_t id, TextSpan span) {
        add(id, span);
        return ok_status();
      }));
  if (options.add_eos) add(eos_id_, {text.size(), text.size()});
  if (offsets != nullptr) {
    char_spans(text, bytes->data() + first, bytes->size() - first, &offsets->chars);
  }
  return ok_status();
}

Status Tokenizer::decode(const std::vector<int32_t>& ids, std::string* text,
                         bool keep_special) const {
  if (symbols_.empty()) return codec_->decode(ids, text);
  const int32_t codec_size = codec_->vocab_size();
  size_t start = 0;  // first id of the codec ids since the last symbol
  const auto flush = [&](size_t end) -> Status {
    if (end == start) return ok_status();
    if (ids[end - 1] >= PieceCodec::kNumBytes && ids[end - 1] < PieceCodec::kFirstPieceId) {
      return invalid_argument("case token at position " + std::to_string(end - 1) +
                              " is not followed by a word piece");
    }
    const Status s =
        codec_->decode(std::vector<int32_t>(&ids[start], &ids[start] + (end - start)), text);
    if (s.ok()) return s;
    return Status(s.code(), "ids from position " + std::to_string(start) + ": " + s.message(),
                  s.hint());
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (id < 0 || id >= vocab_size()) {
      return invalid_argument("id " + std::to_string(id) + " at position " + std::to_string(i) +
                                  " is outside [0, " + std::to_string(vocab_size()) + ")",
                              "decode ids produced by the same model");
    }
    if (id < codec_size) continue;
    MORPHEUS_RETURN_IF_ERROR(flush(i));
    if (keep_special || !is_special(id)) {
      text->append(symbols_[static_cast<size_t>(id - codec_size)]);
    }
    start = i + 1;
  }
  return flush(ids.size());
}

std::string Tokenizer::id_to_piece(int32_t id) const {
  if (id >= codec_->vocab_size() && id < vocab_size()) {
    return symbols_[static_cast<size_t>(id - codec_->vocab_size())];
  }
  return codec_->id_to_string(id);
}

int32_t Tokenizer::piece_to_id(std::string_view piece) const {
  const int32_t* id = symbol_ids_.find(piece);
  return id != nullptr ? *id : codec_->piece_id(piece);
}

StatusOr<std::vector<std::string>> Tokenizer::segment(std::string_view word) const {
  // With user symbols the codec sees parts of the word: check it whole, so an error gives the
  // byte offset in the word (without, the codec's own check does).
  if (longest_user_symbol_ > 0) MORPHEUS_RETURN_IF_ERROR(utf8::validate(word));
  std::vector<std::string> pieces;
  MORPHEUS_RETURN_IF_ERROR(split_user_symbols(
      word,
      [&](TextSpan part) -> Status {
        MORPHEUS_ASSIGN_OR_RETURN(
            std::vector<std::string> cut,
            codec_->segment_word(word.substr(part.begin, part.end - part.begin)));
        pieces.insert(pieces.end(), std::make_move_iterator(cut.begin()),
                      std::make_move_iterator(cut.end()));
        return ok_status();
      },
      [&](int32_t, TextSpan span) {
        pieces.emplace_back(word.substr(span.begin, span.end - span.begin));
        return ok_status();
      }));
  return pieces;
}

}  // namespace morpheus::tokenizer
