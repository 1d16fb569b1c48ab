// SPDX-License-Identifier: MIT
// The root snap: a word that is a dictionary root followed by a known suffix chain is cut at the
// end of the root RootLexicon::snap_root finds (morph/root_lexicon.h) and nowhere inside it; the
// other cuts among the suffixes stay. `morpheus export --root-snap` makes it a stage of the
// tokenizer (tokenizer/tokenizer.h), and `--set prepare.root_snap=true` the rule of the training
// labels.
#pragma once

#include <string>
#include <vector>

#include "morph/cuts.h"
#include "morph/root_lexicon.h"

namespace morpheus::morph {

// The version of the root snap's rule (RootLexicon::snap_root), stored by `morpheus export` in
// morpheus.json ("root_snap_rule"): a tokenizer exported under another rule is refused, since
// its table holds that rule's segmentations. 1: the shortest root plus a suffix chain; 2: also
// voice suffixes and the junction's sound rules.
constexpr int kRootSnapRule = 2;

// With A = snap_root(word) and 0 < A.root < length, the word is cut at A.root and at
// A.voice_cuts and nowhere before the last of them; the cuts after it stay. Otherwise `cuts` is
// unchanged. Returns whether it changed. Idempotent: snapping snapped cuts changes nothing.
bool snap_to_root(const RootLexicon& lexicon, const std::u32string& word, Cuts* cuts);
// snap_to_root on the pieces (valid UTF-8) of one word, matched lower-cased (Turkish rules), so
// "Kaldırdı" snaps like "kaldırdı"; the pieces keep their case and still concatenate to the word.
std::vector<std::string> snap_pieces(const RootLexicon& lexicon, std::vector<std::string> pieces);

}  // namespace morpheus::morph
