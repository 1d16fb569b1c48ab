// SPDX-License-Identifier: MIT
// The raw texts of the language-model comparison, independent of any tokenizer:
//   count_text: the BPC denominator — code points of every line plus one per line (the line end,
//     which the model predicts as the end-of-line id); nothing is dropped or normalised.
//   heldout_lines: the validation lines of a dev file that do not also occur in the training text
//     (compared Turkish-lower-cased with whitespace removed).
//   check_round_trip: the reversibility gate — a tokenizer gets a BPC only when decode(encode(l))
//     == l byte for byte on every line and every id is < its vocabulary size.
//   split_by_line_hash: a text's training and validation parts by a hash of each line's bytes.
//   slice_line_bits: per-line bits summed into the all-upper lines and the other lines.
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

// The split by line hash (`morpheus lm split`): a line goes to the validation part iff
//   fnv1a64(the line's bytes, without its \n) mod 1,000,000 < round(share × 1,000,000),
// and to the training part otherwise. The side of a line depends on its bytes alone, so the split
// is deterministic and identical lines are always on the same side; each part keeps the input's
// line order.
inline constexpr uint64_t kSplitModulus = 1000000;
uint64_t split_threshold(double share);  // round(share × kSplitModulus)
bool is_validation_line(std::string_view line, uint64_t threshold);

struct LineSplitOptions {
  std::string text;  // the input text (valid UTF-8)
  std::string train_out, valid_out;
  double share = 0.05;         // in (0, 1)
  int64_t min_chars = 300000;  // the validation part's least characters (as count_text counts)
};

struct LineSplit {
  TextStats train, valid;
  uint64_t threshold = 0;
  std::string input_checksum;  // checksum_tag (core/hash.h) of the input file's bytes
};

// Reads options.text once and writes both parts atomically; when it fails, neither is written.
// INVALID_ARGUMENT for a share outside (0, 1), one path for both parts, invalid UTF-8 (naming
// the line) or a validation part of fewer than min_chars characters (hint: raise the share);
// NOT_FOUND for a missing input.
StatusOr<LineSplit> split_by_line_hash(const LineSplitOptions& options);

// {"rule", "hash", "modulus", "threshold", "share", "min_chars", "input", "input_checksum",
//  "train": {"lines", "characters"}, "valid": {"lines", "characters"}}.
nlohmann::json line_split_json(const LineSplit& split, const LineSplitOptions& options);

// An all-upper line has an upper-case letter and no lower-case letter (unicode::is_upper and
// is_lower with the Turkish rules, so "İSTANBUL'DA 3 KİŞİ" is all-upper and "ANKARA ı" is not).
// A line with no cased letter (digits, punctuation, caseless scripts, empty) is not.
bool is_all_upper_line(std::string_view line);

// One slice of a scored text: its lines, their characters (code points plus one per line, as
// count_text counts) and the bits of their tokens and end-of-line ids.
struct TextSlice {
  int64_t lines = 0;
  int64_t characters = 0;
  double bits = 0;
  // {"lines", "characters", "bits", "bpc"}; bpc is null for a slice without characters.
  nlohmann::json to_json() const;
};

struct LineSlices {
  TextSlice all_upper, other;
};

// Adds line i's bits (line_bits[i]) and characters to the slice of line i of `text_path`.
// INVALID_ARGUMENT for invalid UTF-8 or when the text has not line_bits.size() lines.
StatusOr<LineSlices> slice_line_bits(const std::string& text_path,
                                     const std::vector<double>& line_bits);

}  // namespace morpheus::lm
