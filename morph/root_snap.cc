// SPDX-License-Identifier: MIT
#include "morph/root_snap.h"

#include <utility>

#include "core/status.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::morph {

bool snap_to_root(const RootLexicon& lexicon, const std::u32string& word, Cuts* cuts) {
  const RootAnalysis a = lexicon.snap_root(word);
  if (a.root == 0 || a.root >= word.size()) return false;
  Cuts snapped = {static_cast<uint32_t>(a.root)};
  snapped.insert(snapped.end(), a.voice_cuts.begin(), a.voice_cuts.end());
  const uint32_t top = snapped.back();
  for (const uint32_t cut : *cuts) {
    if (cut > top) snapped.push_back(cut);
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

}  // namespace morpheus::morph
