// SPDX-License-Identifier: MIT
#include "lm_data/id_lines.h"

#include <charconv>
#include <numeric>

#include "core/file_util.h"

namespace morpheus::lm {

Status parse_id_line(std::string_view line, std::vector<int32_t>* ids) {
  ids->clear();
  const auto is_gap = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  size_t pos = 0;
  while (pos < line.size()) {
    if (is_gap(line[pos])) {
      ++pos;
      continue;
    }
    size_t end = pos;
    while (end < line.size() && !is_gap(line[end])) ++end;
    const std::string_view token = line.substr(pos, end - pos);
    int32_t id = -1;
    const auto [stop, ec] = std::from_chars(token.data(), token.data() + token.size(), id);
    if (ec != std::errc() || stop != token.data() + token.size() || id < 0) {
      return invalid_argument("\"" + std::string(token) + "\" is not a token id",
                              "an ids file holds the output of a tokenizer's encode command");
    }
    ids->push_back(id);
    pos = end;
  }
  return ok_status();
}

StatusOr<IdLines> read_id_lines(const std::string& path, int64_t vocab_size) {
  if (vocab_size < 1) return invalid_argument("vocabulary size must be >= 1");
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/false));
  IdLines out;
  out.vocab_size = vocab_size;
  out.offsets.push_back(0);
  std::string line;
  std::vector<int32_t> ids;
  while (reader.next(&line)) {
    const std::string where = path + ": line " + std::to_string(reader.line_number());
    Status parsed = parse_id_line(line, &ids);
    if (!parsed.ok()) return parsed.prepend(where);
    for (int32_t id : ids) {
      if (id >= vocab_size) {
        return invalid_argument(where + ": id " + std::to_string(id) + " >= vocabulary size " +
                                    std::to_string(vocab_size),
                                "pass the vocabulary size of the tokenizer that wrote the ids");
      }
    }
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    out.offsets.push_back(static_cast<int64_t>(out.ids.size()));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (out.num_lines() == 0) {
    return invalid_argument(path + " holds no lines", "encode a non-empty text first");
  }
  return out;
}

std::vector<int64_t> line_order(size_t n, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  // splitmix64 over (seed, epoch): the same permutation on every platform.
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(epoch) + 1;
  auto next = [&state] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[next() % i]);
  return order;
}

std::vector<int32_t> token_stream(const IdLines& lines, const std::vector<int64_t>& order) {
  std::vector<int32_t> stream;
  stream.reserve(static_cast<size_t>(lines.stream_tokens()));
  stream.push_back(lines.eol());
  const size_t n = lines.num_lines();
  for (size_t k = 0; k < n; ++k) {
    const auto i = order.empty() ? k : static_cast<size_t>(order[k]);
    stream.insert(stream.end(), lines.ids.begin() + lines.offsets[i],
                  lines.ids.begin() + lines.offsets[i + 1]);
    stream.push_back(lines.eol());
  }
  return stream;
}

}  // namespace morpheus::lm
