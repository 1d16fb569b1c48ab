// SPDX-License-Identifier: MIT
// The lexicon files, the longest root, and the root snap's analysis with its sound rules.
#include "morph/root_lexicon.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/file_util.h"
#include "core/install_dirs.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::morph {
namespace {

// The RootFlag bit of one dictionary flag field, or 0.
uint8_t flag_bit(std::string_view field) {
  if (field == "CL_FIIL") return kRootIsVerb;
  if (field == "IS_SD" || field == "F_SD" || field == "IS_B_SD" || field == "IS_SDD") {
    return kRootSoftens;
  }
  return field == "IS_UU" ? kRootIgnoresHarmony : 0;
}

// Calls fn(lower-cased first field, flag bits of the other fields) for every non-empty line of
// `text` (the contents of `name`, for errors).
template <typename Fn>
Status read_entries(std::string_view text, const std::string& name, Fn fn) {
  std::u32string word;
  constexpr const char* kBlank = " \t\r";
  size_t line_number = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t newline = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, newline - at);
    at = newline + 1;
    ++line_number;
    if (const size_t bad = utf8::find_invalid(line); bad != std::string_view::npos) {
      return invalid_argument(name + ": line " + std::to_string(line_number) +
                                  ": invalid UTF-8 at byte " + std::to_string(bad) + " (" +
                                  utf8::describe_bytes(line, bad) + ")",
                              "convert the file to UTF-8 (e.g. iconv -t UTF-8)");
    }
    size_t begin = line.find_first_not_of(kBlank);
    if (begin == std::string_view::npos) continue;
    size_t end = std::min(line.find_first_of(kBlank, begin), line.size());
    word.clear();
    for (size_t pos = begin; pos < end;) {
      const auto byte = static_cast<unsigned char>(line[pos]);
      if (byte < 0x80 && (byte < 'A' || byte > 'Z')) {  // ASCII that lower-casing keeps
        word.push_back(byte);
        ++pos;
        continue;
      }
      const utf8::Decoded d = utf8::decode_one(line, pos);
      word.push_back(unicode::to_lower(d.code_point));
      pos += d.length;
    }
    uint8_t flags = 0;
    while ((begin = line.find_first_not_of(kBlank, end)) != std::string_view::npos) {
      end = std::min(line.find_first_of(kBlank, begin), line.size());
      flags |= flag_bit(line.substr(begin, end - begin));
    }
    fn(word, flags);
  }
  return ok_status();
}

bool is_vowel(char32_t c) {
  return std::u32string_view(U"aeıioöuü").find(c) != std::u32string_view::npos;
}
bool is_back(char32_t c) {
  return std::u32string_view(U"aıou").find(c) != std::u32string_view::npos;
}
bool is_round(char32_t c) {
  return std::u32string_view(U"oöuü").find(c) != std::u32string_view::npos;
}
bool is_high(char32_t c) {
  return std::u32string_view(U"ıiuü").find(c) != std::u32string_view::npos;
}
bool is_voiceless(char32_t c) {
  return std::u32string_view(U"çfhkpsşt").find(c) != std::u32string_view::npos;
}

// The last vowel of `s`, or 0.
char32_t last_vowel(const std::u32string& s) {
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (is_vowel(*it)) return *it;
  }
  return 0;
}

// The first vowel of `s`, or 0.
char32_t first_vowel(std::u32string_view s) {
  for (const char32_t c : s) {
    if (is_vowel(c)) return c;
  }
  return 0;
}

// Vowel harmony of a suffix's first vowel after a stem's last vowel: backness, and rounding
// when the suffix vowel is high. True when either has no vowel.
bool harmonizes(const std::u32string& stem, std::u32string_view suffix) {
  const char32_t a = last_vowel(stem);
  const char32_t b = first_vowel(suffix);
  if (a == 0 || b == 0) return true;
  if (is_back(a) != is_back(b)) return false;
  return !is_high(b) || is_round(a) == is_round(b);
}

// Suffixes whose vowels do not harmonize (a chain starting with one skips the harmony check).
bool starts_invariant(const std::u32string& chain) {
  for (const std::u32string_view s :
       {U"ki", U"ken", U"yor", U"leyin", U"daş", U"taş", U"gil", U"imtırak", U"mtırak"}) {
    if (chain.compare(0, s.size(), s) == 0) return true;
  }
  return false;
}

// Turkish sound rules at a root + suffix-chain junction (RootLexicon::snap_root, rules 1-3).
bool junction_ok(const std::u32string& root, const std::u32string& chain, uint8_t flags,
                 bool softened) {
  const char32_t last = root.back();
  const char32_t first = chain.front();
  if (softened && ((flags & kRootSoftens) == 0 || !is_vowel(first))) return false;
  if ((first == U'd' || first == U'c') && is_voiceless(last)) return false;
  if ((first == U't' || first == U'ç') && !is_voiceless(last) &&
      !(first == U't' && is_vowel(last) && (flags & kRootIsVerb) != 0)) {
    return false;
  }
  if ((flags & kRootIgnoresHarmony) != 0 || starts_invariant(chain)) return true;
  return harmonizes(root, chain);
}

// The voice suffixes a verb stem may take before its suffix chain, in the order tried.
constexpr std::u32string_view kVoiceSuffixes[] = {U"ıl",  U"il",  U"ul",  U"ül",  U"ın",  U"in",
                                                  U"un",  U"ün",  U"dır", U"dir", U"dur", U"dür",
                                                  U"tır", U"tir", U"tur", U"tür", U"n",   U"t"};

// Whether voice suffix `v` may follow `stem`: n and t after a vowel, the others after a
// consonant, d/t assimilated to the stem's last consonant, harmonized with its last vowel.
bool voice_ok(const std::u32string& stem, std::u32string_view v) {
  const char32_t last = stem.back();
  if (v.size() == 1) return is_vowel(last);
  if (is_vowel(v.front()) && is_vowel(last)) return false;
  if (v.front() == U'd' && is_voiceless(last)) return false;
  if (v.front() == U't' && !is_voiceless(last)) return false;
  return harmonizes(stem, v);
}

// p/ç/t/k for a softened final b/c/d/g/ğ, else 0.
char32_t hardened(char32_t c) {
  switch (c) {
    case U'b':
      return U'p';
    case U'c':
      return U'ç';
    case U'd':
      return U't';
    case U'g':
    case U'ğ':
      return U'k';
    default:
      return 0;
  }
}

}  // namespace

std::string default_root_lexicon() { return data_path(kDefaultRootLexicon, kInstalledRootLexicon); }

std::string default_suffix_lexicon() {
  return data_path(kDefaultSuffixLexicon, kInstalledSuffixLexicon);
}

StatusOr<RootLexicon> RootLexicon::load(const std::string& roots_path,
                                        const std::string& suffixes_path) {
  for (const std::string& path : {roots_path, suffixes_path}) {
    MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  }
  MORPHEUS_ASSIGN_OR_RETURN(const std::string roots, read_file(roots_path));
  MORPHEUS_ASSIGN_OR_RETURN(const std::string suffixes, read_file(suffixes_path));
  return parse(roots, suffixes, roots_path, suffixes_path);
}

StatusOr<RootLexicon> RootLexicon::parse(std::string_view roots, std::string_view suffixes,
                                         const std::string& roots_name,
                                         const std::string& suffixes_name) {
  RootLexicon lexicon;
  lexicon.roots_.reserve(static_cast<size_t>(std::count(roots.begin(), roots.end(), '\n')) + 1);
  MORPHEUS_RETURN_IF_ERROR(
      read_entries(roots, roots_name,
                   [&](const std::u32string& w, uint8_t flags) { lexicon.add_root(w, flags); }));
  MORPHEUS_RETURN_IF_ERROR(
      read_entries(suffixes, suffixes_name,
                   [&](const std::u32string& w, uint8_t) { lexicon.add_suffix_chain(w); }));
  return lexicon;
}

namespace {

constexpr char kLexiconImageMagic[] = "MPHSRLEX";  // 8 bytes, no terminator in the image

size_t align8(size_t n) { return (n + 7) / 8 * 8; }

}  // namespace

std::string RootLexicon::image() const {
  const std::string roots = roots_.image();
  std::string out(16, '\0');
  std::memcpy(&out[0], kLexiconImageMagic, 8);
  const uint64_t size = roots.size();
  std::memcpy(&out[8], &size, 8);
  out += roots;
  out.resize(align8(out.size()), '\0');
  out += suffixes_.image();
  return out;
}

StatusOr<RootLexicon> RootLexicon::view(std::string_view image, std::shared_ptr<const void> keep,
                                        const std::string& name) {
  const auto damaged = [&name](const std::string& what) {
    return data_loss(name + ": " + what, "re-run morpheus export, or morpheus upgrade");
  };
  uint64_t roots_size = 0;
  if (image.size() >= 16) std::memcpy(&roots_size, image.data() + 8, 8);
  if (image.size() < 16 || std::memcmp(image.data(), kLexiconImageMagic, 8) != 0 ||
      roots_size > image.size() - 16) {
    return damaged("not a root lexicon image");
  }
  const size_t suffixes_at = align8(16 + static_cast<size_t>(roots_size));
  if (suffixes_at > image.size()) return damaged("truncated root lexicon image");
  RootLexicon lexicon;
  std::string error;
  lexicon.roots_ = FlatStringMap<uint8_t>::view(image.substr(16, roots_size), &error);
  if (error.empty()) {
    lexicon.suffixes_ = FlatStringMap<uint8_t>::view(image.substr(suffixes_at), &error);
  }
  if (!error.empty()) return damaged(error);
  lexicon.keep_ = std::move(keep);
  return lexicon;
}

bool RootLexicon::root_match(const std::u32string& t) const {
  bool softened = false;
  return !t.empty() && root_flags(t, t.size(), &softened) >= 0;
}

std::u32string RootLexicon::snap_root_form(const std::u32string& word) const {
  const size_t len = snap_root(word).root;
  if (len == 0) return {};
  std::u32string root = word.substr(0, len);
  bool softened = false;
  root_flags(word, len, &softened);
  if (softened) root.back() = hardened(root.back());
  return root;
}

bool RootLexicon::splits_at(const std::u32string& word, size_t len) const {
  return root_match(word.substr(0, len)) &&
         (len == word.size() || is_suffix_chain(std::u32string_view(word).substr(len)));
}

size_t RootLexicon::root_split(const std::u32string& word) const {
  for (size_t len = word.size(); len >= 1; --len) {
    if (splits_at(word, len)) return len;
  }
  return 0;
}

int RootLexicon::root_flags(const std::u32string& word, size_t len, bool* softened) const {
  *softened = false;
  if (const uint8_t* flags = roots_.find(key(std::u32string_view(word).substr(0, len)))) {
    return *flags;
  }
  const char32_t hard = len == 0 ? 0 : hardened(word[len - 1]);
  if (hard == 0) return -1;
  std::u32string t = word.substr(0, len);
  t.back() = hard;
  const uint8_t* flags = roots_.find(key(t));
  if (flags == nullptr) return -1;
  *softened = true;
  return *flags;
}

bool RootLexicon::parse_rest(const std::u32string& stem, const std::u32string& rest, uint8_t flags,
                             bool softened, int depth, Cuts* ends) const {
  if (rest.empty()) return true;
  if (is_suffix_chain(rest) && junction_ok(stem, rest, flags, softened)) return true;
  if (depth >= 3 || (flags & kRootIsVerb) == 0) return false;
  for (const std::u32string_view v : kVoiceSuffixes) {
    if (rest.compare(0, v.size(), v) != 0 || !voice_ok(stem, v)) continue;
    Cuts sub;
    if (!parse_rest(stem + std::u32string(v), rest.substr(v.size()), kRootIsVerb, false, depth + 1,
                    &sub)) {
      continue;
    }
    ends->push_back(static_cast<uint32_t>(v.size()));
    for (const uint32_t end : sub) ends->push_back(static_cast<uint32_t>(v.size()) + end);
    return true;
  }
  return false;
}

RootAnalysis RootLexicon::snap_root(const std::u32string& word) const {
  const size_t n = word.size();
  for (const auto& [from, to] : {std::pair<size_t, size_t>{2, n}, {1, std::min<size_t>(1, n)}}) {
    for (size_t len = from; len <= to; ++len) {
      bool softened = false;
      const int flags = root_flags(word, len, &softened);
      if (flags < 0) continue;
      RootAnalysis a;
      a.root = len;
      if (len == n) return a;
      Cuts ends;
      if (!parse_rest(word.substr(0, len), word.substr(len), static_cast<uint8_t>(flags), softened,
                      0, &ends)) {
        continue;
      }
      for (const uint32_t end : ends) {
        if (len + end < n) a.voice_cuts.push_back(static_cast<uint32_t>(len + end));
      }
      return a;
    }
  }
  return {};
}

}  // namespace morpheus::morph
