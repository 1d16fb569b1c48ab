// SPDX-License-Identifier: MIT
#include "baselines/hybrid/hybrid_tokenizer.h"

#include <locale.h>  // newlocale (POSIX 2008)
#include <wctype.h>  // towlower_l, towupper_l, iswupper_l

#include <clocale>
#include <cstring>
#include <cwctype>
#include <utility>

#include "core/check.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::tokenizer::hybrid {
namespace {

// Raw token codes besides form numbers (>= 0).
constexpr int32_t kRawUpper = -1;
constexpr int32_t kRawUnknown = -2;
constexpr int32_t kRawByte0 = -16;  // byte b is kRawByte0 - b
int32_t raw_byte(unsigned char b) { return kRawByte0 - static_cast<int32_t>(b); }

bool is_vowel(char32_t cp) {
  switch (cp) {
    case U'a':
    case U'e':
    case U'ı':
    case U'i':
    case U'o':
    case U'ö':
    case U'u':
    case U'ü':
    case U'â':
      return true;
    default:
      return false;
  }
}

bool is_hard(char32_t cp) {
  switch (cp) {
    case U'f':
    case U's':
    case U't':
    case U'k':
    case U'ç':
    case U'ş':
    case U'h':
    case U'p':
      return true;
    default:
      return false;
  }
}

// Python str.isspace() for one code point (the set str.strip() removes).
bool py_is_space(char32_t cp) {
  if (cp <= 0x20) return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// Titlecase letters: they have a lower case but Python's isupper() is false for them.
bool is_titlecase(char32_t cp) {
  return cp == 0x1C5 || cp == 0x1C8 || cp == 0x1CB || cp == 0x1F2 ||
         (cp >= 0x1F88 && cp <= 0x1F8F) || (cp >= 0x1F98 && cp <= 0x1F9F) ||
         (cp >= 0x1FA8 && cp <= 0x1FAF) || cp == 0x1FBC || cp == 0x1FCC || cp == 0x1FFC;
}

// The C library's Unicode case tables (glibc's C.UTF-8 locale, Unicode 14 in glibc 2.36, the
// version of the Python 3.11 the reference ran on). Checked against Python on U+0021–U+2FFFF:
// towlower equals str.lower() wherever that maps one code point to one, and
// iswupper || towlower(c) != c, minus the titlecase letters, equals str.isupper(). Without the
// locale, core/unicode's smaller tables are used.
class CLibCase {
 public:
  static const CLibCase& get() {
    static const CLibCase instance;
    return instance;
  }
  bool is_upper(char32_t cp) const {
    if (locale_ == static_cast<locale_t>(nullptr)) {
      return unicode::is_upper(cp, /*turkish=*/false);
    }
    const auto wc = static_cast<wint_t>(cp);
    return iswupper_l(wc, locale_) != 0 || towlower_l(wc, locale_) != wc;
  }
  char32_t lower(char32_t cp) const {
    if (locale_ == static_cast<locale_t>(nullptr)) return unicode::to_lower(cp, false);
    return static_cast<char32_t>(towlower_l(static_cast<wint_t>(cp), locale_));
  }
  char32_t upper(char32_t cp) const {
    if (locale_ == static_cast<locale_t>(nullptr)) return unicode::to_upper(cp, false);
    return static_cast<char32_t>(towupper_l(static_cast<wint_t>(cp), locale_));
  }

 private:
  CLibCase() : locale_(newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr))) {}
  locale_t locale_;
};

// Python str.isupper() on one non-ASCII code point (the Unicode Uppercase property).
bool py_is_upper(char32_t cp) { return !is_titlecase(cp) && CLibCase::get().is_upper(cp); }

// The reference's lower-casing of one non-ASCII code point: İ→i, then Python str.lower().
char32_t py_lower(char32_t cp) {
  if (cp == 0x130) return U'i';
  return CLibCase::get().lower(cp);
}

// Lossless mode: an upper-case code point that lower-casing can restore.
bool restorable_upper(char32_t cp) {
  const char32_t lower = unicode::to_lower(cp, /*turkish=*/true);
  return lower != cp && unicode::to_upper(lower, /*turkish=*/true) == cp;
}

// Case decisions of both modes for U+0000–U+07FF (Latin, Greek, Cyrillic, ...), precomputed so
// that the encoder's inner loop makes no library calls for Turkish text.
class CaseCache {
 public:
  static constexpr char32_t kSize = 0x800;
  static const CaseCache& get() {
    static const CaseCache instance;
    return instance;
  }
  // Whether `cp` starts a segment, and its lower case, in the given mode.
  bool upper(bool lossless, char32_t cp) const {
    if (cp < kSize) return upper_[lossless ? 1 : 0][cp];
    return lossless ? restorable_upper(cp) : py_is_upper(cp);
  }
  char32_t lower(bool lossless, char32_t cp) const {
    if (cp < kSize) return lower_[lossless ? 1 : 0][cp];
    if (lossless) return restorable_upper(cp) ? unicode::to_lower(cp, /*turkish=*/true) : cp;
    return py_lower(cp);
  }

 private:
  CaseCache() {
    for (char32_t cp = 0; cp < kSize; ++cp) {
      upper_[0][cp] = cp >= 0x80 ? py_is_upper(cp) : (cp >= 'A' && cp <= 'Z');
      lower_[0][cp] = cp == 'I' ? char32_t{0x131} : (cp >= 0x80 ? py_lower(cp) : cp);
      if (cp >= 'A' && cp <= 'Z' && cp != 'I') lower_[0][cp] = cp + 32;
      upper_[1][cp] = restorable_upper(cp);
      lower_[1][cp] = upper_[1][cp] ? unicode::to_lower(cp, /*turkish=*/true) : cp;
    }
  }
  bool upper_[2][kSize];
  char32_t lower_[2][kSize];
};

// Python str.title() of the first code point of a piece (full titlecase mapping).
void append_titlecase(char32_t cp, std::string& out) {
  switch (cp) {
    case 0xDF:
      out += "Ss";
      return;
    case 0xFB00:
      out += "Ff";
      return;
    case 0xFB01:
      out += "Fi";
      return;
    case 0xFB02:
      out += "Fl";
      return;
    case 0xFB03:
      out += "Ffi";
      return;
    case 0xFB04:
      out += "Ffl";
      return;
    case 0xFB05:
    case 0xFB06:
      out += "St";
      return;
    case 0x149:
      out += "\u02BCN";
      return;
    case 0x1F0:
      out += "J\u030C";
      return;
    case 0x390:
      out += "\u0399\u0308\u0301";
      return;
    case 0x3B0:
      out += "\u03A5\u0308\u0301";
      return;
    case 0x1FD6:
      out += "\u0399\u0342";
      return;
    case 0x1FE6:
      out += "\u03A5\u0342";
      return;
    case 0x1C4:
    case 0x1C5:
    case 0x1C6:
      utf8::append(0x1C5, out);
      return;
    case 0x1C7:
    case 0x1C8:
    case 0x1C9:
      utf8::append(0x1C8, out);
      return;
    case 0x1CA:
    case 0x1CB:
    case 0x1CC:
      utf8::append(0x1CB, out);
      return;
    case 0x1F1:
    case 0x1F2:
    case 0x1F3:
      utf8::append(0x1F2, out);
      return;
    default:
      break;
  }
  // Georgian Mkhedruli letters are their own titlecase (their upper case is Mtavruli).
  if ((cp >= 0x10D0 && cp <= 0x10FA) || (cp >= 0x10FD && cp <= 0x10FF)) {
    utf8::append(cp, out);
    return;
  }
  utf8::append(CLibCase::get().upper(cp), out);
}

// Python str.capitalize(): titlecase of the first code point, lower case of the rest.
std::string py_capitalize(std::string_view s) {
  std::string out;
  size_t pos = 0;
  bool first = true;
  while (pos < s.size()) {
    const utf8::Decoded d = utf8::decode_one(s, pos);
    if (!d.valid) {
      out.push_back(s[pos]);
    } else if (first) {
      append_titlecase(d.code_point, out);
    } else {
      utf8::append(CLibCase::get().lower(d.code_point), out);
    }
    first = false;
    pos += d.length;
  }
  return out;
}

// `piece` with its first code point upper-cased by the Turkish rules (lossless decoding).
void append_upper_first(std::string_view piece, std::string& out) {
  const utf8::Decoded d = utf8::decode_one(piece, 0);
  utf8::append(unicode::to_upper(d.code_point, /*turkish=*/true), out);
  out.append(piece.substr(d.length));
}

// Python str.isalpha() for the code points that occur in the lexicons: core/unicode's letters plus
// the Latin ligatures ﬀ–ﬆ and the Arabic Supplement letters, which its tables leave out.
bool is_alpha(char32_t cp) {
  return unicode::is_letter(cp) || (cp >= 0xFB00 && cp <= 0xFB06) || (cp >= 0x750 && cp <= 0x77F);
}

size_t utf8_length_at(std::string_view s, size_t pos) {
  const auto c = static_cast<unsigned char>(s[pos]);
  if (c < 0x80) return 1;
  return utf8::decode_one(s, pos).length;
}

}  // namespace

PieceInfo piece_info(std::string_view piece) {
  PieceInfo info;
  if (piece.empty()) return info;
  info.whitespace = piece == " " || piece == "\n" || piece == "\t";
  bool alpha = true;
  char32_t first = 0;
  char32_t last = 0;
  char32_t last_vowel = 0;
  size_t pos = 0;
  while (pos < piece.size()) {
    const utf8::Decoded d = utf8::decode_one(piece, pos);
    const char32_t cp = d.valid ? d.code_point : utf8::kReplacementChar;
    if (!d.valid || !is_alpha(cp)) alpha = false;
    if (pos == 0) first = cp;
    last = cp;
    if (is_vowel(cp)) last_vowel = cp;
    pos += d.length;
  }
  info.alpha = alpha;
  info.starts_vowel = is_vowel(first);
  info.ends_vowel = is_vowel(last);
  info.hard = is_hard(last);
  info.front = piece == "saat" || piece == "kilovatsaat" || piece == "ziraat" || piece == "itaat" ||
               piece == "istikbal" || last_vowel == U'e' || last_vowel == U'i' ||
               last_vowel == U'ö' || last_vowel == U'ü';
  switch (last_vowel) {
    case U'a':
    case U'ı':
    case U'â':
      info.h4 = 0;
      break;
    case U'e':
    case U'i':
      info.h4 = 1;
      break;
    case U'o':
    case U'u':
      info.h4 = 2;
      break;
    default:
      info.h4 = 3;
  }
  return info;
}

struct HybridTokenizer::Scratch {
  struct Segment {
    size_t low_begin = 0;
    size_t low_end = 0;
    bool upper = false;
    size_t orig_begin = 0;  // bytes of the segment's first code point in the original text
    size_t orig_end = 0;
  };
  std::string low;                // lower-cased bytes of the current part
  std::vector<size_t> low_orig;   // original byte offset of each `low` byte (spans only)
  std::vector<Segment> segments;  // of the current part
  std::vector<int32_t> raw;       // the token stream
  std::vector<std::pair<size_t, size_t>> spans;  // original bytes of each piece (spans only)
};

HybridTokenizer::HybridTokenizer(std::shared_ptr<const HybridLexicon> lexicon, HybridMode mode)
    : lexicon_(std::move(lexicon)), mode_(mode) {
  MORPHEUS_CHECK(lexicon_ != nullptr, "HybridTokenizer: null lexicon");
  const auto& forms = lexicon_->forms();
  form_info_.reserve(forms.size());
  for (const Form& f : forms) {
    form_info_.push_back(piece_info(f.text));
    form_id_.push_back(f.id);
    form_index_.push_back(f.index);
    if (mode_ == HybridMode::kLossless) {
      MORPHEUS_CHECK(f.index < kNumFormIds, "lossless mode supports at most ", kNumFormIds,
                     " forms per id; id ", f.id, " has more");
    }
  }
  space_form_ = lexicon_->forms_of(kSpaceId).front();
}

StatusOr<HybridTokenizer> HybridTokenizer::load(const std::string& lexicon_dir, HybridMode mode) {
  MORPHEUS_ASSIGN_OR_RETURN(HybridLexicon lex, HybridLexicon::load(lexicon_dir));
  if (mode == HybridMode::kLossless) {
    for (const Form& f : lex.forms()) {
      if (f.index >= kNumFormIds) {
        return data_loss(lexicon_dir + ": id " + std::to_string(f.id) + " has more than " +
                             std::to_string(kNumFormIds) + " forms",
                         "lossless mode can select at most 16 forms per id");
      }
    }
  }
  return HybridTokenizer(std::make_shared<const HybridLexicon>(std::move(lex)), mode);
}

int32_t HybridTokenizer::vocab_size() const {
  return lexicon_->num_ids() + (mode_ == HybridMode::kLossless ? kNumByteIds + kNumFormIds : 0);
}

std::string HybridTokenizer::name() const {
  return mode_ == HybridMode::kLossless ? "hybrid-lossless" : "hybrid";
}

void HybridTokenizer::encode_part(std::string_view text, size_t begin, size_t end, Scratch& sc,
                                  bool want_spans) const {
  if (begin == end) return;
  const bool lossless = mode_ == HybridMode::kLossless;
  sc.low.clear();
  sc.segments.clear();
  if (want_spans) sc.low_orig.clear();
  const CaseCache& cases = CaseCache::get();
  bool blank = true;
  Scratch::Segment cur;
  size_t i = begin;
  while (i < end) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t low_start = sc.low.size();
    size_t len = 1;
    bool upper = false;
    if (c < 0x80) {
      upper = c >= 'A' && c <= 'Z';
      if (blank && !py_is_space(c)) blank = false;
      if (upper && c == 'I') {
        sc.low += "\xC4\xB1";  // ı
      } else {
        sc.low.push_back(static_cast<char>(upper ? c + 32 : c));
      }
    } else {
      char32_t cp = 0;
      bool valid = true;
      if (c >= 0xC2 && c <= 0xDF && i + 1 < text.size() &&
          (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80) {
        // Two-byte sequence (all of Turkish): decoded inline.
        cp = static_cast<char32_t>(((c & 0x1Fu) << 6) |
                                   (static_cast<unsigned char>(text[i + 1]) & 0x3Fu));
        len = 2;
      } else {
        const utf8::Decoded d = utf8::decode_one(text, i);
        cp = d.code_point;
        len = d.length;
        valid = d.valid;
      }
      if (!valid) {
        blank = false;
        sc.low.push_back(static_cast<char>(c));
      } else {
        if (blank && !py_is_space(cp)) blank = false;
        upper = cases.upper(lossless, cp);
        const char32_t lower = cases.lower(lossless, cp);
        if (lower == cp) {
          sc.low.append(text.data() + i, len);
        } else {
          utf8::append(lower, sc.low);
        }
      }
    }
    if (i == begin || upper) {
      if (i != begin) {
        cur.low_end = low_start;
        sc.segments.push_back(cur);
      }
      cur.low_begin = low_start;
      cur.upper = upper;
      cur.orig_begin = i;
      cur.orig_end = i + len;
    }
    if (want_spans) sc.low_orig.resize(sc.low.size(), i);
    i += len;
  }
  cur.low_end = sc.low.size();
  sc.segments.push_back(cur);
  if (blank && !lossless) return;  // the reference drops whitespace-only parts
  if (want_spans) sc.low_orig.push_back(end);

  const DoubleArray& trie = lexicon_->trie();
  const std::string_view low = sc.low;
  for (const Scratch::Segment& seg : sc.segments) {
    size_t pos = seg.low_begin;
    bool first = true;
    while (pos < seg.low_end) {
      int32_t best[3] = {-1, -1, -1};
      size_t best_end[3] = {0, 0, 0};
      int32_t state = DoubleArray::root();
      for (size_t p = pos; p < seg.low_end; ++p) {
        state = trie.step(state, static_cast<unsigned char>(low[p]));
        if (state < 0) break;
        const int32_t v = trie.value(state);
        if (v >= 0 && !(lossless && HybridLexicon::trie_is_marker(v))) {
          const int t = HybridLexicon::trie_table(v);
          best[t] = HybridLexicon::trie_form(v);
          best_end[t] = p + 1;
        }
      }
      int t = 0;
      while (t < 3 && best[t] < 0) ++t;
      const bool upper_first = first && seg.upper;
      first = false;
      if (t < 3) {
        if (upper_first) sc.raw.push_back(kRawUpper);
        sc.raw.push_back(best[t]);
        if (want_spans) sc.spans.emplace_back(sc.low_orig[pos], sc.low_orig[best_end[t]]);
        pos = best_end[t];
        continue;
      }
      const size_t len = utf8_length_at(low, pos);
      if (want_spans) sc.spans.emplace_back(sc.low_orig[pos], sc.low_orig[pos + len]);
      if (!lossless) {
        if (upper_first) sc.raw.push_back(kRawUpper);
        sc.raw.push_back(kRawUnknown);
      } else if (upper_first) {
        for (size_t b = seg.orig_begin; b < seg.orig_end; ++b) {
          sc.raw.push_back(raw_byte(static_cast<unsigned char>(text[b])));
        }
      } else {
        for (size_t b = pos; b < pos + len; ++b) {
          sc.raw.push_back(raw_byte(static_cast<unsigned char>(low[b])));
        }
      }
      pos += len;
    }
  }
}

void HybridTokenizer::encode_raw(std::string_view text, Scratch& sc, bool want_spans) const {
  sc.raw.clear();
  sc.spans.clear();
  size_t begin = 0;
  while (true) {
    const void* hit = std::memchr(text.data() + begin, ' ', text.size() - begin);
    const size_t end = hit == nullptr
                           ? text.size()
                           : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    encode_part(text, begin, end, sc, want_spans);
    if (end == text.size()) break;
    sc.raw.push_back(space_form_);
    if (want_spans) sc.spans.emplace_back(end, end + 1);
    begin = end + 1;
  }
}

StatusOr<int> HybridTokenizer::choose_form(int32_t x, const PieceInfo& prev, int32_t next) const {
  static const PieceInfo kEmpty;
  const bool lossless = mode_ == HybridMode::kLossless;
  const std::vector<int32_t>& forms = lexicon_->forms_of(x);
  const int n = static_cast<int>(forms.size());
  bool last = next < 0;
  // The first form of the next id, looked up only where a rule needs it.
  const PieceInfo* nx = &kEmpty;
  auto need_next = [&]() -> Status {
    if (lexicon_->has_id(next)) {
      nx = &form_info_[static_cast<size_t>(lexicon_->forms_of(next).front())];
    } else if (!lossless) {
      return invalid_argument("the next id " + std::to_string(next) +
                              " is not in the lexicon (the reference raises KeyError here)");
    }
    return ok_status();
  };
  // Lossless mode: at the very end lık/cık/mak follow harmony instead of taking form 0.
  if (lossless && last && (x == 20029 || x == 20030 || x == 20031)) last = false;
  const int front = prev.front ? 1 : 0;
  int idx = 0;
  if (x < kSuffixIdBase) {
    if (last) {
      idx = 0;
    } else if (x >= 100 && x <= 2079) {
      MORPHEUS_RETURN_IF_ERROR(need_next());
      idx = nx->starts_vowel ? 1 : 0;
    } else if (x >= 2080 && x <= 2314) {
      idx = next == kYorId ? 1 : 0;
    }
  } else if (x <= 20012) {
    idx = front;
  } else if (x <= 20022) {
    idx = prev.h4;
  } else if (x == 20023) {
    bool eow = last;
    if (!eow) {
      MORPHEUS_RETURN_IF_ERROR(need_next());
      eow = nx->whitespace;
    }
    idx = (prev.ends_vowel && eow) ? 2 + front : front;
  } else if (x == 20024 || x == 20025) {
    idx = prev.hard ? 2 + front : front;
  } else if (x <= 20028) {
    idx = prev.h4 + (prev.hard ? 4 : 0);
  } else if (x == 20029 || x == 20030 || x == 20031) {
    if (last) {
      idx = 0;
    } else {
      if (next >= 0) MORPHEUS_RETURN_IF_ERROR(need_next());
      const bool sv = nx->starts_vowel;
      if (x == 20029) {
        idx = prev.h4 + (sv ? 4 : 0);
      } else if (x == 20030) {
        idx = prev.h4 + (sv ? (prev.hard ? 12 : 8) : (prev.hard ? 4 : 0));
      } else {
        idx = front + (sv ? 2 : 0);
      }
    }
  } else if (x == 20032) {
    bool sv = false;
    if (!last) {
      MORPHEUS_RETURN_IF_ERROR(need_next());
      sv = nx->starts_vowel;
    }
    idx = (sv ? (prev.ends_vowel ? 6 : 2) : (prev.ends_vowel ? 4 : 0)) + front;
  }
  if (idx >= n) {
    return invalid_argument("id " + std::to_string(x) + " has " + std::to_string(n) +
                            " forms but the decoder rule selects form " + std::to_string(idx));
  }
  return idx;
}

void HybridTokenizer::finish_ids(const Scratch& sc, std::vector<int32_t>* ids) const {
  ids->clear();
  ids->reserve(sc.raw.size());
  const std::vector<int32_t>& raw = sc.raw;
  if (mode_ == HybridMode::kReference) {
    for (int32_t r : raw) {
      ids->push_back(r >= 0 ? form_id_[static_cast<size_t>(r)]
                            : (r == kRawUpper ? kUppercaseId : kUnknownId));
    }
    return;
  }
  PieceInfo prev;
  for (size_t j = 0; j < raw.size(); ++j) {
    const int32_t r = raw[j];
    if (r == kRawUpper) {
      ids->push_back(kUppercaseId);
      continue;
    }
    if (r < 0) {
      ids->push_back(byte_id(static_cast<uint8_t>(kRawByte0 - r)));
      continue;
    }
    const auto f = static_cast<size_t>(r);
    const int32_t x = form_id_[f];
    if (lexicon_->forms_of(x).size() > 1) {
      size_t k = j + 1;
      while (k < raw.size() && raw[k] == kRawUpper) ++k;
      int32_t next = -1;
      if (k < raw.size()) {
        next = raw[k] >= 0 ? form_id_[static_cast<size_t>(raw[k])]
                           : byte_id(static_cast<uint8_t>(kRawByte0 - raw[k]));
      }
      StatusOr<int> predicted = choose_form(x, prev, next);
      if (!predicted.ok() || *predicted != form_index_[f]) {
        ids->push_back(form_id(form_index_[f]));
      }
    }
    ids->push_back(x);
    if (form_info_[f].alpha) prev = form_info_[f];
  }
}

void HybridTokenizer::encode(std::string_view text, std::vector<int32_t>* ids) const {
  thread_local Scratch sc;
  encode_raw(text, sc, /*want_spans=*/false);
  finish_ids(sc, ids);
}

std::vector<int32_t> HybridTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  encode(text, &ids);
  return ids;
}

std::vector<std::string> HybridTokenizer::cut(std::string_view word) const {
  Scratch sc;
  encode_raw(word, sc, /*want_spans=*/true);
  std::vector<std::string> pieces;
  size_t covered = 0;
  for (const auto& [b, e] : sc.spans) {
    if (b > covered) pieces.emplace_back(word.substr(covered, b - covered));  // dropped text
    pieces.emplace_back(word.substr(b, e - b));
    covered = e;
  }
  if (covered < word.size()) pieces.emplace_back(word.substr(covered));
  return pieces;
}

StatusOr<std::string> HybridTokenizer::decode(const std::vector<int32_t>& ids) const {
  return mode_ == HybridMode::kLossless ? decode_lossless(ids) : decode_reference(ids);
}

StatusOr<std::string> HybridTokenizer::decode_reference(const std::vector<int32_t>& ids) const {
  std::string out;
  PieceInfo prev;
  const size_t n = ids.size();
  for (size_t i = 0; i < n; ++i) {
    const int32_t x = ids[i];
    const bool last = i + 1 == n;
    if (x == kUppercaseId && !last) {
      const int32_t next = ids[i + 1];
      if (!lexicon_->has_id(next)) {
        return invalid_argument("position " + std::to_string(i + 1) + ": id " +
                                std::to_string(next) + " after <uppercase> is not in the lexicon");
      }
      const std::string piece = py_capitalize(lexicon_->first_form(next));
      const PieceInfo info = piece_info(piece);
      if (info.alpha) prev = info;
      out += piece;
      ++i;
      continue;
    }
    if (x == kUnknownId) {
      out += "\xE2\x96\x81u\xE2\x96\x81";  // ▁u▁
      continue;
    }
    if (!lexicon_->has_id(x)) {
      out += "\xE2\x96\x81";  // ▁
      continue;
    }
    const std::vector<int32_t>& forms = lexicon_->forms_of(x);
    int idx = 0;
    if (forms.size() > 1) {
      StatusOr<int> chosen = choose_form(x, prev, last ? -1 : ids[i + 1]);
      if (!chosen.ok()) {
        Status s = chosen.status();
        return s.prepend("position " + std::to_string(i));
      }
      idx = *chosen;
    }
    const auto f = static_cast<size_t>(forms[static_cast<size_t>(idx)]);
    out += lexicon_->form(static_cast<int32_t>(f)).text;
    if (form_info_[f].alpha) prev = form_info_[f];
  }
  return out;
}

StatusOr<std::string> HybridTokenizer::decode_lossless(const std::vector<int32_t>& ids) const {
  const int32_t byte_base = byte_id(0);
  const int32_t form_base = form_id(0);
  const int32_t limit = vocab_size();
  std::string out;
  PieceInfo prev;
  bool pending_upper = false;
  int pending_form = -1;
  const size_t n = ids.size();
  auto where = [](size_t i) { return "position " + std::to_string(i) + ": "; };
  for (size_t i = 0; i < n; ++i) {
    const int32_t x = ids[i];
    if (x < 0 || x >= limit) {
      return invalid_argument(where(i) + "id " + std::to_string(x) + " is outside [0, " +
                              std::to_string(limit) + ")");
    }
    if (x == kUppercaseId) {
      pending_upper = true;
      continue;
    }
    if (x >= form_base) {
      pending_form = x - form_base;
      continue;
    }
    if (x >= byte_base) {
      if (pending_upper || pending_form >= 0) {
        return invalid_argument(where(i) + "a byte id follows <uppercase> or a form id");
      }
      out.push_back(static_cast<char>(static_cast<unsigned char>(x - byte_base)));
      continue;
    }
    if (!lexicon_->has_id(x)) {
      return invalid_argument(where(i) + "id " + std::to_string(x) + " has no form in the lexicon");
    }
    const std::vector<int32_t>& forms = lexicon_->forms_of(x);
    int idx = 0;
    if (pending_form >= 0) {
      if (pending_form >= static_cast<int>(forms.size())) {
        return invalid_argument(where(i) + "form id selects form " + std::to_string(pending_form) +
                                " but id " + std::to_string(x) + " has " +
                                std::to_string(forms.size()));
      }
      idx = pending_form;
    } else if (forms.size() > 1) {
      size_t k = i + 1;
      while (k < n && (ids[k] == kUppercaseId || ids[k] >= form_base)) ++k;
      StatusOr<int> chosen = choose_form(x, prev, k < n ? ids[k] : -1);
      if (!chosen.ok()) {
        Status s = chosen.status();
        return s.prepend(where(i));
      }
      idx = *chosen;
    }
    const auto f = static_cast<size_t>(forms[static_cast<size_t>(idx)]);
    const std::string& piece = x == kUnknownId ? std::string("\xE2\x96\x81u\xE2\x96\x81")
                                               : lexicon_->form(static_cast<int32_t>(f)).text;
    if (pending_upper) {
      append_upper_first(piece, out);
    } else {
      out += piece;
    }
    if (form_info_[f].alpha) prev = form_info_[f];
    pending_upper = false;
    pending_form = -1;
  }
  if (pending_upper || pending_form >= 0) {
    return invalid_argument("the ids end with <uppercase> or a form id that marks nothing");
  }
  return out;
}

}  // namespace morpheus::tokenizer::hybrid
