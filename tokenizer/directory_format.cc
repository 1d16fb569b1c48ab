// SPDX-License-Identifier: MIT
// The tokenizer directory's format (directory_format.h): the config file's schema, the checked
// reads of the directory's files, the special-token rules.
#include "tokenizer/directory_format.h"

#include <algorithm>
#include <utility>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {

using nlohmann::json;

namespace {

// The checksum morpheus.json stores for `relative`, or DATA_LOSS.
StatusOr<std::string> stored_checksum(const std::string& dir, const json& config,
                                      const std::string& relative) {
  if (!lists_file(config, relative) || !config.at("files").at(relative).is_string()) {
    return data_loss(tokenizer_config_path(dir) + ": no checksum for " + relative,
                     "re-run morpheus export");
  }
  return config.at("files").at(relative).get<std::string>();
}

// Collects the strings of the top-level "pieces" array of a JSON document and nothing else:
// pieces.json also holds the counts, and a full parse would build a value for every one.
class PiecesSax : public json::json_sax_t {
 public:
  std::vector<std::string> pieces;
  bool found = false;
  std::string error;

  bool null() override { return other(); }
  bool boolean(bool) override { return other(); }
  bool number_integer(number_integer_t) override { return other(); }
  bool number_unsigned(number_unsigned_t) override { return other(); }
  bool number_float(number_float_t, const string_t&) override { return other(); }
  bool binary(binary_t&) override { return other(); }
  bool string(string_t& s) override {
    if (!in_pieces()) return other();
    pieces.push_back(std::move(s));
    return true;
  }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && key_is_pieces_) found = true;
    return open();
  }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) key_is_pieces_ = k == "pieces";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  bool in_pieces() const { return depth_ == 2 && key_is_pieces_; }
  // A value other than a string: inside the pieces array it is an error.
  bool other() {
    if (!in_pieces()) return true;
    error = "a piece is not a string";
    return false;
  }
  bool open() {
    if (in_pieces()) return other();
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  bool key_is_pieces_ = false;
};

}  // namespace

bool lists_file(const json& config, const std::string& relative) {
  const auto files = config.find("files");
  return files != config.end() && files->is_object() && files->contains(relative);
}

Status verify_tokenizer_bytes(const std::string& dir, const json& config,
                              const std::string& relative, std::string_view bytes) {
  MORPHEUS_ASSIGN_OR_RETURN(const std::string want, stored_checksum(dir, config, relative));
  if (!checksum_matches(bytes, want)) {
    return data_loss(
        path_join(dir, relative) + " does not match the checksum stored at export (" + want + ")",
        "the file was swapped or damaged; re-run morpheus export");
  }
  return ok_status();
}

Status read_tokenizer_file(const std::string& dir, const json& config, const std::string& relative,
                           std::string* content) {
  MORPHEUS_RETURN_IF_ERROR(stored_checksum(dir, config, relative).status());
  MORPHEUS_ASSIGN_OR_RETURN(*content, read_file(path_join(dir, relative)));
  return verify_tokenizer_bytes(dir, config, relative, *content);
}

StatusOr<std::shared_ptr<const MappedFile>> map_tokenizer_file(const std::string& dir,
                                                               const json& config,
                                                               const std::string& relative) {
  MORPHEUS_RETURN_IF_ERROR(stored_checksum(dir, config, relative).status());
  MORPHEUS_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file,
                            MappedFile::open(path_join(dir, relative)));
  MORPHEUS_RETURN_IF_ERROR(verify_tokenizer_bytes(dir, config, relative, file->bytes()));
  return file;
}

StatusOr<std::string> tokenizer_file_checksum(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::open(path));
  return tokenizer_checksum(file->bytes());
}

std::string tokenizer_checksum(std::string_view bytes) { return fast_checksum_tag(bytes); }

std::string directory_segmenter(const json& config) {
  const json& entry = config.value("segmenter", json::object());
  return entry.is_object() ? entry.value("name", std::string(kModelSegmenter)) : kModelSegmenter;
}

StatusOr<json> spec_directory_config(const SegmenterSpec& spec) {
  if (spec.directory_config != nullptr) return *spec.directory_config;
  return load_json_file(tokenizer_config_path(spec.path));
}

std::string tokenizer_config_path(const std::string& dir) {
  const std::string current = path_join(dir, kTokenizerConfigFile);
  if (file_exists(current)) return current;
  const std::string old = path_join(dir, kOldTokenizerConfigFile);
  return file_exists(old) ? old : current;
}

Status verify_tokenizer_file(const std::string& dir, const json& config,
                             const std::string& relative) {
  std::string content;
  return read_tokenizer_file(dir, config, relative, &content);
}

Status check_tokenizer_config(const std::string& dir, const json& config) {
  const std::string config_path = tokenizer_config_path(dir);
  if (!config.is_object() || config.value("kind", "") != kTokenizerKind ||
      !config.contains("format_version") || !config["format_version"].is_number_integer()) {
    return data_loss(config_path + ": not a Morpheus tokenizer config (kind/format_version)",
                     "re-run morpheus export");
  }
  const int version = config["format_version"].get<int>();
  if (version < kTokenizerOldestFormatVersion || version > kTokenizerFormatVersion) {
    return invalid_argument(
        config_path + ": format_version " + std::to_string(version) +
            " is not supported (this build reads " + std::to_string(kTokenizerOldestFormatVersion) +
            " to " + std::to_string(kTokenizerFormatVersion) + ")",
        "re-export the tokenizer with this build: morpheus export --checkpoint <run>/final "
        "--data <prepared dir> --out " +
            dir);
  }
  return ok_status();
}

PieceCodecOptions config_codec_options(const json& config) {
  PieceCodecOptions options;
  options.turkish_case = config.value("turkish_case", true);
  options.vocabulary_backoff = true;
  options.turkish_apostrophe = config.value("turkish_apostrophe", false);
  if (config.value("format_version", 0) >= 4 && config.contains("stream")) {
    const json& stream = config["stream"];
    options.word_initial = stream.value("word_initial", false);
    options.line_start_prefix = stream.value("line_start_prefix", false);
    options.merge_pieces = stream.value("merge_pieces", false);
  }
  return options;
}

double directory_threshold(const json& config) { return config.value("threshold", 0.0); }

StatusOr<std::vector<std::string>> read_pieces_file(const std::string& dir, const json& config) {
  std::string text;
  MORPHEUS_RETURN_IF_ERROR(read_tokenizer_file(dir, config, kPiecesFile, &text));
  PiecesSax sax;
  if (!json::sax_parse(text, &sax) || !sax.found) {
    return data_loss(path_join(dir, kPiecesFile) + ": no \"pieces\" string array" +
                         (sax.error.empty() ? "" : " (" + sax.error + ")"),
                     "re-run morpheus export");
  }
  return std::move(sax.pieces);
}

std::vector<std::string> default_special_tokens() { return {"<pad>", "<s>", "</s>", "<mask>"}; }

Status check_special_tokens(const std::vector<std::string>& special_tokens,
                            const std::vector<std::string>& user_symbols) {
  std::vector<std::string> seen;
  for (const auto* list : {&special_tokens, &user_symbols}) {
    const std::string kind = list == &special_tokens ? "special token" : "user symbol";
    for (const std::string& s : *list) {
      const std::string named = kind + " \"" + s + "\"";
      if (s.empty()) return invalid_argument("an empty " + kind, "drop the empty entry");
      if (!utf8::is_valid(s)) return invalid_argument(kind + " is not valid UTF-8");
      if (s.find_first_of(" \t\r\n") != std::string::npos) {
        return invalid_argument(named + " contains white space",
                                "special tokens and user symbols are single words");
      }
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) {
        return invalid_argument(named + " is given twice",
                                "each string may be one special token or one user symbol");
      }
      seen.push_back(s);
    }
  }
  return ok_status();
}

}  // namespace morpheus::tokenizer
