// SPDX-License-Identifier: MIT
// The CBPE reference's Tagalog rule segmenter: frozen-form guard, then circumfix,
// stacked prefixes (depth <= 3), infix (-in-/-um- after the first consonant), one suffix with
// h-insertion; affix tables from the reference's JSON files, roots from a word list.
//   "pagkainan" -> morphemes {pag, kain, an}; surface pieces {pag, kain, an}
//   "kumain"    -> morphemes {um, kain};      surface pieces {k, um, ain}
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer::cbpe {

// Nasal assimilation and suffix h-insertion. The segmenter uses only the suffix
// rules; the nasal rules are kept (and tested) as in the reference, where they are unused.
struct TagalogPhonology {
  // ("pang", "bili") -> ("pam", "ili"); ("mang", "kuha") -> ("mang", "uha"); vowels keep the root.
  static std::pair<std::u32string, std::u32string> assimilate(const std::u32string& prefix,
                                                              const std::u32string& root);
  // ("pam", "ili") -> {("pang","bili"), ("pang","pili")}; non-nasal prefixes pass through.
  static std::vector<std::pair<std::u32string, std::u32string>> reverse(
      const std::u32string& surface_prefix, const std::u32string& rest);
  static bool is_nasal_prefix(const std::u32string& prefix);
  // Suffix as written after `root`: an/in become han/hin after a vowel.
  static std::u32string surface(const std::u32string& root, const std::u32string& suffix);
  // Candidate roots of `word` without suffix S (S itself, then han/hin for an/in).
  static std::vector<std::u32string> strip_suffix(const std::u32string& word,
                                                  const std::u32string& suffix);
};

struct TagalogAffixes {
  std::vector<std::u32string> prefixes;  // longest first, stable (file order on ties)
  std::vector<std::u32string> suffixes;  // longest first, stable
  std::vector<std::u32string> infixes;   // file order: in, um
  std::vector<std::pair<std::u32string, std::u32string>> circumfixes;  // by prefix length
  // Reads {prefix,suffix,infix,circumfix}_table.json from `dir`; keeps keys with a Tagalog
  // entry. Errors name the file.
  static StatusOr<TagalogAffixes> load(const std::string& dir);
};

// Roots. The reference's dictionary (~30K scraped entries with definitions) is not obtainable.
// We use Debian's itagalog ispell word list (/usr/share/ispell/tagalog.mwl.gz, 18,202 words,
// inflected forms included, no definitions) or a reference-schema JSON list when one is given.
// What that changes: (1) with a plain word list there are no definitions, so redundant() is always
// false: the frozen-form guard never fires (pangalan = pang + alan is split when alan is listed)
// and no split is vetoed as redundant; (2) the list holds inflected forms, so a pass stops at the
// first listed remainder (kainan -> ka+inan, ipaglaban -> ipag+laban);
// (3) roots missing from the list leave words unsplit. Boundary F1 on the 129 surface-spelling
// gold words: 0.838 with itagalog, 0.881 with the gold's own roots, 0.155 with no roots. Fixes
// against the reference (§12): surface pieces always spell the word (a §4-3c mismatch such as
// basain -> basa+hin falls back to the whole word).
class TagalogRoots {
 public:
  // A word list (one word per line, ispell "/flags" stripped; .gz read transparently) or a
  // reference-schema JSON list of {word, definition, language} (Tagalog entries, first wins).
  static StatusOr<TagalogRoots> load(const std::string& path);
  // From explicit words (and optional definitions), e.g. for tests.
  static TagalogRoots from_words(const std::vector<std::string>& words,
                                 const std::vector<std::string>& definitions = {});
  bool contains(const std::u32string& word) const;
  // First definition, or nullptr when none.
  const std::string* definition(const std::u32string& word) const;
  size_t size() const { return defs_.size(); }

 private:
  std::unordered_map<std::string, std::string> defs_;  // lower-cased word -> definition ("")
  bool has_definitions_ = false;
};

class TagalogSegmenter : public WordSegmenter {
 public:
  TagalogSegmenter(TagalogAffixes affixes, TagalogRoots roots);

  // The reference's morphemes of `word` (after trimming and lower-casing); they need not spell
  // the word (infixes, h-insertion). Empty for an empty word.
  std::vector<std::string> morphemes(std::string_view word) const;
  // Surface pieces (the annotation without markers): concatenation == lower-cased word.
  std::vector<std::string> cut(std::string_view word) const override;
  std::string name() const override { return "tagalog-rules"; }

 private:
  using Parts = std::vector<std::u32string>;
  bool redundant(const std::u32string& x, const std::u32string& r) const;
  bool is_frozen(const std::u32string& w) const;
  Parts circumfix(const std::u32string& w) const;
  Parts prefix(const std::u32string& x, int depth) const;
  Parts infix(const std::u32string& x) const;
  Parts suffix(const std::u32string& w) const;
  Parts morphemes_of(const std::u32string& w) const;

  TagalogAffixes affixes_;
  TagalogRoots roots_;
};

}  // namespace morpheus::tokenizer::cbpe
