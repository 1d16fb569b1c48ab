// SPDX-License-Identifier: MIT
// Root correction of the teacher labels, the paper's "Kalbur" step as the reference
// implementation runs it: find the longest prefix of a word that is a known root (also after
// de-softening the last letter b/c/d/g/ğ → p/ç/t/k/k: "kitab" matches "kitap") and whose
// remainder is empty or a known suffix chain (RootLexicon::root_split, morph/root_lexicon.h);
// when the teacher also cuts exactly at that root end, remove the teacher's cuts inside the root.
#pragma once

#include <cstddef>
#include <string>

#include "morph/cuts.h"
#include "morph/root_lexicon.h"

namespace morpheus::train {

// Applies the correction to the teacher cuts of `word` (lower-case). With R = root_split(word),
// nothing changes unless 0 < R < length, R <= max_root and R is one of the cuts; then every cut
// below R is removed (the root-end cut and the suffix cuts stay). Returns the number of cuts
// removed.
size_t correct_root(const morph::RootLexicon& lexicon, const std::u32string& word, size_t max_root,
                    morph::Cuts* cuts);

// The root of a segmented word: its first piece ("evlerde" with cuts {2, 5} -> "ev").
std::u32string root_of(const std::u32string& word, const morph::Cuts& cuts);

}  // namespace morpheus::train
