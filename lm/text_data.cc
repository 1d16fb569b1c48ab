// SPDX-License-Identifier: MIT
#include "lm/text_data.h"

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "lm/id_lines.h"

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

}  // namespace morpheus::lm
