// SPDX-License-Identifier: MIT
#include "baselines/hybrid/hybrid_lexicon.h"

#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::tokenizer::hybrid {
namespace {

constexpr int64_t kMaxLexiconId = 1 << 24;
constexpr const char* kLexiconHint =
    "--lexicon must name a directory holding kokler.json, ekler.json and bpe_tokenler.json, "
    "each a flat JSON object {\"surface\": id}";

// 1-based line number of byte `pos` in `text`.
size_t line_of(const std::string& text, size_t pos) {
  size_t line = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

// SAX handler for one flat object {string: non-negative integer}; keeps file order.
class FlatObjectReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<std::pair<std::string, int64_t>> entries;
  std::string error;  // first error, empty when fine

  bool null() override { return fail("null value"); }
  bool boolean(bool /*val*/) override { return fail("boolean value"); }
  bool number_integer(number_integer_t val) override { return take(val); }
  bool number_unsigned(number_unsigned_t val) override {
    if (val > static_cast<number_unsigned_t>(kMaxLexiconId)) return fail("id too large");
    return take(static_cast<int64_t>(val));
  }
  bool number_float(number_float_t /*val*/, const string_t& s) override {
    return fail("non-integer id " + s);
  }
  bool string(string_t& /*val*/) override { return fail("string value (ids must be integers)"); }
  bool binary(binary_t& /*val*/) override { return fail("binary value"); }
  bool start_object(std::size_t /*elements*/) override {
    if (++depth_ > 1) return fail("nested object (expected a flat {\"surface\": id} object)");
    return true;
  }
  bool key(string_t& val) override {
    key_ = val;
    have_key_ = true;
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t /*elements*/) override { return fail("array value"); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    error_pos = position;
    if (error.empty()) error = ex.what();
    return false;
  }
  size_t error_pos = 0;
  bool saw_object() const { return seen_object_; }

 private:
  bool take(int64_t val) {
    if (depth_ != 1 || !have_key_) return fail("a top-level value that is not an object");
    seen_object_ = true;
    if (val < 0 || val > kMaxLexiconId) return fail("id " + std::to_string(val) + " out of range");
    entries.emplace_back(std::move(key_), val);
    have_key_ = false;
    return true;
  }
  bool fail(const std::string& what) {
    if (error.empty()) error = what + (have_key_ ? " for key \"" + key_ + "\"" : std::string());
    return false;
  }
  int depth_ = 0;
  bool have_key_ = false;
  bool seen_object_ = false;
  std::string key_;
};

StatusOr<std::vector<std::pair<std::string, int64_t>>> read_flat_object(const std::string& path) {
  if (!file_exists(path)) {
    return not_found("lexicon file " + path + " does not exist", kLexiconHint);
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(path));
  FlatObjectReader reader;
  const bool ok = nlohmann::json::sax_parse(text, &reader);
  if (!ok || !reader.error.empty()) {
    // The SAX parser stops right after the offending token; report its line.
    const size_t pos = reader.error_pos > 0 ? reader.error_pos : text.size();
    return data_loss(path + ": line " + std::to_string(line_of(text, pos)) +
                         ": malformed lexicon: " + reader.error,
                     kLexiconHint);
  }
  if (reader.entries.empty()) {
    return data_loss(path + ": malformed lexicon: no {\"surface\": id} entries", kLexiconHint);
  }
  return std::move(reader.entries);
}

}  // namespace

StatusOr<HybridLexicon> HybridLexicon::load(const std::string& dir) {
  if (!dir_exists(dir)) {
    return not_found("lexicon directory " + dir + " does not exist or is not a directory",
                     kLexiconHint);
  }
  HybridLexicon lex;
  std::unordered_map<std::string, std::string> file_of;  // surface → file, for duplicates
  const std::pair<const char*, Table> files[] = {
      {kRootsFile, Table::kRoot}, {kSuffixesFile, Table::kSuffix}, {kBpeFile, Table::kBpe}};
  int64_t max_id = -1;
  for (const auto& [name, table] : files) {
    const std::string path = path_join(dir, name);
    MORPHEUS_ASSIGN_OR_RETURN(auto entries, read_flat_object(path));
    for (auto& [surface, id] : entries) {
      if (surface.empty()) {
        return data_loss(
            path + ": malformed lexicon: empty surface string for id " + std::to_string(id),
            kLexiconHint);
      }
      if (!utf8::is_valid(surface)) {
        return data_loss(path + ": malformed lexicon: surface for id " + std::to_string(id) +
                             " is not valid UTF-8",
                         kLexiconHint);
      }
      auto [it, inserted] = file_of.emplace(surface, name);
      if (!inserted) {
        return data_loss(path + ": malformed lexicon: surface \"" + surface +
                             "\" appears twice (also in " + it->second + ")",
                         kLexiconHint);
      }
      max_id = std::max(max_id, id);
      Form f;
      f.text = std::move(surface);
      f.id = static_cast<int32_t>(id);
      f.table = table;
      lex.forms_.push_back(std::move(f));
    }
  }
  lex.forms_of_.assign(static_cast<size_t>(max_id + 1), {});
  std::vector<std::pair<std::string, int32_t>> keys;
  keys.reserve(lex.forms_.size());
  for (size_t i = 0; i < lex.forms_.size(); ++i) {
    Form& f = lex.forms_[i];
    auto& list = lex.forms_of_[static_cast<size_t>(f.id)];
    if (list.size() >= 0xFFFF) return data_loss("lexicon: too many forms for id " + f.text);
    f.index = static_cast<uint16_t>(list.size());
    list.push_back(static_cast<int32_t>(i));
    const int32_t marker = (f.id == kUppercaseId || f.id == kUnknownId) ? 4 : 0;
    keys.emplace_back(f.text,
                      (static_cast<int32_t>(i) << 3) | marker | static_cast<int32_t>(f.table));
  }
  for (int32_t special : {kUppercaseId, kUnknownId, kSpaceId}) {
    if (!lex.has_id(special)) {
      return data_loss(path_join(dir, kRootsFile) + ": malformed lexicon: special id " +
                           std::to_string(special) + " (<uppercase>, <unknown>, space) is missing",
                       kLexiconHint);
    }
  }
  lex.trie_.build(keys);
  return lex;
}

}  // namespace morpheus::tokenizer::hybrid
