// SPDX-License-Identifier: MIT
#include "morph/cuts.h"

#include "core/check.h"

namespace morpheus::morph {

Cuts cuts_from_pieces(const std::vector<std::u32string>& pieces) {
  Cuts cuts;
  uint32_t pos = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i].empty()) continue;
    if (pos > 0) cuts.push_back(pos);
    pos += static_cast<uint32_t>(pieces[i].size());
  }
  return cuts;
}

std::vector<std::u32string> pieces_from_cuts(const std::u32string& word, const Cuts& cuts) {
  std::vector<std::u32string> pieces;
  size_t begin = 0;
  for (uint32_t cut : cuts) {
    MORPHEUS_CHECK(cut > begin && cut < word.size(), "cut ", cut, " out of order or outside a ",
                   word.size(), "-character word");
    pieces.push_back(word.substr(begin, cut - begin));
    begin = cut;
  }
  pieces.push_back(word.substr(begin));
  return pieces;
}

}  // namespace morpheus::morph
