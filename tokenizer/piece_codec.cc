// SPDX-License-Identifier: MIT
// PieceCodec: pretokenize, fold case, segment, map pieces to ids; the reverse for decoding.
#include "tokenizer/piece_codec.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "core/check.h"
#include "core/flat_string_map.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {

// Units of the folded runs encoded so far: run -> a slice of `units`.
struct PieceCodec::Cache {
  struct Slice {
    uint32_t begin;
    uint32_t count;
  };
  std::shared_mutex mutex;  // shared for lookups, so encoding threads read it side by side
  FlatStringMap<Slice> index;
  std::vector<Unit> units;
  std::atomic<uint64_t> letter_runs{0};  // letter runs encoded or segmented (statistics)

  bool find(const std::string& run, std::vector<Unit>* out) {
    std::shared_lock<std::shared_mutex> lock(mutex);
    const Slice* slice = index.find(run);
    if (slice == nullptr) return false;
    out->assign(units.begin() + slice->begin, units.begin() + slice->begin + slice->count);
    return true;
  }
  void add(const std::string& run, const std::vector<Unit>& run_units, size_t capacity) {
    std::unique_lock<std::shared_mutex> lock(mutex);
    if (index.size() >= capacity || units.size() + run_units.size() > UINT32_MAX) {
      index.clear();
      units.clear();
    }
    const Slice slice{static_cast<uint32_t>(units.size()), static_cast<uint32_t>(run_units.size())};
    if (index.insert(run, slice).second)
      units.insert(units.end(), run_units.begin(), run_units.end());
  }
};

namespace {

enum class PieceCase : uint8_t { kLower, kCap, kUpper, kMixed };

// Decodes valid UTF-8 into code points (caller guarantees validity).
void decode_valid(std::string_view s, std::u32string* out) {
  out->clear();
  size_t pos = 0;
  while (pos < s.size()) {
    const utf8::Decoded d = utf8::decode_one(s, pos);
    out->push_back(d.code_point);
    pos += d.length;
  }
}

size_t encoded_length(char32_t cp) {
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp < 0x10000) return 3;
  return 4;
}

}  // namespace

PieceCodec::PieceCodec(std::vector<std::string> pieces, std::shared_ptr<const Segmenter> segmenter,
                       PieceCodecOptions options)
    : pieces_(std::move(pieces)),
      segmenter_(std::move(segmenter)),
      options_(options),
      cache_(std::make_unique<Cache>()) {}

PieceCodec::PieceCodec(PieceCodec&&) noexcept = default;
PieceCodec& PieceCodec::operator=(PieceCodec&&) noexcept = default;
PieceCodec::~PieceCodec() = default;

StatusOr<PieceCodec> PieceCodec::create(std::vector<std::string> pieces,
                                        std::shared_ptr<const Segmenter> segmenter,
                                        PieceCodecOptions options) {
  PieceCodec codec(std::move(pieces), std::move(segmenter), options);
  MORPHEUS_RETURN_IF_ERROR(codec.index_pieces(true));
  return codec;
}

StatusOr<PieceCodec> PieceCodec::from_image(std::string_view image,
                                            std::shared_ptr<const void> keep,
                                            std::shared_ptr<const Segmenter> segmenter,
                                            PieceCodecOptions options) {
  std::string error;
  FlatStringMap<int32_t> ids = FlatStringMap<int32_t>::view(image, &error);
  if (!error.empty()) return invalid_argument(error, "re-run morpheus export");
  std::vector<std::string> pieces(ids.size());
  std::vector<uint8_t> seen(ids.size(), 0);
  bool ok = true;
  ids.for_each([&](std::string_view piece, int32_t id) {
    const int64_t i = static_cast<int64_t>(id) - kFirstPieceId;
    if (i < 0 || i >= static_cast<int64_t>(pieces.size()) || seen[static_cast<size_t>(i)]) {
      ok = false;
      return;
    }
    seen[static_cast<size_t>(i)] = 1;
    pieces[static_cast<size_t>(i)].assign(piece);
  });
  if (!ok) return invalid_argument("the vocabulary image does not number its pieces 0..n-1");
  PieceCodec codec(std::move(pieces), std::move(segmenter), options);
  codec.piece_ids_ = std::move(ids);
  codec.keep_ = std::move(keep);
  MORPHEUS_RETURN_IF_ERROR(codec.index_pieces(false));
  return codec;
}

Status PieceCodec::index_pieces(bool build_map) {
  if (build_map) piece_ids_.reserve(pieces_.size());
  word_piece_.reserve(pieces_.size());
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const std::string& p = pieces_[i];
    if (p.empty()) {
      return invalid_argument("piece " + std::to_string(i) + " is empty",
                              "every vocabulary piece needs at least one character");
    }
    if (!utf8::is_valid(p)) {
      return invalid_argument("piece " + std::to_string(i) + " is not valid UTF-8");
    }
    const char32_t first = utf8::decode_one(p, 0).code_point;
    max_piece_cps_ = std::max(max_piece_cps_, utf8::length(p));
    word_piece_.push_back(unicode::is_letter(first) || unicode::is_mark(first) ? 1 : 0);
    if (!build_map) continue;
    const auto [id, inserted] = piece_ids_.insert(p, kFirstPieceId + static_cast<int32_t>(i));
    if (!inserted) {
      return invalid_argument("piece " + std::to_string(i) + " \"" + p + "\" duplicates piece " +
                              std::to_string(*id - kFirstPieceId));
    }
  }
  for (size_t c = 0; c < ascii_ids_.size(); ++c) {
    ascii_ids_[c] = piece_id(std::string(1, static_cast<char>(c)));
  }
  return ok_status();
}

int32_t PieceCodec::piece_id(std::string_view piece) const {
  const int32_t* id = piece_ids_.find(piece);
  return id == nullptr ? -1 : *id;
}

std::string PieceCodec::id_to_string(int32_t id) const {
  MORPHEUS_CHECK(id >= 0 && id < vocab_size(), "id out of range: ", id);
  if (id < kNumBytes) {
    static const char* const kHex = "0123456789ABCDEF";
    std::string s = "<0x";
    s += kHex[(id >> 4) & 15];
    s += kHex[id & 15];
    s += '>';
    return s;
  }
  if (id == kCapId) return "<cap>";
  if (id == kUpperId) return "<upper>";
  if (id == kUpperWordId) return "<upper_word>";
  return pieces_[static_cast<size_t>(id - kFirstPieceId)];
}

// Units of a folded letter run: segmenter pieces when they concatenate to the run; each piece is
// one vocabulary id, or else one unit per code point (vocabulary id or -1 = bytes). A segmenter
// error is returned (and nothing is kept of the run).
Status PieceCodec::fold_units(const std::string& folded, const std::u32string& folded_cps,
                              std::vector<Unit>* units) const {
  units->clear();
  std::vector<std::string> parts;
  if (segmenter_) {
    MORPHEUS_ASSIGN_OR_RETURN(parts, segmenter_->segment_word(folded));
  }
  size_t total = 0;
  for (const std::string& p : parts) total += p.size();
  bool ok = total == folded.size();
  if (ok) {
    size_t pos = 0;
    for (const std::string& p : parts) {
      // A piece must match the run and cut it between code points (never inside one).
      if (folded.compare(pos, p.size(), p) != 0 || !utf8::is_valid(p)) {
        ok = false;
        break;
      }
      pos += p.size();
    }
  }
  if (!ok) parts.assign(1, folded);
  size_t cp_index = 0;
  std::string one;
  for (const std::string& p : parts) {
    if (p.empty()) continue;
    const size_t n = utf8::length(p);
    const int32_t id = piece_id(p);
    if (id >= 0) {
      units->push_back({id, static_cast<uint32_t>(n)});
    } else if (options_.vocabulary_backoff) {
      backoff_units(folded_cps.substr(cp_index, n), units);
    } else {
      for (size_t k = 0; k < n; ++k) {
        one.clear();
        utf8::append(folded_cps[cp_index + k], one);
        units->push_back({piece_id(one), 1});
      }
    }
    cp_index += n;
  }
  return ok_status();
}

void PieceCodec::backoff_units(const std::u32string& cps, std::vector<Unit>* units) const {
  // cost[i]: fewest ids for cps[i..n); next[i]: end of the first unit of that cover (the longest
  // among the optimal ones); id[i]: its piece id or -1 (one code point as bytes).
  const size_t n = cps.size();
  std::vector<size_t> cost(n + 1, 0);
  std::vector<size_t> next(n + 1, n);
  std::vector<int32_t> id(n + 1, -1);
  std::string key;
  for (size_t i = n; i-- > 0;) {
    cost[i] = encoded_length(cps[i]) + cost[i + 1];  // bytes of one code point
    next[i] = i + 1;
    id[i] = -1;
    const size_t longest = std::min(n, i + max_piece_cps_);
    key.clear();
    for (size_t j = i; j < longest; ++j) utf8::append(cps[j], key);
    // Longest first: a shorter candidate replaces it only when strictly cheaper.
    size_t best = std::numeric_limits<size_t>::max();
    for (size_t j = longest; j > i; --j) {
      const int32_t piece = piece_id(key);
      if (piece >= 0 && 1 + cost[j] < best) {
        best = 1 + cost[j];
        next[i] = j;
        id[i] = piece;
      }
      key.resize(key.size() - encoded_length(cps[j - 1]));
    }
    if (best <= cost[i]) {
      cost[i] = best;
    } else {
      next[i] = i + 1;
      id[i] = -1;
    }
  }
  for (size_t i = 0; i < n; i = next[i]) {
    units->push_back({id[i], static_cast<uint32_t>(next[i] - i)});
  }
}

void PieceCodec::whole_units(const std::string& folded, const std::u32string& folded_cps,
                             std::vector<Unit>* units) const {
  units->clear();
  const int32_t id = piece_id(folded);
  if (id >= 0) {
    units->push_back({id, static_cast<uint32_t>(folded_cps.size())});
  } else {
    backoff_units(folded_cps, units);
  }
}

bool PieceCodec::keeps_whole(const std::vector<Span>& spans, size_t k) const {
  return options_.turkish_apostrophe && apostrophe_role(spans, k) != ApostropheRole::kNone;
}

bool PieceCodec::joins_suffix_chain(const std::vector<Span>& spans, size_t k) const {
  return options_.turkish_apostrophe && spans[k].kind == SpanKind::kApostrophe &&
         apostrophe_role(spans, k + 1) == ApostropheRole::kSuffixChain;
}

namespace {

// Appends ids and, when `offsets` is set, their byte spans.
struct Emitter {
  std::vector<int32_t>* ids;
  std::vector<TextSpan>* offsets;

  void add(int32_t id, size_t begin, size_t end) const {
    ids->push_back(id);
    if (offsets != nullptr) offsets->push_back({begin, end});
  }
  // Byte tokens of text[begin, end), each covering its byte.
  void bytes(std::string_view text, size_t begin, size_t end) const {
    for (size_t b = begin; b < end; ++b) {
      add(static_cast<int32_t>(static_cast<unsigned char>(text[b])), b, b + 1);
    }
  }
};

// Bytes of the code points cps[first, first + count).
size_t units_bytes(const std::u32string& cps, size_t first, size_t count) {
  size_t bytes = 0;
  for (size_t k = 0; k < count; ++k) bytes += encoded_length(cps[first + k]);
  return bytes;
}

// The case of the original code points `orig` against their folded forms `folded` (same length).
PieceCase piece_case_of(const char32_t* orig, const char32_t* folded, size_t length, bool turkish) {
  bool lower = true;
  bool cap = true;
  bool upper = true;
  for (size_t k = 0; k < length; ++k) {
    const char32_t o = orig[k];
    const char32_t f = folded[k];
    const char32_t up = unicode::to_upper(f, turkish);
    if (o != f) lower = false;
    if (o != up) upper = false;
    if (k == 0 ? o != up : o != f) cap = false;
  }
  if (lower) return PieceCase::kLower;
  if (cap) return PieceCase::kCap;
  if (upper) return PieceCase::kUpper;
  return PieceCase::kMixed;
}

}  // namespace

Status PieceCodec::encode_letters(std::string_view text, TextSpan run, bool whole,
                                  std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const {
  thread_local std::u32string orig_cps;
  thread_local std::u32string folded_cps;
  thread_local std::string folded;
  thread_local std::vector<Unit> local_units;
  const std::string_view original = text.substr(run.begin, run.end - run.begin);
  const Emitter out{ids, offsets};
  decode_valid(original, &orig_cps);
  folded_cps.resize(orig_cps.size());
  folded.clear();
  for (size_t i = 0; i < orig_cps.size(); ++i) {
    folded_cps[i] = unicode::to_lower(orig_cps[i], options_.turkish_case);
    utf8::append(folded_cps[i], folded);
  }
  const std::vector<Unit>* units = nullptr;
  thread_local std::vector<Unit> cached_copy;
  if (whole) {
    whole_units(folded, folded_cps, &local_units);
    units = &local_units;
  } else if (options_.cache_capacity > 0) {
    if (!cache_->find(folded, &cached_copy)) {
      MORPHEUS_RETURN_IF_ERROR(fold_units(folded, folded_cps, &cached_copy));
      cache_->add(folded, cached_copy, options_.cache_capacity);
    }
    units = &cached_copy;
  } else {
    MORPHEUS_RETURN_IF_ERROR(fold_units(folded, folded_cps, &local_units));
    units = &local_units;
  }

  const bool all_lower = folded.size() == original.size() &&
                         std::equal(folded.begin(), folded.end(), original.begin());
  if (!all_lower && units->size() >= 2) {
    bool word_upper = true;
    for (const Unit& u : *units) {
      word_upper = word_upper && u.id >= kFirstPieceId &&
                   word_piece_[static_cast<size_t>(u.id - kFirstPieceId)];
    }
    for (size_t k = 0; word_upper && k < orig_cps.size(); ++k) {
      word_upper = orig_cps[k] == unicode::to_upper(folded_cps[k], options_.turkish_case);
    }
    if (word_upper) {
      out.add(kUpperWordId, run.begin, run.begin);
      size_t cp = 0;
      size_t byte = run.begin;
      for (const Unit& u : *units) {
        const size_t unit_bytes = units_bytes(orig_cps, cp, u.length);
        out.add(u.id, byte, byte + unit_bytes);
        cp += u.length;
        byte += unit_bytes;
      }
      return ok_status();
    }
  }
  size_t cp = 0;            // code point index of the unit
  size_t byte = run.begin;  // byte offset of the unit in `text`
  for (const Unit& u : *units) {
    const size_t unit_bytes = units_bytes(orig_cps, cp, u.length);
    const PieceCase piece_case =
        all_lower ? PieceCase::kLower
                  : piece_case_of(&orig_cps[cp], &folded_cps[cp], u.length, options_.turkish_case);
    if (u.id < 0 || piece_case == PieceCase::kMixed) {
      out.bytes(text, byte, byte + unit_bytes);
    } else {
      if (piece_case == PieceCase::kCap) out.add(kCapId, byte, byte);
      if (piece_case == PieceCase::kUpper) out.add(kUpperId, byte, byte);
      out.add(u.id, byte, byte + unit_bytes);
    }
    cp += u.length;
    byte += unit_bytes;
  }
  return ok_status();
}

void PieceCodec::encode_other(std::string_view text, TextSpan span, std::vector<int32_t>* ids,
                              std::vector<TextSpan>* offsets) const {
  const Emitter out{ids, offsets};
  const std::string_view piece = text.substr(span.begin, span.end - span.begin);
  if (piece.size() == 1 && static_cast<unsigned char>(piece[0]) < ascii_ids_.size()) {
    const int32_t id = ascii_ids_[static_cast<unsigned char>(piece[0])];  // " ", ",", "."
    out.add(id >= 0 ? id : static_cast<int32_t>(piece[0]), span.begin, span.end);
    return;
  }
  if (const int32_t id = piece_id(piece); id >= 0) {
    out.add(id, span.begin, span.end);
    return;
  }
  if (options_.vocabulary_backoff) {  // the fewest vocabulary pieces: "467.22" -> 467 . 22
    thread_local std::u32string cps;
    thread_local std::vector<Unit> units;
    decode_valid(piece, &cps);
    units.clear();
    backoff_units(cps, &units);
    size_t cp = 0;
    size_t byte = span.begin;
    for (const Unit& u : units) {
      const size_t unit_bytes = units_bytes(cps, cp, u.length);
      if (u.id >= 0) {
        out.add(u.id, byte, byte + unit_bytes);
      } else {
        out.bytes(text, byte, byte + unit_bytes);
      }
      cp += u.length;
      byte += unit_bytes;
    }
    return;
  }
  size_t pos = span.begin;
  while (pos < span.end) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (const int32_t id = piece_id(text.substr(pos, d.length)); id >= 0) {
      out.add(id, pos, pos + d.length);
    } else {
      out.bytes(text, pos, pos + d.length);
    }
    pos += d.length;
  }
}

Status PieceCodec::encode(std::string_view text, std::vector<int32_t>* ids,
                          std::vector<uint8_t>* word_starts, bool allow_invalid,
                          std::vector<TextSpan>* offsets) const {
  if (!allow_invalid) MORPHEUS_RETURN_IF_ERROR(utf8::validate(text));
  thread_local std::vector<Span> spans;
  spans.clear();
  pretokenize_into(text, spans);
  uint64_t letter_runs = 0;
  for (size_t k = 0; k < spans.size(); ++k) {
    const Span& span = spans[k];
    const size_t before = ids->size();
    letter_runs += span.kind == SpanKind::kLetter ? 1 : 0;
    if (joins_suffix_chain(spans, k)) {  // the apostrophe and its suffix chain: one run
      MORPHEUS_RETURN_IF_ERROR(
          encode_letters(text, {span.begin, spans[++k].end}, true, ids, offsets));
    } else if (span.kind == SpanKind::kLetter) {
      MORPHEUS_RETURN_IF_ERROR(
          encode_letters(text, {span.begin, span.end}, keeps_whole(spans, k), ids, offsets));
    } else if (span.kind == SpanKind::kInvalid) {
      Emitter{ids, offsets}.bytes(text, span.begin, span.begin + 1);
    } else {
      encode_other(text, {span.begin, span.end}, ids, offsets);
    }
    if (word_starts != nullptr) {
      word_starts->resize(ids->size(), 0);
      if (ids->size() > before) (*word_starts)[before] = 1;
    }
  }
  cache_->letter_runs.fetch_add(letter_runs, std::memory_order_relaxed);
  return ok_status();
}

uint64_t PieceCodec::letter_runs() const { return cache_->letter_runs.load(); }

StatusOr<std::vector<int32_t>> PieceCodec::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  MORPHEUS_RETURN_IF_ERROR(encode(text, &ids));
  return ids;
}

Status PieceCodec::decode(const std::vector<int32_t>& ids, std::string* text) const {
  const int32_t size = vocab_size();
  int32_t pending = -1;     // a case token waiting for its first piece
  bool word_upper = false;  // inside the scope of <upper_word>
  std::u32string cps;
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (id < 0 || id >= size) {
      return invalid_argument("id " + std::to_string(id) + " at position " + std::to_string(i) +
                                  " is outside [0, " + std::to_string(size) + ")",
                              "decode ids produced by the same model");
    }
    if (pending >= 0 &&
        (id < kFirstPieceId ||
         (pending == kUpperWordId && !word_piece_[static_cast<size_t>(id - kFirstPieceId)]))) {
      return invalid_argument("case token at position " + std::to_string(i - 1) +
                              " is not followed by a word piece");
    }
    if (id < kNumBytes) {
      text->push_back(static_cast<char>(static_cast<unsigned char>(id)));
      word_upper = false;
      continue;
    }
    if (id < kFirstPieceId) {
      pending = id;
      word_upper = false;
      continue;
    }
    const size_t index = static_cast<size_t>(id - kFirstPieceId);
    const std::string& piece = pieces_[index];
    if (pending == kUpperWordId) word_upper = true;
    if (word_upper && !word_piece_[index]) word_upper = false;
    const bool all = pending == kUpperId || word_upper;
    const bool first = pending == kCapId;
    pending = -1;
    if (!all && !first) {
      text->append(piece);
      continue;
    }
    decode_valid(piece, &cps);
    for (size_t k = 0; k < cps.size(); ++k) {
      if (all || k == 0) cps[k] = unicode::to_upper(cps[k], options_.turkish_case);
      utf8::append(cps[k], *text);
    }
  }
  if (pending >= 0) {
    return invalid_argument("case token at the end of the ids is not followed by a piece");
  }
  return ok_status();
}

StatusOr<std::string> PieceCodec::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  MORPHEUS_RETURN_IF_ERROR(decode(ids, &text));
  return text;
}

StatusOr<std::vector<std::string>> PieceCodec::segment_word(std::string_view word) const {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<Span> spans, pretokenize(word));
  std::vector<std::string> out;
  std::u32string orig_cps;
  std::u32string folded_cps;
  std::string folded;
  std::vector<Unit> units;
  for (size_t k = 0; k < spans.size(); ++k) {
    const Span& span = spans[k];
    std::string_view piece = span.text(word);
    const bool joined = joins_suffix_chain(spans, k);
    if (joined) piece = word.substr(span.begin, spans[++k].end - span.begin);
    if (span.kind != SpanKind::kLetter && !joined) {
      out.emplace_back(piece);
      continue;
    }
    cache_->letter_runs.fetch_add(1, std::memory_order_relaxed);
    decode_valid(piece, &orig_cps);
    folded_cps.resize(orig_cps.size());
    folded.clear();
    for (size_t i = 0; i < orig_cps.size(); ++i) {
      folded_cps[i] = unicode::to_lower(orig_cps[i], options_.turkish_case);
      utf8::append(folded_cps[i], folded);
    }
    if (joined || keeps_whole(spans, k)) {
      whole_units(folded, folded_cps, &units);
    } else {
      MORPHEUS_RETURN_IF_ERROR(fold_units(folded, folded_cps, &units));
    }
    size_t cp = 0;
    for (const Unit& u : units) {
      out.push_back(utf8::encode(orig_cps.substr(cp, u.length)));
      cp += u.length;
    }
  }
  return out;
}

}  // namespace morpheus::tokenizer
