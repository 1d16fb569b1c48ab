// SPDX-License-Identifier: MIT
#include "core/word_counts.h"

#include <charconv>

#include "core/file_util.h"

namespace morpheus {

StatusOr<std::vector<std::pair<std::string, uint64_t>>> read_word_counts(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, true));
  std::vector<std::pair<std::string, uint64_t>> out;
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    std::string word = line.substr(0, tab);
    uint64_t count = 1;
    if (tab != std::string::npos) {
      const char* b = line.data() + tab + 1;
      const char* e = line.data() + line.size();
      const auto [p, ec] = std::from_chars(b, e, count);
      if (ec != std::errc() || p != e) {
        return invalid_argument(path + ":" + std::to_string(reader.line_number()) +
                                    ": expected word<TAB>count, got \"" + line + "\"",
                                "the words.tsv written by morpheus prepare has this format");
      }
    }
    if (word == "<unk>" || word.empty()) continue;
    out.emplace_back(std::move(word), count);
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out;
}

StatusOr<std::vector<std::string>> read_word_list(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(auto counts, read_word_counts(path));
  std::vector<std::string> words;
  words.reserve(counts.size());
  for (auto& entry : counts) words.push_back(std::move(entry.first));
  return words;
}

}  // namespace morpheus
