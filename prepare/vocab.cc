// SPDX-License-Identifier: MIT
#include "prepare/vocab.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::train {

CountVocab CountVocab::build(const std::unordered_map<std::u32string, uint64_t>& counts,
                             uint32_t size, uint64_t min_count) {
  std::vector<std::pair<std::u32string, uint64_t>> sorted;
  for (const auto& kv : counts) {
    if (kv.second >= min_count) sorted.push_back(kv);
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  CountVocab vocab;
  vocab.entries_.emplace_back(U"<unk>", 0);
  for (auto& kv : sorted) {
    if (vocab.entries_.size() >= size) break;
    vocab.index_.emplace(kv.first, static_cast<uint32_t>(vocab.entries_.size()));
    vocab.entries_.push_back(std::move(kv));
  }
  return vocab;
}

uint32_t CountVocab::id(const std::u32string& s) const {
  auto it = index_.find(s);
  return it == index_.end() ? 0 : it->second;
}

Status CountVocab::save(const std::string& path) const {
  std::string text;
  for (const auto& [s, n] : entries_) text += utf8::encode(s) + "\t" + std::to_string(n) + "\n";
  return write_file_atomic(path, text);
}

StatusOr<CountVocab> CountVocab::load(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  CountVocab vocab;
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files, as every reader
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      return data_loss(path + ": line " + std::to_string(reader.line_number()) +
                       ": expected string<TAB>count");
    }
    // The whole field must be a decimal uint64: no sign, space or trailing characters.
    const char* const begin = line.data() + tab + 1;
    const char* const end = line.data() + line.size();
    uint64_t count = 0;
    const auto [stop, ec] = std::from_chars(begin, end, count);
    if (ec != std::errc() || stop != end) {
      return data_loss(path + ": line " + std::to_string(reader.line_number()) +
                           ": expected string<TAB>count with a decimal count in [0, 2^64), got \"" +
                           std::string(begin, end) + "\"",
                       "words.tsv and roots.tsv are written by morpheus prepare");
    }
    MORPHEUS_ASSIGN_OR_RETURN(std::u32string s, utf8::decode(line.substr(0, tab)));
    if (!vocab.entries_.empty()) {
      vocab.index_.emplace(s, static_cast<uint32_t>(vocab.entries_.size()));
    }
    vocab.entries_.emplace_back(std::move(s), count);
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (vocab.entries_.empty()) return data_loss(path + ": empty vocabulary");
  return vocab;
}

}  // namespace morpheus::train
