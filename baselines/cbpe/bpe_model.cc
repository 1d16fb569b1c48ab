// SPDX-License-Identifier: MIT
// BpeModel: vocabulary/merge files and greedy rank-based segment encoding.
#include "baselines/cbpe/bpe_model.h"

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::tokenizer::cbpe {
namespace {

uint64_t bpe_pair_key(int64_t a, int64_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) |
         static_cast<uint64_t>(static_cast<uint32_t>(b));
}

}  // namespace

StatusOr<BpeModel> BpeModel::create(std::vector<std::string> tokens, std::vector<Merge> merges) {
  BpeModel model;
  model.tokens_ = std::move(tokens);
  model.merges_ = std::move(merges);
  model.ids_.reserve(model.tokens_.size() * 2);
  for (size_t i = 0; i < model.tokens_.size(); ++i) {
    const std::string& t = model.tokens_[i];
    if (t.empty()) return data_loss("token " + std::to_string(i) + " is empty");
    if (!utf8::is_valid(t)) return data_loss("token " + std::to_string(i) + " is not UTF-8");
    // A later duplicate overwrites the id (the reference's dict semantics).
    model.ids_[t] = static_cast<int32_t>(i);
    if (static_cast<int32_t>(i) >= kNumSpecials && utf8::length(t) == 1) {
      model.char_ids_[utf8::decode_one(t, 0).code_point] = static_cast<int32_t>(i);
    }
  }
  model.ranks_.reserve(model.merges_.size() * 2);
  for (size_t r = 0; r < model.merges_.size(); ++r) {
    const Merge& m = model.merges_[r];
    const int32_t a = model.token_id(m.first);
    const int32_t b = model.token_id(m.second);
    const int32_t c = model.token_id(m.first + m.second);
    if (a < 0 || b < 0 || c < 0) {
      return data_loss("merge " + std::to_string(r + 1) + " (\"" + m.first + "\" \"" + m.second +
                           "\") uses a token missing from the vocabulary",
                       "vocab.json and merges.txt must come from the same training run");
    }
    // A duplicated pair keeps its last rank, as in the reference.
    model.ranks_[bpe_pair_key(a, b)] = {static_cast<int32_t>(r), c};
  }
  return model;
}

int32_t BpeModel::token_id(std::string_view token) const {
  const auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

void BpeModel::merge_symbols(std::u32string_view segment, std::vector<int64_t>* symbols) const {
  symbols->clear();
  for (const char32_t cp : segment) {
    const auto it = char_ids_.find(cp);
    symbols->push_back(it == char_ids_.end() ? -1 - static_cast<int64_t>(cp) : it->second);
  }
  while (symbols->size() >= 2) {
    int32_t best_rank = INT32_MAX;
    size_t best_pos = 0;
    int32_t best_id = -1;
    for (size_t i = 0; i + 1 < symbols->size(); ++i) {
      const int64_t a = (*symbols)[i];
      const int64_t b = (*symbols)[i + 1];
      if (a < 0 || b < 0) continue;
      const auto it = ranks_.find(bpe_pair_key(a, b));
      if (it != ranks_.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        best_pos = i;
        best_id = it->second.second;
      }
    }
    if (best_id < 0) break;
    (*symbols)[best_pos] = best_id;
    symbols->erase(symbols->begin() + static_cast<std::ptrdiff_t>(best_pos) + 1);
  }
}

void BpeModel::encode(std::u32string_view segment, std::vector<int32_t>* ids) const {
  std::vector<int64_t> symbols;
  merge_symbols(segment, &symbols);
  for (const int64_t s : symbols) ids->push_back(s < 0 ? kUnkId : static_cast<int32_t>(s));
}

void BpeModel::encode_pieces(std::u32string_view segment, std::vector<std::string>* pieces) const {
  std::vector<int64_t> symbols;
  merge_symbols(segment, &symbols);
  for (const int64_t s : symbols) {
    if (s < 0) {
      pieces->push_back(utf8::encode(static_cast<char32_t>(-1 - s)));
    } else {
      pieces->push_back(tokens_[static_cast<size_t>(s)]);
    }
  }
}

std::string BpeModel::vocab_json() const {
  if (tokens_.empty()) return "{}";
  std::string out = "{\n";
  for (size_t i = 0; i < tokens_.size(); ++i) {
    out += "  ";
    out += nlohmann::json(tokens_[i]).dump();
    out += ": ";
    out += std::to_string(i);
    out += i + 1 < tokens_.size() ? ",\n" : "\n";
  }
  out += "}";
  return out;
}

std::string BpeModel::merges_text() const {
  std::string out;
  for (const Merge& m : merges_) {
    out += m.first;
    out += '\t';
    out += m.second;
    out += '\n';
  }
  return out;
}

Status BpeModel::save(const std::string& vocab_path, const std::string& merges_path) const {
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(vocab_path, vocab_json()));
  return write_file_atomic(merges_path, merges_text());
}

StatusOr<BpeModel> BpeModel::load(const std::string& vocab_path, const std::string& merges_path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string vocab_text, read_file(vocab_path));
  nlohmann::json vocab = nlohmann::json::parse(vocab_text, nullptr, /*allow_exceptions=*/false);
  if (vocab.is_discarded() || !vocab.is_object()) {
    return data_loss(vocab_path + ": not a JSON object of token -> id",
                     "the file is corrupt; retrain or restore the model directory");
  }
  std::vector<std::string> tokens(vocab.size());
  std::vector<bool> seen(vocab.size(), false);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_integer()) {
      return data_loss(vocab_path + ": id of token \"" + it.key() + "\" is not an integer");
    }
    const int64_t id = it.value().get<int64_t>();
    if (id < 0 || id >= static_cast<int64_t>(tokens.size()) || seen[static_cast<size_t>(id)]) {
      return data_loss(vocab_path + ": id " + std::to_string(id) + " of token \"" + it.key() +
                           "\" is out of range or repeated",
                       "ids must be 0..N-1, each once");
    }
    seen[static_cast<size_t>(id)] = true;
    tokens[static_cast<size_t>(id)] = it.key();
  }
  if (tokens.size() < static_cast<size_t>(kNumSpecials)) {
    return data_loss(vocab_path + ": fewer than the 4 special tokens");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string merges_raw, read_file(merges_path));
  std::vector<Merge> merges;
  size_t pos = 0;
  size_t line_no = 0;
  while (pos < merges_raw.size()) {
    size_t end = merges_raw.find('\n', pos);
    if (end == std::string::npos) end = merges_raw.size();
    const std::string_view line(merges_raw.data() + pos, end - pos);
    ++line_no;
    pos = end + 1;
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos || tab == 0 || tab + 1 >= line.size() ||
        line.find('\t', tab + 1) != std::string_view::npos) {
      return data_loss(merges_path + ":" + std::to_string(line_no) +
                           ": expected \"left<TAB>right\", got \"" + std::string(line) + "\"",
                       "the file is corrupt; retrain or restore the model directory");
    }
    merges.emplace_back(std::string(line.substr(0, tab)), std::string(line.substr(tab + 1)));
  }
  StatusOr<BpeModel> model = create(std::move(tokens), std::move(merges));
  if (!model.ok()) {
    return data_loss(merges_path + ": " + model.status().message(), model.status().hint());
  }
  return model;
}

}  // namespace morpheus::tokenizer::cbpe
