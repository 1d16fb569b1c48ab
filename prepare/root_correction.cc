// SPDX-License-Identifier: MIT
#include "prepare/root_correction.h"

#include <algorithm>

namespace morpheus::train {

using morph::Cuts;
using morph::RootLexicon;

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

std::u32string root_of(const std::u32string& word, const Cuts& cuts) {
  return cuts.empty() ? word : word.substr(0, cuts.front());
}

}  // namespace morpheus::train
