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
  initial_piece_.assign(pieces_.size(), 0);
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const std::string& p = pieces_[i];
    if (p.empty()) {
      return invalid_argument("piece " + std::to_string(i) + " is empty",
                              "every vocabulary piece needs at least one character");
    }
    if (!utf8::is_valid(p)) {
      return invalid_argument("piece " + std::to_string(i) + " is not valid UTF-8");
    }
    max_piece_cps_ = std::max(max_piece_cps_, utf8::length(p));
    const bool spaced = options_.word_initial && p.size() > 1 && p[0] == ' ';
    const char32_t first = utf8::decode_one(p, spaced ? 1 : 0).code_point;
    const bool word = unicode::is_letter(first) || unicode::is_mark(first);
    word_piece_.push_back(word ? 1 : 0);
    initial_piece_[i] = spaced && !unicode::is_space(first) ? 1 : 0;
    if (!build_map) continue;
    const auto [id, inserted] = piece_ids_.insert(p, kFirstPieceId + static_cast<int32_t>(i));
    if (!inserted) {
      return invalid_argument("piece " + std::to_string(i) + " \"" + p + "\" duplicates piece " +
                              std::to_string(*id - kFirstPieceId));
    }
  }
  initial_of_.assign(pieces_.size(), -1);
  for (size_t i = 0; i < pieces_.size(); ++i) {
    if (!initial_piece_[i]) continue;
    const int32_t plain = piece_id(std::string_view(pieces_[i]).substr(1));
    if (plain >= 0)
      initial_of_[static_cast<size_t>(plain - kFirstPieceId)] =
          kFirstPieceId + static_cast<int32_t>(i);
  }
  for (size_t c = 0; c < ascii_ids_.size(); ++c) {
    ascii_ids_[c] = piece_id(std::string(1, static_cast<char>(c)));
  }
  return ok_status();
}

int32_t PieceCodec::word_initial_id(int32_t id) const {
  if (id < kFirstPieceId || id >= vocab_size()) return -1;
  return initial_of_[static_cast<size_t>(id - kFirstPieceId)];
}

bool PieceCodec::is_word_initial(int32_t id) const {
  return id >= kFirstPieceId && id < vocab_size() &&
         initial_piece_[static_cast<size_t>(id - kFirstPieceId)] != 0;
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

// The segmenter's pieces of a folded letter run when they concatenate to it (each cut between
// code points), else the run as one piece; empty pieces dropped. A segmenter error is returned.
Status PieceCodec::segmenter_parts(const std::string& folded,
                                   std::vector<std::string>* parts) const {
  parts->clear();
  if (segmenter_) {
    MORPHEUS_ASSIGN_OR_RETURN(*parts, segmenter_->segment_word(folded));
  }
  size_t total = 0;
  for (const std::string& p : *parts) total += p.size();
  bool ok = total == folded.size();
  for (size_t pos = 0, i = 0; ok && i < parts->size(); pos += (*parts)[i++].size()) {
    // A piece must match the run and cut it between code points (never inside one).
    ok = folded.compare(pos, (*parts)[i].size(), (*parts)[i]) == 0 && utf8::is_valid((*parts)[i]);
  }
  if (!ok) parts->assign(1, folded);
  parts->erase(std::remove(parts->begin(), parts->end(), std::string()), parts->end());
  return ok_status();
}

// Units of a folded letter run: each segmenter piece is one vocabulary id, or else its backoff
// (part_units), or with merges the fewest ids of whole pieces (merge_units). A segmenter error is
// returned (and nothing is kept of the run).
Status PieceCodec::fold_units(const std::string& folded, const std::u32string& folded_cps,
                              std::vector<Unit>* units) const {
  units->clear();
  std::vector<std::string> parts;
  MORPHEUS_RETURN_IF_ERROR(segmenter_parts(folded, &parts));
  if (options_.merge_pieces && parts.size() > 1) {
    merge_units(parts, folded_cps, units);
    return ok_status();
  }
  size_t cp_index = 0;
  for (const std::string& p : parts) {
    const size_t n = utf8::length(p);
    part_units(p, folded_cps.substr(cp_index, n), units);
    cp_index += n;
  }
  return ok_status();
}

void PieceCodec::part_units(const std::string& part, const std::u32string& cps,
                            std::vector<Unit>* units) const {
  if (const int32_t id = piece_id(part); id >= 0) {
    units->push_back({id, static_cast<uint32_t>(cps.size())});
  } else if (options_.vocabulary_backoff) {
    backoff_units(cps, units);
  } else {
    std::string one;
    for (const char32_t cp : cps) {
      one.clear();
      utf8::append(cp, one);
      units->push_back({piece_id(one), 1});
    }
  }
}

void PieceCodec::merge_units(const std::vector<std::string>& parts,
                             const std::u32string& folded_cps, std::vector<Unit>* units) const {
  // cost[i]: fewest ids for parts[i..n); next[i]: the end of the first unit of that cover (the
  // longest among the optimal ones), id[i] its piece id, or -1: parts[i] alone through part_units.
  const size_t n = parts.size();
  std::vector<size_t> first_cp(n + 1, 0);
  for (size_t i = 0; i < n; ++i) first_cp[i + 1] = first_cp[i] + utf8::length(parts[i]);
  std::vector<std::vector<Unit>> alone(n);
  std::vector<size_t> cost(n + 1, 0);
  std::vector<size_t> next(n + 1, n);
  std::vector<int32_t> id(n + 1, -1);
  std::string key;
  for (size_t i = n; i-- > 0;) {
    part_units(parts[i], folded_cps.substr(first_cp[i], first_cp[i + 1] - first_cp[i]), &alone[i]);
    cost[i] = alone[i].size() + cost[i + 1];
    next[i] = i + 1;
    key = parts[i];
    for (size_t j = i + 1; j < n && first_cp[j + 1] - first_cp[i] <= max_piece_cps_; ++j) {
      key += parts[j];
      const int32_t merged = piece_id(key);
      if (merged >= 0 && 1 + cost[j + 1] <= cost[i]) {
        cost[i] = 1 + cost[j + 1];
        next[i] = j + 1;
        id[i] = merged;
      }
    }
  }
  for (size_t i = 0; i < n; i = next[i]) {
    if (id[i] < 0) {
      units->insert(units->end(), alone[i].begin(), alone[i].end());
    } else {
      units->push_back({id[i], static_cast<uint32_t>(first_cp[next[i]] - first_cp[i])});
    }
  }
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

Status PieceCodec::letter_units(const std::string& folded, const std::u32string& folded_cps,
                                bool whole, const std::vector<Unit>** units) const {
  thread_local std::vector<Unit> local_units;
  thread_local std::vector<Unit> cached_copy;
  if (whole) {
    whole_units(folded, folded_cps, &local_units);
    *units = &local_units;
  } else if (options_.cache_capacity > 0) {
    if (!cache_->find(folded, &cached_copy)) {
      MORPHEUS_RETURN_IF_ERROR(fold_units(folded, folded_cps, &cached_copy));
      cache_->add(folded, cached_copy, options_.cache_capacity);
    }
    *units = &cached_copy;
  } else {
    MORPHEUS_RETURN_IF_ERROR(fold_units(folded, folded_cps, &local_units));
    *units = &local_units;
  }
  return ok_status();
}

Status PieceCodec::encode_letters(std::string_view text, TextSpan run, bool whole, Lead lead,
                                  std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const {
  thread_local std::u32string orig_cps;
  thread_local std::u32string folded_cps;
  thread_local std::string folded;
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
  MORPHEUS_RETURN_IF_ERROR(letter_units(folded, folded_cps, whole, &units));

  const bool all_lower = folded.size() == original.size() &&
                         std::equal(folded.begin(), folded.end(), original.begin());
  const auto case_of = [&](size_t cp, size_t length) {
    return all_lower ? PieceCase::kLower
                     : piece_case_of(&orig_cps[cp], &folded_cps[cp], length, options_.turkish_case);
  };
  // The first unit's word-initial id, when the lead goes into it; else a real space is its own id.
  int32_t initial = -1;
  if (lead.kind != Lead::kNone && units->front().id >= kFirstPieceId &&
      case_of(0, units->front().length) != PieceCase::kMixed) {
    initial = initial_of_[static_cast<size_t>(units->front().id - kFirstPieceId)];
  }
  const bool folds_space = lead.kind == Lead::kSpace && initial >= 0;
  if (lead.kind == Lead::kSpace && !folds_space) {
    encode_other(text, lead.space, Lead{}, ids, offsets);
  }
  const size_t start = folds_space ? lead.space.begin : run.begin;  // where the first id begins
  const auto unit_id = [&](size_t k, const Unit& u) {
    return k == 0 && initial >= 0 ? initial : u.id;
  };
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
      out.add(kUpperWordId, start, start);
      size_t cp = 0;
      size_t byte = run.begin;
      for (size_t k = 0; k < units->size(); ++k) {
        const Unit& u = (*units)[k];
        const size_t unit_bytes = units_bytes(orig_cps, cp, u.length);
        out.add(unit_id(k, u), k == 0 ? start : byte, byte + unit_bytes);
        cp += u.length;
        byte += unit_bytes;
      }
      return ok_status();
    }
  }
  size_t cp = 0;            // code point index of the unit
  size_t byte = run.begin;  // byte offset of the unit in `text`
  for (size_t k = 0; k < units->size(); ++k) {
    const Unit& u = (*units)[k];
    const size_t unit_bytes = units_bytes(orig_cps, cp, u.length);
    const PieceCase piece_case = case_of(cp, u.length);
    const size_t begin = k == 0 ? start : byte;
    if (u.id < 0 || piece_case == PieceCase::kMixed) {
      out.bytes(text, byte, byte + unit_bytes);
    } else {
      if (piece_case == PieceCase::kCap) out.add(kCapId, begin, begin);
      if (piece_case == PieceCase::kUpper) out.add(kUpperId, begin, begin);
      out.add(unit_id(k, u), begin, byte + unit_bytes);
    }
    cp += u.length;
    byte += unit_bytes;
  }
  return ok_status();
}

void PieceCodec::encode_other(std::string_view text, TextSpan span, Lead lead,
                              std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const {
  if (lead.kind != Lead::kNone) {  // the whole span's word-initial piece, else the space apart
    thread_local std::string spaced;
    spaced.assign(1, ' ');
    spaced.append(text.substr(span.begin, span.end - span.begin));
    if (const int32_t id = piece_id(spaced); id >= 0) {
      Emitter{ids, offsets}.add(id, lead.kind == Lead::kSpace ? lead.space.begin : span.begin,
                                span.end);
      return;
    }
    if (lead.kind == Lead::kSpace) encode_other(text, lead.space, Lead{}, ids, offsets);
  }
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

bool PieceCodec::defers_space(std::string_view text, const std::vector<Span>& spans,
                              size_t k) const {
  if (!options_.word_initial || k + 1 >= spans.size()) return false;
  const Span& span = spans[k];
  const SpanKind next = spans[k + 1].kind;
  if (span.kind != SpanKind::kSpace || span.size() != 1 || text[span.begin] != ' ' ||
      (next != SpanKind::kLetter && next != SpanKind::kDigit && next != SpanKind::kOther)) {
    return false;
  }
  // With the implicit space, a space at the start of a line must stay its own id (decode drops a
  // word-initial piece's space there).
  return !options_.line_start_prefix || (span.begin > 0 && text[span.begin - 1] != '\n');
}

PieceCodec::Lead PieceCodec::lead_of(std::string_view text, const std::vector<Span>& spans,
                                     size_t k, bool deferred) const {
  Lead lead;
  if (deferred) {
    lead.kind = Lead::kSpace;
    lead.space = {spans[k - 1].begin, spans[k - 1].end};
  } else if (options_.word_initial && options_.line_start_prefix &&
             (spans[k].begin == 0 || text[spans[k].begin - 1] == '\n')) {
    lead.kind = Lead::kImplicit;
  }
  return lead;
}

Status PieceCodec::encode(std::string_view text, std::vector<int32_t>* ids,
                          std::vector<uint8_t>* word_starts, bool allow_invalid,
                          std::vector<TextSpan>* offsets) const {
  if (!allow_invalid) MORPHEUS_RETURN_IF_ERROR(utf8::validate(text));
  thread_local std::vector<Span> spans;
  spans.clear();
  pretokenize_into(text, spans);
  uint64_t letter_runs = 0;
  bool deferred = false;  // spans[k - 1] is a space held back for the run spans[k]
  for (size_t k = 0; k < spans.size(); ++k) {
    const Span& span = spans[k];
    if (defers_space(text, spans, k)) {
      deferred = true;
      continue;
    }
    const size_t before = ids->size();
    letter_runs += span.kind == SpanKind::kLetter ? 1 : 0;
    if (joins_suffix_chain(spans, k)) {  // the apostrophe and its suffix chain: one run
      MORPHEUS_RETURN_IF_ERROR(
          encode_letters(text, {span.begin, spans[++k].end}, true, Lead{}, ids, offsets));
    } else if (span.kind == SpanKind::kLetter) {
      MORPHEUS_RETURN_IF_ERROR(encode_letters(text, {span.begin, span.end}, keeps_whole(spans, k),
                                              lead_of(text, spans, k, deferred), ids, offsets));
    } else if (span.kind == SpanKind::kInvalid) {
      Emitter{ids, offsets}.bytes(text, span.begin, span.begin + 1);
    } else {
      const Lead lead = span.kind == SpanKind::kDigit || span.kind == SpanKind::kOther
                            ? lead_of(text, spans, k, deferred)
                            : Lead{};
      encode_other(text, {span.begin, span.end}, lead, ids, offsets);
    }
    if (word_starts != nullptr) {
      word_starts->resize(ids->size(), 0);
      if (ids->size() > before) (*word_starts)[before] = 1;
      // A held-back space that stayed its own id: the run starts after it.
      const int32_t space = ascii_ids_[' '] >= 0 ? ascii_ids_[' '] : int32_t{' '};
      if (deferred && ids->size() > before + 1 && (*ids)[before] == space) {
        (*word_starts)[before + 1] = 1;
      }
    }
    deferred = false;
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
  const size_t text_begin = text->size();  // a line starts here (line_start_prefix)
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
    std::string_view piece = pieces_[index];
    if (initial_piece_[index]) {  // its space, then the piece's case applies to the rest
      const bool line_start = text->size() == text_begin || text->back() == '\n';
      if (!(options_.line_start_prefix && line_start)) text->push_back(' ');
      piece.remove_prefix(1);
    }
    if (initial_piece_[index]) word_upper = false;  // a word-initial piece starts another run
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
  std::string folded;
  std::vector<std::string> parts;
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
    if (joined || keeps_whole(spans, k)) {  // the apostrophe convention: one piece
      out.emplace_back(piece);
      continue;
    }
    decode_valid(piece, &orig_cps);
    folded.clear();
    for (const char32_t cp : orig_cps) {
      utf8::append(unicode::to_lower(cp, options_.turkish_case), folded);
    }
    MORPHEUS_RETURN_IF_ERROR(segmenter_parts(folded, &parts));
    size_t cp = 0;
    for (const std::string& p : parts) {
      const size_t n = utf8::length(p);
      out.push_back(utf8::encode(orig_cps.substr(cp, n)));
      cp += n;
    }
  }
  return out;
}

}  // namespace morpheus::tokenizer
