// SPDX-License-Identifier: MIT
#include "lm_data/text_data.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_set>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "lm_data/id_lines.h"

namespace morpheus::lm {

StatusOr<TextStats> count_text(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  TextStats stats;
  std::string line;
  while (reader.next(&line)) {
    ++stats.lines;
    stats.code_points += static_cast<int64_t>(utf8::length(line));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (stats.lines == 0) return invalid_argument(path + " holds no lines", "give a non-empty text");
  return stats;
}

std::string overlap_key(std::string_view line) {
  const std::string lower = unicode::to_lower(line, /*turkish=*/true);
  std::string key;
  for (size_t pos = 0; pos < lower.size();) {
    const utf8::Decoded d = utf8::decode_one(lower, pos);
    if (!(d.valid && unicode::is_space(d.code_point))) key.append(lower, pos, d.length);
    pos += d.length;
  }
  return key;
}

StatusOr<HeldoutSplit> heldout_lines(const std::string& train_path, const std::string& dev_path) {
  std::unordered_set<std::string> seen;
  LineReader train;
  MORPHEUS_RETURN_IF_ERROR(train.open(train_path, /*validate_utf8=*/false));
  std::string line;
  while (train.next(&line)) seen.insert(overlap_key(line));
  MORPHEUS_RETURN_IF_ERROR(train.status());
  LineReader dev;
  MORPHEUS_RETURN_IF_ERROR(dev.open(dev_path, /*validate_utf8=*/false));
  HeldoutSplit split;
  while (dev.next(&line)) {
    ++split.dev_lines;
    if (seen.count(overlap_key(line)) != 0) {
      ++split.removed;
    } else {
      split.kept.push_back(line);
    }
  }
  MORPHEUS_RETURN_IF_ERROR(dev.status());
  return split;
}

nlohmann::json gate_json(const GateResult& r) {
  return {{"lines", r.lines},
          {"failed_lines", r.failed_lines},
          {"mismatched_lines", r.mismatched_lines},
          {"bad_id_lines", r.bad_id_lines},
          {"first_failed_line", r.first_failed_line},
          {"first_failure", r.first_failure},
          {"reversible", r.reversible()}};
}

namespace {

// The reason line `ids_line` of an ids file fails, or "" when every token is an id < vocab.
std::string bad_ids_reason(const std::string& ids_line, int64_t vocab_size,
                           std::vector<int32_t>* scratch) {
  Status parsed = parse_id_line(ids_line, scratch);
  if (!parsed.ok()) return parsed.message();
  for (int32_t id : *scratch) {
    if (id >= vocab_size) {
      return "id " + std::to_string(id) + " >= vocabulary size " + std::to_string(vocab_size);
    }
  }
  return "";
}

}  // namespace

StatusOr<GateResult> check_round_trip(const std::string& text_path, const std::string& ids_path,
                                      const std::string& decoded_path, int64_t vocab_size) {
  LineReader text, ids, decoded;
  MORPHEUS_RETURN_IF_ERROR(text.open(text_path, /*validate_utf8=*/false));
  MORPHEUS_RETURN_IF_ERROR(ids.open(ids_path, /*validate_utf8=*/false));
  MORPHEUS_RETURN_IF_ERROR(decoded.open(decoded_path, /*validate_utf8=*/false));
  GateResult r;
  std::string t, i, d;
  std::vector<int32_t> scratch;
  auto fail = [&r](std::string reason) {
    ++r.failed_lines;
    if (r.first_failed_line == 0) {
      r.first_failed_line = r.lines;
      r.first_failure = std::move(reason);
    }
  };
  for (;;) {
    const bool has_t = text.next(&t), has_i = ids.next(&i), has_d = decoded.next(&d);
    if (!has_t && !has_i && !has_d) break;
    ++r.lines;
    std::string reason = has_i ? bad_ids_reason(i, vocab_size, &scratch) : "no ids line";
    if (!reason.empty()) ++r.bad_id_lines;
    if (!has_t || !has_d || t != d) {
      ++r.mismatched_lines;
      if (reason.empty()) {
        reason = !has_t   ? "extra decoded line"
                 : !has_d ? "no decoded line"
                          : "decoded text differs";
      }
    }
    if (!reason.empty()) fail(reason);
  }
  MORPHEUS_RETURN_IF_ERROR(text.status());
  MORPHEUS_RETURN_IF_ERROR(ids.status());
  MORPHEUS_RETURN_IF_ERROR(decoded.status());
  return r;
}

uint64_t split_threshold(double share) {
  return static_cast<uint64_t>(std::llround(share * static_cast<double>(kSplitModulus)));
}

bool is_validation_line(std::string_view line, uint64_t threshold) {
  return fnv1a64(line) % kSplitModulus < threshold;
}

namespace {

std::string share_text(double share) {
  std::ostringstream out;
  out << share;
  return out.str();
}

Status check_split_options(const LineSplitOptions& o) {
  if (!(o.share > 0 && o.share < 1)) {
    return invalid_argument("the validation share must be in (0, 1), got " + share_text(o.share),
                            "pass e.g. --share 0.05");
  }
  if (o.train_out == o.valid_out) {
    return invalid_argument("the training and validation parts have one path: " + o.train_out,
                            "give --train-out and --valid-out different files");
  }
  return ok_status();
}

// The two parts being written and what went into each.
struct SplitWriters {
  AtomicFileWriter train, valid;
  LineSplit split;
};

Status add_line(const std::string& line, SplitWriters* w) {
  const bool valid = is_validation_line(line, w->split.threshold);
  TextStats& part = valid ? w->split.valid : w->split.train;
  ++part.lines;
  part.code_points += static_cast<int64_t>(utf8::length(line));
  AtomicFileWriter& out = valid ? w->valid : w->train;
  MORPHEUS_RETURN_IF_ERROR(out.write(line));
  return out.write("\n");
}

Status check_min_chars(const LineSplit& split, const LineSplitOptions& o) {
  if (split.valid.characters() >= o.min_chars) return ok_status();
  return invalid_argument("the validation part of " + o.text + " holds " +
                              std::to_string(split.valid.characters()) + " characters (" +
                              std::to_string(split.valid.lines) +
                              " lines), fewer than --min-chars " + std::to_string(o.min_chars),
                          "raise --share (now " + share_text(o.share) + ") or give a longer text");
}

}  // namespace

StatusOr<LineSplit> split_by_line_hash(const LineSplitOptions& o) {
  MORPHEUS_RETURN_IF_ERROR(check_split_options(o));
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(o.text, /*validate_utf8=*/true));
  SplitWriters w;
  w.split.threshold = split_threshold(o.share);
  MORPHEUS_RETURN_IF_ERROR(w.train.open(o.train_out));
  MORPHEUS_RETURN_IF_ERROR(w.valid.open(o.valid_out));
  uint64_t checksum = kFnv1a64Offset;  // of the file's bytes: each line and its \n, if it had one
  std::string line;
  while (reader.next(&line)) {
    checksum = fnv1a64(line, checksum);
    if (reader.last_had_newline()) checksum = fnv1a64(std::string_view("\n"), checksum);
    MORPHEUS_RETURN_IF_ERROR(add_line(line, &w));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  MORPHEUS_RETURN_IF_ERROR(check_min_chars(w.split, o));
  w.split.input_checksum = "fnv1a64:" + hex16(checksum);
  MORPHEUS_RETURN_IF_ERROR(w.train.commit());
  MORPHEUS_RETURN_IF_ERROR(w.valid.commit());
  return w.split;
}

nlohmann::json line_split_json(const LineSplit& split, const LineSplitOptions& o) {
  auto part = [](const TextStats& t) {
    return nlohmann::json{{"lines", t.lines}, {"characters", t.characters()}};
  };
  return {{"rule", "validation iff fnv1a64(line bytes without the newline) mod " +
                       std::to_string(kSplitModulus) + " < " + std::to_string(split.threshold)},
          {"hash", "fnv1a64"},
          {"modulus", kSplitModulus},
          {"threshold", split.threshold},
          {"share", o.share},
          {"min_chars", o.min_chars},
          {"input", o.text},
          {"input_checksum", split.input_checksum},
          {"train", part(split.train)},
          {"valid", part(split.valid)}};
}

bool is_all_upper_line(std::string_view line) {
  bool upper = false;
  for (size_t pos = 0; pos < line.size();) {
    const utf8::Decoded d = utf8::decode_one(line, pos);
    pos += d.length;
    if (!d.valid || !unicode::is_letter(d.code_point)) continue;
    if (unicode::is_lower(d.code_point)) return false;
    upper = upper || unicode::is_upper(d.code_point);
  }
  return upper;
}

nlohmann::json TextSlice::to_json() const {
  return {{"lines", lines},
          {"characters", characters},
          {"bits", bits},
          {"bpc", characters > 0 ? nlohmann::json(bits / static_cast<double>(characters))
                                 : nlohmann::json(nullptr)}};
}

StatusOr<LineSlices> slice_line_bits(const std::string& text_path,
                                     const std::vector<double>& line_bits) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(text_path, /*validate_utf8=*/true));
  LineSlices slices;
  std::string line;
  size_t index = 0;
  while (reader.next(&line)) {
    if (index < line_bits.size()) {
      TextSlice& slice = is_all_upper_line(line) ? slices.all_upper : slices.other;
      ++slice.lines;
      slice.characters += static_cast<int64_t>(utf8::length(line)) + 1;
      slice.bits += line_bits[index];
    }
    ++index;
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (index != line_bits.size()) {
    return invalid_argument(text_path + " has " + std::to_string(index) + " lines but " +
                                std::to_string(line_bits.size()) + " lines were scored",
                            "give the text whose ids were scored");
  }
  return slices;
}

}  // namespace morpheus::lm
