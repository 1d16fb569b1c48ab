// SPDX-License-Identifier: MIT
#include "train/root_correction.h"

#include <algorithm>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::train {
namespace {

// Adds the lower-cased first field of every line of `path` to `out`.
Status read_first_fields(const std::string& path, std::unordered_set<std::u32string>* out) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  std::string line;
  while (reader.next(&line)) {
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    const size_t end = line.find_first_of(" \t\r", begin);
    const std::string field = line.substr(begin, end == std::string::npos ? end : end - begin);
    std::u32string word;
    for (size_t pos = 0; pos < field.size();) {
      const utf8::Decoded d = utf8::decode_one(field, pos);
      word.push_back(unicode::to_lower(d.code_point));
      pos += d.length;
    }
    out->insert(std::move(word));
  }
  return reader.status();
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

StatusOr<RootLexicon> RootLexicon::load(const std::string& roots_path,
                                        const std::string& suffixes_path) {
  RootLexicon lexicon;
  MORPHEUS_RETURN_IF_ERROR(read_first_fields(roots_path, &lexicon.roots_));
  MORPHEUS_RETURN_IF_ERROR(read_first_fields(suffixes_path, &lexicon.suffixes_));
  return lexicon;
}

bool RootLexicon::root_match(const std::u32string& t) const {
  if (t.empty()) return false;
  if (roots_.count(t) > 0) return true;
  const char32_t hard = hardened(t.back());
  if (hard == 0) return false;
  std::u32string desoftened = t;
  desoftened.back() = hard;
  return roots_.count(desoftened) > 0;
}

bool RootLexicon::splits_at(const std::u32string& word, size_t len) const {
  return root_match(word.substr(0, len)) &&
         (len == word.size() || suffixes_.count(word.substr(len)) > 0);
}

size_t RootLexicon::root_split(const std::u32string& word) const {
  for (size_t len = word.size(); len >= 1; --len) {
    if (splits_at(word, len)) return len;
  }
  return 0;
}

size_t RootLexicon::shortest_root_split(const std::u32string& word) const {
  for (size_t len = 2; len <= word.size(); ++len) {
    if (splits_at(word, len)) return len;
  }
  return !word.empty() && splits_at(word, 1) ? 1 : 0;
}

size_t correct_root(const RootLexicon& lexicon, const std::u32string& word, size_t max_root,
                    Cuts* cuts) {
  const size_t root = lexicon.root_split(word);
  if (root == 0 || root >= word.size() || root > max_root) return 0;
  if (std::find(cuts->begin(), cuts->end(), root) == cuts->end()) return 0;
  const auto first_kept = std::find(cuts->begin(), cuts->end(), root);
  const auto removed = static_cast<size_t>(first_kept - cuts->begin());
  cuts->erase(cuts->begin(), first_kept);
  return removed;
}

bool snap_to_root(const RootLexicon& lexicon, const std::u32string& word, Cuts* cuts) {
  const size_t root = lexicon.shortest_root_split(word);
  if (root == 0 || root >= word.size()) return false;
  Cuts snapped = {static_cast<uint32_t>(root)};
  for (const uint32_t cut : *cuts) {
    if (cut > root) snapped.push_back(cut);
  }
  if (snapped == *cuts) return false;
  *cuts = std::move(snapped);
  return true;
}

std::vector<std::string> snap_pieces(const RootLexicon& lexicon, std::vector<std::string> pieces) {
  std::vector<std::u32string> cps;
  cps.reserve(pieces.size());
  std::u32string word;
  for (const std::string& piece : pieces) {
    StatusOr<std::u32string> decoded = utf8::decode(piece);
    if (!decoded.ok()) return pieces;  // not a letter run: nothing to snap
    word += *decoded;
    cps.push_back(std::move(*decoded));
  }
  Cuts cuts = cuts_from_pieces(cps);
  std::u32string lower = word;  // one code point per code point: offsets stay
  for (char32_t& c : lower) c = unicode::to_lower(c);
  if (!snap_to_root(lexicon, lower, &cuts)) return pieces;
  std::vector<std::string> out;
  for (const std::u32string& p : pieces_from_cuts(word, cuts)) out.push_back(utf8::encode(p));
  return out;
}

std::u32string root_of(const std::u32string& word, const Cuts& cuts) {
  return cuts.empty() ? word : word.substr(0, cuts.front());
}

}  // namespace morpheus::train
