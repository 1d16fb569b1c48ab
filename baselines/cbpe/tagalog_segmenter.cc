// SPDX-License-Identifier: MIT
// Tagalog rule segmenter, phonology helpers, affix tables and root list.
#include "baselines/cbpe/tagalog_segmenter.h"

#include <zlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::tokenizer::cbpe {
namespace {

constexpr size_t kMinRoot = 4;

bool is_tl_vowel(char32_t c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

std::u32string u32(std::string_view s) { return utf8::decode(s).value(); }

bool starts_with(const std::u32string& s, const std::u32string& p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}
bool ends_with(const std::u32string& s, const std::u32string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

std::u32string strip_chars(std::u32string s, bool hyphen) {
  auto drop = [hyphen](char32_t c) { return hyphen ? c == '-' : unicode::is_space(c); };
  size_t b = 0;
  while (b < s.size() && drop(s[b])) ++b;
  size_t e = s.size();
  while (e > b && drop(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::u32string clean_affix(const std::string& key) {
  return strip_chars(strip_chars(u32(key), true), false);
}

std::u32string lower_trim(std::string_view word) {
  StatusOr<std::u32string> cps = utf8::decode(word);
  if (!cps.ok()) return {};
  std::u32string s = strip_chars(*cps, false);
  for (char32_t& c : s) c = unicode::to_lower(c, /*turkish=*/false);
  return s;
}

bool has_tagalog_entry(const nlohmann::ordered_json& entries) {
  if (!entries.is_array()) return false;
  for (const auto& e : entries) {
    if (e.is_object() && e.value("language", "") == "Tagalog") return true;
  }
  return false;
}

StatusOr<nlohmann::ordered_json> read_table(const std::string& dir, const std::string& name) {
  const std::string path = path_join(dir, name);
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(path));
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return data_loss(path + ": not a JSON object of affix -> entries",
                     "use the reference's tables (data/cbpe/tables/)");
  }
  return j;
}

void sort_longest_first(std::vector<std::u32string>* v) {
  std::stable_sort(v->begin(), v->end(), [](const std::u32string& a, const std::u32string& b) {
    return a.size() > b.size();
  });
}

StatusOr<std::string> read_maybe_gz(const std::string& path) {
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  gzFile f = gzopen(path.c_str(), "rb");  // also reads uncompressed files
  if (f == nullptr) return io_error("cannot open " + path);
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) return data_loss(path + ": corrupt gzip data");
  return out;
}

}  // namespace

// ---- TagalogPhonology ----------------------------------------------------------------------

std::pair<std::u32string, std::u32string> TagalogPhonology::assimilate(const std::u32string& prefix,
                                                                       const std::u32string& root) {
  if (root.empty()) return {prefix, root};
  const std::u32string stem = !prefix.empty() && prefix[0] == U'p' ? U"pa" : U"ma";
  const char32_t c = unicode::to_lower(root[0], false);
  if (c == 'b' || c == 'p') return {stem + U"m", root.substr(1)};
  if (c == 'd' || c == 't' || c == 's') return {stem + U"n", root.substr(1)};
  if (c == 'k' || c == 'g') return {stem + U"ng", root.substr(1)};
  return {stem + U"ng", root};
}

std::vector<std::pair<std::u32string, std::u32string>> TagalogPhonology::reverse(
    const std::u32string& surface_prefix, const std::u32string& rest) {
  const std::u32string canon =
      !surface_prefix.empty() && surface_prefix[0] == U'p' ? U"pang" : U"mang";
  if (surface_prefix == U"pam" || surface_prefix == U"mam") {
    return {{canon, U"b" + rest}, {canon, U"p" + rest}};
  }
  if (surface_prefix == U"pan" || surface_prefix == U"man") {
    return {{canon, U"d" + rest}, {canon, U"t" + rest}, {canon, U"s" + rest}};
  }
  if (surface_prefix == U"pang" || surface_prefix == U"mang") {
    return {{canon, U"k" + rest}, {canon, U"g" + rest}, {canon, rest}};
  }
  return {{surface_prefix, rest}};
}

bool TagalogPhonology::is_nasal_prefix(const std::u32string& p) {
  return p == U"pam" || p == U"mam" || p == U"pan" || p == U"man" || p == U"pang" || p == U"mang";
}

std::u32string TagalogPhonology::surface(const std::u32string& root, const std::u32string& suffix) {
  size_t b = 0;
  while (b < suffix.size() && suffix[b] == '-') ++b;
  const std::u32string s = suffix.substr(b);
  const bool vowel_end = !root.empty() && is_tl_vowel(root.back());
  if (s == U"an" && vowel_end) return U"han";
  if (s == U"in" && vowel_end) return U"hin";
  return s;
}

std::vector<std::u32string> TagalogPhonology::strip_suffix(const std::u32string& word,
                                                           const std::u32string& suffix) {
  std::vector<std::u32string> out;
  if (ends_with(word, suffix)) out.push_back(word.substr(0, word.size() - suffix.size()));
  for (const auto& [bare, with_h] : {std::pair<std::u32string, std::u32string>{U"an", U"han"},
                                     std::pair<std::u32string, std::u32string>{U"in", U"hin"}}) {
    if (suffix == bare && ends_with(word, with_h)) {
      std::u32string c = word.substr(0, word.size() - 3);
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
    }
  }
  return out;
}

// ---- Affixes and roots ---------------------------------------------------------------------

StatusOr<TagalogAffixes> TagalogAffixes::load(const std::string& dir) {
  TagalogAffixes a;
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::ordered_json pre, read_table(dir, "prefix_table.json"));
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::ordered_json suf, read_table(dir, "suffix_table.json"));
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::ordered_json inf, read_table(dir, "infix_table.json"));
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::ordered_json cir, read_table(dir, "circumfix_table.json"));
  for (auto it = pre.begin(); it != pre.end(); ++it) {
    if (has_tagalog_entry(it.value())) a.prefixes.push_back(clean_affix(it.key()));
  }
  for (auto it = suf.begin(); it != suf.end(); ++it) {
    if (has_tagalog_entry(it.value())) a.suffixes.push_back(clean_affix(it.key()));
  }
  for (auto it = inf.begin(); it != inf.end(); ++it) {
    if (has_tagalog_entry(it.value())) a.infixes.push_back(clean_affix(it.key()));
  }
  for (auto it = cir.begin(); it != cir.end(); ++it) {
    if (!has_tagalog_entry(it.value())) continue;
    std::vector<std::u32string> parts;
    std::u32string cur;
    for (const char32_t c : u32(it.key())) {
      if (unicode::is_space(c)) {
        if (!cur.empty()) parts.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(c);
      }
    }
    if (!cur.empty()) parts.push_back(cur);
    if (parts.empty()) continue;
    a.circumfixes.emplace_back(strip_chars(parts.front(), true), strip_chars(parts.back(), true));
  }
  sort_longest_first(&a.prefixes);
  sort_longest_first(&a.suffixes);
  std::stable_sort(a.circumfixes.begin(), a.circumfixes.end(),
                   [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  if (a.prefixes.empty() || a.suffixes.empty()) {
    return data_loss(dir + ": the affix tables hold no Tagalog prefixes or suffixes");
  }
  return a;
}

TagalogRoots TagalogRoots::from_words(const std::vector<std::string>& words,
                                      const std::vector<std::string>& definitions) {
  TagalogRoots r;
  r.has_definitions_ = !definitions.empty();
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string key = utf8::encode(lower_trim(words[i]));
    if (key.empty()) continue;
    r.defs_.emplace(key, i < definitions.size() ? definitions[i] : std::string());
  }
  return r;
}

StatusOr<TagalogRoots> TagalogRoots::load(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_maybe_gz(path));
  if (!utf8::is_valid(text)) {
    // ispell lists may be Latin-1; Tagalog words are ASCII, so keep the ASCII lines only.
    std::string ascii;
    for (const char c : text) {
      if (static_cast<unsigned char>(c) < 0x80) ascii.push_back(c);
    }
    text.swap(ascii);
  }
  std::vector<std::string> words;
  std::vector<std::string> defs;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_array()) {
      return data_loss(path + ": not a JSON list of {word, definition, language}");
    }
    for (const auto& e : j) {
      if (!e.is_object() || e.value("language", "") != "Tagalog") continue;
      words.push_back(e.value("word", ""));
      const auto d = e.find("definition");
      defs.push_back(d != e.end() && d->is_string() ? d->get<std::string>() : std::string());
    }
    TagalogRoots r = from_words(words, defs);
    r.has_definitions_ = true;
    return r;
  }
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t slash = line.find('/');
    if (slash != std::string::npos) line.resize(slash);
    words.push_back(std::move(line));
  }
  TagalogRoots r = from_words(words);
  if (r.size() == 0) return data_loss(path + ": no words", "pass a root word list");
  return r;
}

bool TagalogRoots::contains(const std::u32string& word) const {
  return defs_.count(utf8::encode(word)) > 0;
}

const std::string* TagalogRoots::definition(const std::u32string& word) const {
  if (!has_definitions_) return nullptr;
  const auto it = defs_.find(utf8::encode(word));
  return it == defs_.end() ? nullptr : &it->second;
}

// ---- TagalogSegmenter ----------------------------------------------------------------------

TagalogSegmenter::TagalogSegmenter(TagalogAffixes affixes, TagalogRoots roots)
    : affixes_(std::move(affixes)), roots_(std::move(roots)) {}

bool TagalogSegmenter::redundant(const std::u32string& x, const std::u32string& r) const {
  const std::string* dx = roots_.definition(x);
  const std::string* dr = roots_.definition(r);
  if (dx == nullptr || dr == nullptr) return false;
  auto trim = [](const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return std::string();
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
  };
  return trim(*dx) == trim(*dr);
}

bool TagalogSegmenter::is_frozen(const std::u32string& w) const {
  if (!roots_.contains(w)) return false;
  for (const std::u32string& p : affixes_.prefixes) {
    if (w.size() > p.size() + 3 && starts_with(w, p)) {
      const std::u32string r = w.substr(p.size());
      if (roots_.contains(r) && redundant(w, r)) return true;
    }
  }
  return false;
}

TagalogSegmenter::Parts TagalogSegmenter::circumfix(const std::u32string& w) const {
  for (const auto& [p, s] : affixes_.circumfixes) {
    if (w.size() > p.size() + s.size() && starts_with(w, p) && ends_with(w, s)) {
      const std::u32string core = w.substr(p.size(), w.size() - p.size() - s.size());
      if (core.size() >= kMinRoot && roots_.contains(core) && !redundant(w, core)) {
        return {p, core, s};
      }
    }
  }
  return {};
}

TagalogSegmenter::Parts TagalogSegmenter::prefix(const std::u32string& x, int depth) const {
  if (depth > 3) return {};
  for (const std::u32string& p : affixes_.prefixes) {
    if (!(x.size() > p.size() + 3 && starts_with(x, p))) continue;
    const std::u32string r = x.substr(p.size());
    Parts sub = prefix(r, depth + 1);
    if (sub.empty()) sub = infix(r);
    if (!sub.empty()) {
      sub.insert(sub.begin(), p);
      return sub;
    }
    if (roots_.contains(r) && !redundant(x, r)) return {p, r};
  }
  return {};
}

TagalogSegmenter::Parts TagalogSegmenter::infix(const std::u32string& x) const {
  if (x.size() < 3 || is_tl_vowel(x[0])) return {};
  for (const std::u32string& i : affixes_.infixes) {
    if (x.compare(1, i.size(), i) == 0 && x.size() >= 1 + i.size()) {
      const std::u32string root = x.substr(0, 1) + x.substr(1 + i.size());
      if (root.size() >= kMinRoot && roots_.contains(root)) return {i, root};
    }
  }
  return {};
}

TagalogSegmenter::Parts TagalogSegmenter::suffix(const std::u32string& w) const {
  for (const std::u32string& s : affixes_.suffixes) {
    for (const std::u32string& c : TagalogPhonology::strip_suffix(w, s)) {
      if (c.size() >= kMinRoot && roots_.contains(c) && !redundant(w, c)) {
        return {c, TagalogPhonology::surface(c, s)};
      }
    }
  }
  return {};
}

TagalogSegmenter::Parts TagalogSegmenter::morphemes_of(const std::u32string& w) const {
  if (w.empty()) return {};
  if (is_frozen(w)) return {w};
  Parts r = circumfix(w);
  if (r.empty()) r = prefix(w, 0);
  if (r.empty()) r = infix(w);
  if (r.empty()) r = suffix(w);
  if (r.empty()) r = {w};
  return r;
}

std::vector<std::string> TagalogSegmenter::morphemes(std::string_view word) const {
  std::vector<std::string> out;
  for (const std::u32string& p : morphemes_of(lower_trim(word))) out.push_back(utf8::encode(p));
  return out;
}

std::vector<std::string> TagalogSegmenter::cut(std::string_view word) const {
  const std::u32string w = lower_trim(word);
  if (w.empty()) return {};
  const Parts m = morphemes_of(w);
  auto to_utf8 = [](const Parts& parts) {
    std::vector<std::string> out;
    for (const std::u32string& p : parts) {
      if (!p.empty()) out.push_back(utf8::encode(p));
    }
    return out;
  };
  if (m.size() <= 1) return {utf8::encode(w)};
  std::u32string joined;
  for (const std::u32string& p : m) joined += p;
  if (joined == w) return to_utf8(m);
  // The infix case: split the root around the infix (k + um + ain).
  auto is_infix = [this](const std::u32string& p) {
    return std::find(affixes_.infixes.begin(), affixes_.infixes.end(), p) != affixes_.infixes.end();
  };
  for (size_t k = 0; k + 1 < m.size(); ++k) {
    if (!is_infix(m[k])) continue;
    const std::u32string& root = m[k + 1];
    if (root.empty()) break;
    Parts parts(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(k));
    parts.push_back(root.substr(0, 1));
    parts.push_back(m[k]);
    parts.push_back(root.substr(1));
    parts.insert(parts.end(), m.begin() + static_cast<std::ptrdiff_t>(k) + 2, m.end());
    std::u32string spelled;
    for (const std::u32string& p : parts) spelled += p;
    if (spelled == w) return to_utf8(parts);
    break;
  }
  // Fail safe (fix of §4-3c): morphemes that do not spell the word leave it whole.
  return {utf8::encode(w)};
}

}  // namespace morpheus::tokenizer::cbpe
