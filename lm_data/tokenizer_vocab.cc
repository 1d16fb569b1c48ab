// SPDX-License-Identifier: MIT
#include "lm_data/tokenizer_vocab.h"

#include <nlohmann/json.hpp>

#include "baselines/hybrid/hybrid_tokenizer.h"
#include "core/file_util.h"
#include "core/json_config.h"
#include "lm_data/char_codec.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::lm {

namespace {

StatusOr<int64_t> json_field(const std::string& path, const std::string& key) {
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json j, load_json_file(path));
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number_integer() ||
      j.at(key).get<int64_t>() < 1) {
    return data_loss(path + " has no positive integer \"" + key + "\"",
                     "is this the directory the tokenizer's train or export wrote?");
  }
  return j.at(key).get<int64_t>();
}

// One piece per line (SentencePiece's .vocab file: "piece<TAB>score").
StatusOr<int64_t> piece_lines(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/false));
  std::string line;
  int64_t n = 0;
  while (reader.next(&line)) ++n;
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (n == 0) return data_loss(path + " lists no pieces", "train the model again");
  return n;
}

}  // namespace

StatusOr<int64_t> tokenizer_vocab_size(const std::string& kind, const std::string& path) {
  using tokenizer::hybrid::HybridMode;
  using tokenizer::hybrid::HybridTokenizer;
  if (kind == "morpheus") return json_field(tokenizer::tokenizer_config_path(path), "vocab_size");
  if (kind == "cbpe") return json_field(path_join(path, "cbpe.json"), "codec_vocab_size");
  if (kind == "spm") return piece_lines(path_join(path, "spm.vocab"));
  if (kind == "hybrid" || kind == "hybrid-lossless") {
    MORPHEUS_ASSIGN_OR_RETURN(
        HybridTokenizer tok, HybridTokenizer::load(path, kind == "hybrid" ? HybridMode::kReference
                                                                          : HybridMode::kLossless));
    return static_cast<int64_t>(tok.vocab_size());
  }
  if (kind == "chars") {
    MORPHEUS_ASSIGN_OR_RETURN(CharCodec codec, CharCodec::load(path));
    return codec.vocab_size();
  }
  return invalid_argument("unknown tokenizer kind '" + kind + "'",
                          "use morpheus, cbpe, spm, hybrid, hybrid-lossless or chars");
}

}  // namespace morpheus::lm
