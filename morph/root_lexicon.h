// SPDX-License-Identifier: MIT
// The root lexicon: Turkish dictionary roots with their flags (npm nlptoolkit-dictionary,
// turkish_dictionary.txt) and whole suffix chains (npm nlptoolkit-morphologicalanalysis,
// suffixes.txt, like Kalbur's EKLER), and the two analyses of a lower-case word on it: the
// longest root (root_split, the paper's root correction) and the shortest root the root snap cuts
// at (snap_root), with Turkish sound rules at the junction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "core/flat_string_map.h"
#include "core/status.h"
#include "morph/cuts.h"

namespace morpheus::morph {

// The lexicons of the npm data packages, relative to the repo checkout (the working directory of
// `morpheus prepare` and `morpheus export --root-snap` unless told otherwise), and their names
// in the share directory of an installed program (core/install_dirs.h).
constexpr const char* kDefaultRootLexicon =
    "node_modules/nlptoolkit-dictionary/turkish_dictionary.txt";
constexpr const char* kDefaultSuffixLexicon =
    "node_modules/nlptoolkit-morphologicalanalysis/suffixes.txt";
constexpr const char* kInstalledRootLexicon = "lexicons/turkish_dictionary.txt";
constexpr const char* kInstalledSuffixLexicon = "lexicons/suffixes.txt";

// The default lexicons as the running program finds them: the checkout's from a build tree, the
// installed copies from an installed program.
std::string default_root_lexicon();
std::string default_suffix_lexicon();

// What the dictionary says about a root (turkish_dictionary.txt flags).
enum RootFlag : uint8_t {
  kRootIsVerb = 1,          // CL_FIIL: takes voice suffixes (passive, causative)
  kRootSoftens = 2,         // IS_SD, F_SD, IS_B_SD, IS_SDD: kitap -> kitabı
  kRootIgnoresHarmony = 4,  // IS_UU: saat -> saati
};

// The root snap's analysis of a word: the root ends at `root` (0 = none), and the voice suffixes
// between the root and the suffix chain end at `voice_cuts` ("doldurulmayı": dol|dur|ul|mayı
// gives root 3, voice_cuts {6, 8}).
struct RootAnalysis {
  size_t root = 0;
  Cuts voice_cuts;
};

class RootLexicon {
 public:
  // Reads the first whitespace-separated field of every non-empty line of both files,
  // lower-cased (Turkish rules), and the root flags of the roots file's other fields. Missing
  // files are NOT_FOUND naming them.
  static StatusOr<RootLexicon> load(const std::string& roots_path,
                                    const std::string& suffixes_path);
  // The same from the files' contents (the names are for errors): a tokenizer directory reads
  // each file once, to check its checksum and to parse it.
  static StatusOr<RootLexicon> parse(std::string_view roots, std::string_view suffixes,
                                     const std::string& roots_name,
                                     const std::string& suffixes_name);

  // Both maps as one image (a tokenizer directory's root_snap/lexicon.bin): magic "MPHSRLEX",
  // the byte size R of the roots' map image (uint64), that image (core/flat_string_map.h),
  // zero bytes to a multiple of 8, then the suffix chains' map image. Keys are the UTF-32 of
  // this (little-endian) host, so a lookup reads the mapped bytes with no conversion.
  std::string image() const;
  // A lexicon reading `image` in place, without a parse; `keep` owns the bytes (a mapped file)
  // and lives as long as the lexicon. DATA_LOSS naming `name` for a damaged or foreign image.
  static StatusOr<RootLexicon> view(std::string_view image, std::shared_ptr<const void> keep,
                                    const std::string& name);

  void add_root(const std::u32string& root, uint8_t flags = 0) {
    *roots_.insert(key(root), 0).first |= flags;
  }
  void add_suffix_chain(const std::u32string& chain) { suffixes_.insert(key(chain), 0); }
  size_t num_roots() const { return roots_.size(); }
  bool is_root(const std::u32string& t) const { return roots_.find(key(t)) != nullptr; }
  // The RootFlag bits of the root `t`, or -1 when `t` is not a root.
  int flags_of(const std::u32string& t) const {
    const uint8_t* flags = roots_.find(key(t));
    return flags == nullptr ? -1 : *flags;
  }
  size_t num_suffix_chains() const { return suffixes_.size(); }
  // Calls fn(root, flags) for every root (a std::u32string and its RootFlag bits), in no
  // particular order.
  template <class Fn>
  void for_each_root(Fn fn) const {
    roots_.for_each([&fn](std::string_view bytes, uint8_t flags) {
      std::u32string root(bytes.size() / sizeof(char32_t), U'\0');
      std::memcpy(root.data(), bytes.data(), bytes.size());
      fn(root, flags);
    });
  }

  // `t` is a root, or ends in b/c/d/g/ğ and is a root with that letter replaced by p/ç/t/k/k.
  bool root_match(const std::u32string& t) const;
  // The largest L in [1, n] with root_match(word[0, L)) and word[L, n) empty or a suffix chain;
  // 0 when there is none. `word` is lower-case. The paper's rule (the longest root).
  size_t root_split(const std::u32string& word) const;
  // The root snap's rule: the shortest root of at least two letters (a one-letter root only when
  // it is the sole candidate) whose remainder is empty, a suffix chain, or voice suffixes then a
  // suffix chain, every junction obeying Turkish sound rules (below): "kaldırdı" -> kal|dır|dı,
  // "yapıyor" -> yap + ıyor, "katılmıyorum" -> kat|ıl + mıyorum, where root_split gives kaldır +
  // dı and yapı + yor. Every gold set scored here (MC2010, UD, Penn) cuts voice and derivational
  // suffixes off the root; measured on their tune parts this beats the longest root and the
  // shortest root without voice suffixes or sound rules on all four scores (README, ablation).
  //
  // A root + chain junction is kept only when (1) a de-softened match (kitab + ı) is a softening
  // root and the chain starts with a vowel; (2) a chain starting with d/c does not follow a
  // voiceless consonant, and one starting with t/ç follows one (or is a vowel-final verb's
  // causative t); (3) unless the root ignores harmony or the chain starts with an invariant
  // suffix (ki, ken, yor, ...), the chain's first vowel agrees with the root's last vowel in
  // backness, and a high first vowel also in rounding. Voice suffixes follow verbs only, at most
  // three: passive/reflexive ıl/ın (4-way harmony; n after a vowel), causative dır/tır (4-way,
  // assimilated; t after a vowel).
  RootAnalysis snap_root(const std::u32string& word) const;
  // The dictionary form of the root snap_root finds in `word` ("kitabı" -> "kitap", "kaldırdı" ->
  // "kal"), or "" when it finds none.
  std::u32string snap_root_form(const std::u32string& word) const;

 private:
  // root_match(word[0, len)) and word[len, n) empty or a suffix chain (1 <= len <= n).
  bool splits_at(const std::u32string& word, size_t len) const;
  // The flags of the root word[0, len) (de-softened when needed; *softened says so), or -1.
  int root_flags(const std::u32string& word, size_t len, bool* softened) const;
  // Whether `rest` (non-empty) after `stem` parses as voice suffixes then a suffix chain; the
  // voice suffix ends, as offsets into rest, go to *ends.
  bool parse_rest(const std::u32string& stem, const std::u32string& rest, uint8_t flags,
                  bool softened, int depth, Cuts* ends) const;

  // The bytes of a UTF-32 string: the key of both maps (no conversion per lookup).
  static std::string_view key(std::u32string_view s) {
    return {reinterpret_cast<const char*>(s.data()), s.size() * sizeof(char32_t)};
  }
  bool is_suffix_chain(std::u32string_view s) const { return suffixes_.find(key(s)) != nullptr; }

  // Flat maps (one slot array and one key arena each): the lexicon of a tokenizer directory
  // loads in a few milliseconds and frees in two calls.
  FlatStringMap<uint8_t> roots_;      // root -> RootFlag bits
  FlatStringMap<uint8_t> suffixes_;   // suffix chain -> 0
  std::shared_ptr<const void> keep_;  // the image a view() reads, or null
};

}  // namespace morpheus::morph
