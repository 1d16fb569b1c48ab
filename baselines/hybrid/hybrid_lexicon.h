// SPDX-License-Identifier: MIT
// The three lexicons of the hybrid Turkish tokenizer (Bayram et al.): kokler.json (roots and
// specials), ekler.json (suffixes), bpe_tokenler.json (fallback subwords), each a flat JSON object
// {surface: id}. Several surfaces may share an id (allomorphs); their file order is kept because
// the decoder picks forms by position. All surfaces go into one byte-level double-array trie.
// The lexicon files are MIT-licensed data of malibayram/turkish-tokenizer: they are read from a
// directory given by the user and never shipped with this code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "baselines/hybrid/double_array.h"
#include "core/status.h"

namespace morpheus::tokenizer::hybrid {

// Which file a surface string came from; the encoder prefers roots, then suffixes, then BPE.
enum class Table : uint8_t { kRoot = 0, kSuffix = 1, kBpe = 2 };

inline constexpr const char* kRootsFile = "kokler.json";
inline constexpr const char* kSuffixesFile = "ekler.json";
inline constexpr const char* kBpeFile = "bpe_tokenler.json";

// Ids the algorithm refers to by number (reference §3–4).
inline constexpr int32_t kUppercaseId = 0;
inline constexpr int32_t kUnknownId = 1;
inline constexpr int32_t kSpaceId = 2;
inline constexpr int32_t kSuffixIdBase = 20000;
inline constexpr int32_t kYorId = 20041;

// One surface string of the lexicon.
struct Form {
  std::string text;    // UTF-8, as in the file
  int32_t id = 0;      // its id
  uint16_t index = 0;  // position among the forms of `id`, in file order
  Table table = Table::kRoot;
};

class HybridLexicon {
 public:
  // Loads the three files from `dir`. NOT_FOUND when the directory or a file is missing;
  // DATA_LOSS naming the file and line for malformed JSON, a non-integer or negative id, an
  // empty or duplicated surface (also across files), or missing special ids 0, 1, 2.
  static StatusOr<HybridLexicon> load(const std::string& dir);

  // Number of id slots: max id + 1 (32,768 for the released files).
  int32_t num_ids() const { return static_cast<int32_t>(forms_of_.size()); }
  // Form numbers of `id` in file order (empty when no string has that id). id in [0, num_ids).
  const std::vector<int32_t>& forms_of(int32_t id) const {
    return forms_of_[static_cast<size_t>(id)];
  }
  bool has_id(int32_t id) const { return id >= 0 && id < num_ids() && !forms_of(id).empty(); }
  // All surface strings, numbered in load order (roots, suffixes, BPE; file order within each).
  const std::vector<Form>& forms() const { return forms_; }
  const Form& form(int32_t number) const { return forms_[static_cast<size_t>(number)]; }
  // The first (dictionary) form of `id`; precondition has_id(id).
  const std::string& first_form(int32_t id) const { return form(forms_of(id).front()).text; }
  // Trie over all surfaces. A value packs the form number, its table and whether it is one of
  // the marker strings "<uppercase>"/"<unknown>" (ids 0 and 1): see the trie_* helpers.
  const DoubleArray& trie() const { return trie_; }
  static int32_t trie_form(int32_t value) { return value >> 3; }
  static int trie_table(int32_t value) { return value & 3; }
  static bool trie_is_marker(int32_t value) { return (value & 4) != 0; }

 private:
  std::vector<Form> forms_;
  std::vector<std::vector<int32_t>> forms_of_;
  DoubleArray trie_;
};

}  // namespace morpheus::tokenizer::hybrid
