// SPDX-License-Identifier: MIT
// Loaders for every gold file of ../shared/data (formats in data/README.md): Morpho Challenge
// 2010, UD stem-boundary tokens, MorphScore v1, UD analyzer segmentations, Penn segmentations,
// SIGMORPHON 2022, CoNLL-U treebanks, the hybrid lexicons; the 50 curated words of the reference
// (§4.4); and the derived sets (root families, lemma items, number/case probe and inflection
// items). Errors name file + line.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "eval/boundary_metrics.h"

namespace morpheus::eval {

// A word with one or more gold surface segmentations (each concatenates to the word).
struct GoldSegmentation {
  std::string word;
  std::vector<Pieces> alternatives;
};

// gold/mc2010_tur_trainset.tsv: header, then `word<TAB>morphs, alternatives " , "<TAB>orig`.
StatusOr<std::vector<GoldSegmentation>> load_mc2010(const std::string& path);

// One item of a MorphScore gold set: gold pieces (preceding?, stem, following?) and a frequency.
struct MorphScoreItem {
  std::string word;
  Pieces gold;  // non-empty pieces; concatenation == word
  double freq = 1;
};

// gold/ud_stem_boundary_tokens.tsv (`form lemma upos feats stem rest treebank file`) turned into
// MorphScore items with the reference's filters (§4.1): stem == lemma, no digit or whitespace,
// 2 ≤ length ≤ 30 code points, ≥ 2 gold pieces concatenating to the form, deduplicated on the
// form; freq = number of rows with that form.
StatusOr<std::vector<MorphScoreItem>> load_ud_stem_boundary(const std::string& path);

// gold/morphscore_turkish.csv (`,full_word,pt1,rest`) with the same filters (a row whose `rest`
// is empty has one piece and is skipped, as the reference skips it).
StatusOr<std::vector<MorphScoreItem>> load_morphscore_v1(const std::string& path);

// gold/ud_types_segmentation.tsv: `form ud_lemma ud_upos seg(a|b ; a|b) status`.
struct UdTypeSegmentation {
  std::string form, lemma, upos;
  std::vector<Pieces> alternatives;
  bool unique = false;  // status == UNIQUE
};
StatusOr<std::vector<UdTypeSegmentation>> load_ud_types(const std::string& path);

// gold/penn_tokens_segmentation.tsv: `word gold_analysis status segmentation sentence_id`.
struct PennToken {
  std::string word, analysis;
  Pieces segmentation;
  std::string root() const;  // the analysis up to the first '+'
};
StatusOr<std::vector<PennToken>> load_penn(const std::string& path);
// Penn tokens grouped into word types; distinct gold segmentations become alternatives.
std::vector<GoldSegmentation> penn_types(const std::vector<PennToken>& tokens);

// gold/sigmorphon2022_tur.gold: `lemma<TAB>form<TAB>F1;F2;…`.
struct SigmorphonEntry {
  std::string lemma, form;
  std::vector<std::string> features;
};
StatusOr<std::vector<SigmorphonEntry>> load_sigmorphon(const std::string& path);

// One CoNLL-U syntactic word (multiword ranges and empty nodes are skipped).
struct UdToken {
  std::string form, lemma, upos, feats;
  // The value of feature `name` in feats ("Case" → "Loc"), or "" when absent.
  std::string feature(const std::string& name) const;
};
StatusOr<std::vector<UdToken>> load_conllu(const std::string& path);
// Every *.conllu file under `dir` and its subdirectories, in sorted path order.
StatusOr<std::vector<UdToken>> load_conllu_dir(const std::string& dir);

// The 50 curated words of the reference's surface-fidelity evaluation (§4.4).
struct CuratedWord {
  std::string category;
  Pieces gold;
  std::string word() const;
};
const std::vector<CuratedWord>& curated_surface_words();

// The hybrid tokenizer's lexicons (hybrid/kokler.json roots, hybrid/ekler.json suffixes), keys
// lower-cased; special entries ("<pad>", "special_7", whitespace) are dropped.
struct TurkishLexicon {
  std::unordered_set<std::string> roots;
  std::unordered_set<std::string> suffixes;
};
StatusOr<TurkishLexicon> load_hybrid_lexicon(const std::string& dir);

// Gold root families: lower-cased lemma → distinct lower-cased letter-only forms (lemma
// included when attested). A form attested under several lemmas goes to its most frequent one.
using RootFamilies = std::map<std::string, std::vector<std::string>>;
// Builds families from UD tokens and Penn tokens (root = analysis up to '+'), keeping families
// with ≥ min_forms distinct forms.
RootFamilies build_root_families(const std::vector<UdToken>& ud, const std::vector<PennToken>& penn,
                                 size_t min_forms);

// A UD form and its gold lemma, for lemma retrieval.
struct LemmaItem {
  std::string word;   // lower-cased form
  std::string lemma;  // lower-cased lemma, never equal to word
};
// Distinct lower-cased letter-only UD forms (any UPOS but PROPN, PUNCT, NUM) with a letter-only
// lemma ("_" is none) other than the form itself; a form attested under several lemmas goes to
// its most frequent one (ties: the smaller lemma), as in build_root_families. A form that is
// itself the lemma of another item is dropped (it would find itself among the lemmas). In form
// order.
std::vector<LemmaItem> build_lemma_items(const std::vector<UdToken>& ud);

// A labelled word for a probe (number or case).
struct ProbeItem {
  std::string word;  // lower-cased form
  std::string label;
};
// Distinct lower-cased letter-only NOUN forms whose UD feature `feature` ("Number", "Case") is
// unambiguous across the treebanks; classes with fewer than min_class items are dropped.
std::vector<ProbeItem> build_probe_items(const std::vector<UdToken>& ud, const std::string& feature,
                                         size_t min_class);
// The forms that are items of both the "Case" and the "Number" probe (each unambiguous), labelled
// "Case|Number" ("Loc|Plur"); classes with fewer than min_class items are dropped. In form order.
std::vector<ProbeItem> build_inflection_items(const std::vector<UdToken>& ud, size_t min_class);

// Splits a line on a single-character separator (empty fields kept).
std::vector<std::string> split_fields(const std::string& line, char sep);
// True when every code point is a letter or combining mark (and the string is non-empty).
bool is_letter_word(const std::string& word);

}  // namespace morpheus::eval
