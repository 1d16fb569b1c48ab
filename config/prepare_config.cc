// SPDX-License-Identifier: MIT
#include "config/prepare_config.h"

#include <nlohmann/json.hpp>
#include <string>

#include "core/config_section.h"
#include "core/utf8.h"

namespace morpheus::train {

MORPHEUS_CONFIG_FIELDS(PrepareConfig, max_word_chars, max_window_words, min_window_words,
                       dev_fraction, seed, char_coverage, char_min_count, char_always,
                       word_vocab_size, word_min_count, root_vocab_size, root_min_count,
                       root_correction, root_snap, contrastive_roots, root_lexicon, suffix_lexicon,
                       morfessor_python, morfessor_train, morfessor_segment, morfessor_dampening,
                       morfessor_corpusweight, morfessor_annotation_weight)

Status PrepareConfig::validate() const {
  if (max_word_chars < 1 || max_word_chars > kMaxCacheWordChars) {
    return invalid_argument("prepare.max_word_chars must be in [1, 32], got " +
                            std::to_string(max_word_chars));
  }
  if (max_window_words < 1 || min_window_words > max_window_words) {
    return invalid_argument("prepare.max_window_words must be >= 1 and >= min_window_words");
  }
  if (!(dev_fraction >= 0.0 && dev_fraction < 1.0)) {
    return invalid_argument("prepare.dev_fraction must be in [0, 1)");
  }
  if (!(char_coverage > 0.0 && char_coverage <= 1.0)) {
    return invalid_argument("prepare.char_coverage must be in (0, 1]");
  }
  if (word_vocab_size < 1 || root_vocab_size < 1) {
    return invalid_argument("prepare.word_vocab_size and root_vocab_size must be >= 1");
  }
  if (morfessor_dampening != "log" && morfessor_dampening != "ones" &&
      morfessor_dampening != "none") {
    return invalid_argument("prepare.morfessor_dampening must be log, ones or none, got '" +
                            morfessor_dampening + "'");
  }
  if (contrastive_roots != "label" && contrastive_roots != "lexicon") {
    return invalid_argument("prepare.contrastive_roots must be label or lexicon, got '" +
                            contrastive_roots + "'");
  }
  if (!utf8::is_valid(char_always)) return invalid_argument("prepare.char_always is not UTF-8");
  return ok_status();
}

}  // namespace morpheus::train
