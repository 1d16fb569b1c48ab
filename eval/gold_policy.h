// SPDX-License-Identifier: MIT
// The two rules every table of `morpheus eval` applies to the gold sets, in one place:
//  * case: boundary and MorphScore metrics score the Turkish lower-cased word (İ→i, I→ı; one code
//    point for one, so offsets are unchanged) for every system alike;
//  * split: every gold set has a tune part (what tuning may read) and a report part (what tables
//    show), decided per item by a hash of its lower-cased key, so the rule needs no list and is
//    the same in every tool (`morpheus eval --split`, `morpheus gold-split`).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/status.h"
#include "eval/gold_data.h"

namespace morpheus::eval {

// ---- Case

// The form every segmentation metric scores: Turkish lower case.
std::string scoring_form(std::string_view word);

// Words and gold pieces in scoring form; entries that become the same word are merged
// (segmentations: alternatives united; MorphScore items: frequencies added, first gold kept).
std::vector<GoldSegmentation> fold_case(const std::vector<GoldSegmentation>& gold);
std::vector<MorphScoreItem> fold_case(const std::vector<MorphScoreItem>& gold);

// ---- Split

enum class GoldPart { kTune, kReport, kAll };

// "tune" | "report" | "all"; anything else is INVALID_ARGUMENT.
StatusOr<GoldPart> parse_gold_part(std::string_view name);
const char* gold_part_name(GoldPart part);

// The gold sets and their tune shares: "mc2010" 0.5 (its 500 tune words are the only annotated
// words any training may use: the classic Morpho Challenge semi-supervised setting); "ud_types",
// "penn", "ud_stem_boundary", "morphscore_v1", "sigmorphon", "curated", "families" (key = the
// lemma) and "probes" 0.1. An unknown name is INVALID_ARGUMENT listing the known ones.
StatusOr<double> tune_fraction(std::string_view gold_set);
const std::vector<std::string>& gold_set_names();

// The rule: tune iff FNV-1a 64 of "morpheus-split-v1:" + scoring_form(key), mod 10,000, is below
// tune_fraction · 10,000. Nested: the tune part at 0.1 is inside the tune part at 0.5.
bool is_tune(std::string_view key, double tune_fraction);
bool in_part(std::string_view key, double tune_fraction, GoldPart part);

// The items of `items` in `part`, order kept; key(item) gives the split key.
template <typename T, typename KeyFn>
std::vector<T> select_part(const std::vector<T>& items, double tune_fraction, GoldPart part,
                           KeyFn key) {
  std::vector<T> out;
  for (const T& item : items) {
    if (in_part(key(item), tune_fraction, part)) out.push_back(item);
  }
  return out;
}

// The lines of a gold file of set `gold_set` (formats in ../shared/data/README.md) whose item is
// in `part`, header kept, order kept: what `morpheus gold-split` prints, e.g. the MC2010 tune
// words a semi-supervised teacher may read. Sets without a file format ("curated", "families",
// "lemmas", "probes") are INVALID_ARGUMENT; errors name the file.
StatusOr<std::string> gold_file_part(const std::string& path, std::string_view gold_set,
                                     GoldPart part);

// ---- Seen and unseen words

// The word types a system could have learned from: every letter run of the training text
// (scoring form) plus the MC2010 tune words (the only annotated words training may use).
class SeenWords {
 public:
  // Reads the training text (one sentence per line); letter runs of the lossless pretokenizer.
  Status add_text_file(const std::string& path);
  void add_word(std::string_view word) { types_.insert(scoring_form(word)); }
  bool seen(std::string_view word) const { return types_.count(scoring_form(word)) > 0; }
  size_t size() const { return types_.size(); }

 private:
  std::unordered_set<std::string> types_;
};

}  // namespace morpheus::eval
