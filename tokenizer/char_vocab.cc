// SPDX-License-Identifier: MIT
#include "tokenizer/char_vocab.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {

CharVocab CharVocab::build(const std::unordered_map<char32_t, uint64_t>& counts, double coverage,
                           uint64_t min_count, const std::u32string& always) {
  std::vector<std::pair<char32_t, uint64_t>> sorted(counts.begin(), counts.end());
  for (char32_t c : always) {
    if (counts.count(c) == 0) sorted.emplace_back(c, 0);
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  uint64_t total = 0;
  for (const auto& kv : counts) total += kv.second;
  CharVocab vocab;
  uint64_t covered = 0;
  for (const auto& [c, n] : sorted) {
    const bool forced = always.find(c) != std::u32string::npos;
    const bool reached =
        total > 0 && static_cast<double>(covered) >= coverage * static_cast<double>(total);
    if (!forced && (n < min_count || reached)) continue;
    vocab.index_.emplace(c, static_cast<uint32_t>(vocab.chars_.size()) + kNumSpecials);
    vocab.chars_.push_back(c);
    vocab.counts_.push_back(n);
    covered += n;
  }
  vocab.coverage_ = total == 0 ? 1.0 : static_cast<double>(covered) / static_cast<double>(total);
  return vocab;
}

uint32_t CharVocab::id(char32_t c) const {
  auto it = index_.find(c);
  return it == index_.end() ? kUnk : it->second;
}

Status CharVocab::save(const std::string& path) const {
  nlohmann::json j;
  j["specials"] = {"<pad>", "<unk>", "<bos>", "<eos>"};
  j["chars"] = nlohmann::json::array();
  for (char32_t c : chars_) j["chars"].push_back(utf8::encode(c));
  j["counts"] = counts_;
  j["coverage"] = coverage_;
  return write_file_atomic(path, j.dump(1) + "\n");
}

StatusOr<CharVocab> CharVocab::load(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json j, load_json_file(path));
  CharVocab vocab;
  try {
    const auto& chars = j.at("chars");
    for (size_t i = 0; i < chars.size(); ++i) {
      MORPHEUS_ASSIGN_OR_RETURN(std::u32string cps, utf8::decode(chars[i].get<std::string>()));
      if (cps.size() != 1) {
        return data_loss(path + ": chars[" + std::to_string(i) + "] is not one character");
      }
      vocab.index_.emplace(cps[0], static_cast<uint32_t>(vocab.chars_.size()) + kNumSpecials);
      vocab.chars_.push_back(cps[0]);
    }
    vocab.counts_ = j.at("counts").get<std::vector<uint64_t>>();
    vocab.coverage_ = j.value("coverage", 1.0);
  } catch (const nlohmann::json::exception& e) {
    return data_loss(path + ": not a character vocabulary: " + e.what());
  }
  if (vocab.counts_.size() != vocab.chars_.size()) {
    return data_loss(path + ": 'chars' and 'counts' differ in length");
  }
  return vocab;
}

}  // namespace morpheus::tokenizer
