// SPDX-License-Identifier: MIT
// The raw texts of the language-model comparison, independent of any tokenizer:
//   count_text: the BPC denominator — code points of every line plus one per line (the line end,
//     which the model predicts as the end-of-line id); nothing is dropped or normalised.
//   heldout_lines: the validation lines of a dev file that do not also occur in the training text
//     (compared Turkish-lower-cased with whitespace removed).
//   check_round_trip: the reversibility gate — a tokenizer gets a BPC only when decode(encode(l))
//     == l byte for byte on every line and every id is < its vocabulary size.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::lm {

struct TextStats {
  int64_t lines = 0;
  int64_t code_points = 0;  // of every line, without line ends
  int64_t characters() const { return code_points + lines; }
};
// INVALID_ARGUMENT for invalid UTF-8 (naming the line) or an empty file; NOT_FOUND when missing.
StatusOr<TextStats> count_text(const std::string& path);

// The comparison key of a line: Turkish lower case, every whitespace code point removed.
//   "Ankara'da  İki kişi" -> "ankara'daikikişi".
std::string overlap_key(std::string_view line);

struct HeldoutSplit {
  std::vector<std::string> kept;  // dev lines whose key no training line has, in file order
  int64_t dev_lines = 0;
  int64_t removed = 0;
};
StatusOr<HeldoutSplit> heldout_lines(const std::string& train_path, const std::string& dev_path);

struct GateResult {
  int64_t lines = 0;              // lines compared (the longest of the three files)
  int64_t mismatched_lines = 0;   // decoded line differs (or is missing or extra)
  int64_t bad_id_lines = 0;       // a token that is not an id, an id >= vocab, or no ids line
  int64_t failed_lines = 0;       // lines failing either check
  int64_t first_failed_line = 0;  // 1-based; 0 when none
  std::string first_failure;      // what went wrong there
  bool reversible() const { return failed_lines == 0; }
};
// {"lines":…, "failed_lines":…, "mismatched_lines":…, "bad_id_lines":…, "reversible":…, …}
nlohmann::json gate_json(const GateResult& result);

// Compares `text_path` with `decoded_path` line by line and checks every id of `ids_path`.
// Errors only for unreadable files; a lossy tokenizer is a result, not an error.
StatusOr<GateResult> check_round_trip(const std::string& text_path, const std::string& ids_path,
                                      const std::string& decoded_path, int64_t vocab_size);

}  // namespace morpheus::lm
