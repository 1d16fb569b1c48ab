// SPDX-License-Identifier: MIT
// PrepareConfig: the "prepare" section of a config file, what `morpheus prepare`
// (prepare/prepare.h) does with a corpus. Every field can be set with --set prepare.<field>=v. Read
// by section_from_json<PrepareConfig> (core/config_section.h); its JSON fields are in
// prepare_config.cc. Torch-free (library morpheus_config).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/status.h"
#include "morph/root_lexicon.h"

namespace morpheus::train {

// The longest word the training cache stores whole (prepare/cache.h), the bound of
// PrepareConfig::max_word_chars.
inline constexpr uint32_t kMaxCacheWordChars = 32;

struct PrepareConfig {
  static constexpr const char* kSection = "prepare";
  // Longest word in characters that the cache stores whole: the paper's max_word_len 32 minus
  // BOS and EOS. Longer words are stored as chunks of this many characters (prepare/cache.h). ≤ 32.
  uint32_t max_word_chars = 30;
  // Words per cache window (the paper's max_sent_len); sentences are cut into such windows.
  uint32_t max_window_words = 32;
  // Windows with fewer words are dropped (1 keeps every word).
  uint32_t min_window_words = 1;
  // Fraction of sentences held out as the dev split (the paper's 95/5). Never the test set.
  double dev_fraction = 0.05;
  // Seed of the train/dev split.
  uint64_t seed = 42;
  // Characters kept in the char vocabulary: most frequent first until this share of all
  // character occurrences (of train-split words) is covered.
  double char_coverage = 0.99995;
  // Characters seen fewer times are never added by coverage (they map to UNK).
  uint64_t char_min_count = 2;
  // Characters always in the char vocabulary, seen or not (Turkish alphabet plus q w x â î û).
  std::string char_always = "abcçdefgğhıijklmnoöprsştuüvyzqwxâîû";
  // Word vocabulary (SGNS contexts): size including <unk>, and the minimum count.
  uint32_t word_vocab_size = 120000;
  uint64_t word_min_count = 5;
  // Root vocabulary (contrastive loss): size including <unk>, and the minimum count.
  uint32_t root_vocab_size = 30000;
  uint64_t root_min_count = 2;
  // Whether to apply the root correction (prepare/root_correction.h) to the teacher labels.
  bool root_correction = true;
  // With root_correction: the labels get the root snap (snap_to_root, the rule of `morpheus
  // export --root-snap`) instead of the paper's correction (correct_root).
  bool root_snap = false;
  // The root of each word for the contrastive loss (roots.tsv): "label", the first piece of its
  // training labels; or "lexicon", the dictionary form of its root-snap root (kitabı -> kitap,
  // RootLexicon::snap_root_form), the first label piece when the lexicon has none.
  std::string contrastive_roots = "label";
  // Root lexicon (first field per line) and suffix-chain lexicon: the checkout's node_modules/
  // ones (relative to the working dir), or an installed program's copies (morph/root_lexicon.h).
  std::string root_lexicon = morph::default_root_lexicon();
  std::string suffix_lexicon = morph::default_suffix_lexicon();
  // python3-morfessor: interpreter and scripts (the module imports only under /usr/bin/python3).
  std::string morfessor_python = "/usr/bin/python3";
  std::string morfessor_train = "/usr/bin/morfessor-train";
  std::string morfessor_segment = "/usr/bin/morfessor-segment";
  // Morfessor frequency dampening: "log" (default), "ones" (types) or "none" (tokens).
  std::string morfessor_dampening = "log";
  // Morfessor corpus weight (alpha); lower cuts more. 0.25 was chosen on the odd-numbered half
  // of the MC2010 gold (micro boundary F1 0.487 at 1.0, 0.551 at 0.5, 0.591 at 0.25, 0.578 at
  // 0.1 on the default corpus); on the held-out even half 0.482 at 1.0 vs 0.569 at 0.25.
  double morfessor_corpusweight = 0.25;
  // With --annotations: Morfessor's corpus weight of the annotated words (-W); 0 lets Morfessor
  // balance the annotated and corpus token counts.
  double morfessor_annotation_weight = 0.0;

  // OK, or INVALID_ARGUMENT naming the first field out of range.
  Status validate() const;
};

// Every field; missing keys keep their defaults.
void to_json(nlohmann::json& j, const PrepareConfig& config);
void from_json(const nlohmann::json& j, PrepareConfig& config);

}  // namespace morpheus::train
