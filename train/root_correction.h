// SPDX-License-Identifier: MIT
// Root correction, the paper's "Kalbur" step (reference/morpheus_pipeline.md §1.7), exactly:
// find the longest prefix of a word that is a known root (also after de-softening the last
// letter b/c/d/g/ğ → p/ç/t/k/k: "kitab" matches "kitap") and whose remainder is empty or a known
// suffix chain; when the teacher also cuts exactly at that root end, remove the teacher's cuts
// inside the root. Roots come from npm nlptoolkit-dictionary (turkish_dictionary.txt), suffix
// chains from npm nlptoolkit-morphologicalanalysis (suffixes.txt, whole chains like Kalbur's
// EKLER).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "train/teacher.h"

namespace morpheus::train {

class RootLexicon {
 public:
  // Reads the first whitespace-separated field of every non-empty line of both files,
  // lower-cased (Turkish rules). Missing files are NOT_FOUND naming them.
  static StatusOr<RootLexicon> load(const std::string& roots_path,
                                    const std::string& suffixes_path);

  void add_root(const std::u32string& root) { roots_.insert(root); }
  void add_suffix_chain(const std::u32string& chain) { suffixes_.insert(chain); }
  size_t num_roots() const { return roots_.size(); }
  const std::unordered_set<std::u32string>& roots() const { return roots_; }
  size_t num_suffix_chains() const { return suffixes_.size(); }

  // `t` is a root, or ends in b/c/d/g/ğ and is a root with that letter replaced by p/ç/t/k/k.
  bool root_match(const std::u32string& t) const;
  // The largest L in [1, n] with root_match(word[0, L)) and word[L, n) empty or a suffix chain;
  // 0 when there is none. `word` is lower-case. The paper's rule (the longest root).
  size_t root_split(const std::u32string& word) const;
  // The same candidates, the shortest root of at least two letters (a one-letter root only when
  // it is the sole candidate): "kaldırdı" -> kal + dırdı, "yapıyor" -> yap + ıyor, where
  // root_split gives kaldır + dı and yapı + yor. Every gold set scored here (MC2010, UD, Penn)
  // cuts voice and derivational suffixes off the root; measured on their tune parts it beats the
  // longest root on all four scores (README, ablation).
  size_t shortest_root_split(const std::u32string& word) const;

 private:
  // root_match(word[0, len)) and word[len, n) empty or a suffix chain (1 <= len <= n).
  bool splits_at(const std::u32string& word, size_t len) const;

  std::unordered_set<std::u32string> roots_;
  std::unordered_set<std::u32string> suffixes_;
};

// Applies the correction to the teacher cuts of `word` (lower-case). With R = root_split(word),
// nothing changes unless 0 < R < length, R <= max_root and R is one of the cuts; then every cut
// below R is removed (the root-end cut and the suffix cuts stay). Returns the number of cuts
// removed.
size_t correct_root(const RootLexicon& lexicon, const std::u32string& word, size_t max_root,
                    Cuts* cuts);

// The root snap applied to a trained model's segmentation (`morpheus export --root-snap`): with
// R = shortest_root_split(word) and 0 < R < length, the word is cut at R and nowhere inside the
// root; cuts after R stay. Otherwise `cuts` is unchanged. Returns whether it changed.
bool snap_to_root(const RootLexicon& lexicon, const std::u32string& word, Cuts* cuts);
// snap_to_root on the pieces (valid UTF-8) of one word, matched lower-cased (Turkish rules), so
// "Kaldırdı" snaps like "kaldırdı"; the pieces keep their case and still concatenate to the word.
std::vector<std::string> snap_pieces(const RootLexicon& lexicon, std::vector<std::string> pieces);

// The root of a segmented word: its first piece ("evlerde" with cuts {2, 5} -> "ev").
std::u32string root_of(const std::u32string& word, const Cuts& cuts);

}  // namespace morpheus::train
