// SPDX-License-Identifier: MIT
#include "lm_data/char_codec.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::lm {

namespace {
constexpr const char* kFormat = "morpheus-lm-chars";
constexpr int kVersion = 1;
}  // namespace

CharCodec CharCodec::from_code_points(std::vector<char32_t> code_points) {
  std::sort(code_points.begin(), code_points.end());
  code_points.erase(std::unique(code_points.begin(), code_points.end()), code_points.end());
  CharCodec codec;
  codec.code_points_ = std::move(code_points);
  for (size_t i = 0; i < codec.code_points_.size(); ++i) {
    codec.ids_[codec.code_points_[i]] = kByteIds + static_cast<int32_t>(i);
  }
  return codec;
}

StatusOr<CharCodec> CharCodec::train(const std::string& corpus_path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(corpus_path, /*validate_utf8=*/true));
  std::set<char32_t> seen;
  std::string line;
  while (reader.next(&line)) {
    for (size_t pos = 0; pos < line.size();) {
      const utf8::Decoded d = utf8::decode_one(line, pos);
      seen.insert(d.code_point);
      pos += d.length;
    }
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return from_code_points(std::vector<char32_t>(seen.begin(), seen.end()));
}

Status CharCodec::save(const std::string& path) const {
  std::vector<uint32_t> cps(code_points_.begin(), code_points_.end());
  const nlohmann::json j = {{"format", kFormat}, {"version", kVersion}, {"code_points", cps}};
  return write_file_atomic(path, j.dump() + "\n");
}

StatusOr<CharCodec> CharCodec::load(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(path));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  const std::string hint = "write one with: morpheus lm chars train --corpus FILE --out " + path;
  if (!j.is_object() || j.value("format", "") != kFormat || j.value("version", 0) != kVersion ||
      !j.contains("code_points") || !j.at("code_points").is_array()) {
    return data_loss(path + " is not a version-1 character codec", hint);
  }
  std::vector<char32_t> cps;
  for (const auto& v : j.at("code_points")) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > 0x10FFFF) {
      return data_loss(path + ": code point " + v.dump() + " out of range", hint);
    }
    cps.push_back(static_cast<char32_t>(v.get<uint64_t>()));
  }
  return from_code_points(std::move(cps));
}

Status CharCodec::encode(std::string_view text, std::vector<int32_t>* ids) const {
  ids->clear();
  for (size_t pos = 0; pos < text.size();) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (!d.valid) {
      return invalid_argument("invalid UTF-8 at byte " + std::to_string(pos) + " (" +
                              utf8::describe_bytes(text, pos) + ")");
    }
    const auto it = ids_.find(d.code_point);
    if (it != ids_.end()) {
      ids->push_back(it->second);
    } else {
      for (size_t b = 0; b < d.length; ++b) {
        ids->push_back(static_cast<int32_t>(static_cast<unsigned char>(text[pos + b])));
      }
    }
    pos += d.length;
  }
  return ok_status();
}

Status CharCodec::decode(const std::vector<int32_t>& ids, std::string* text) const {
  text->clear();
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (id < 0 || id >= vocab_size()) {
      return invalid_argument("id " + std::to_string(id) + " at position " + std::to_string(i) +
                                  " is outside [0, " + std::to_string(vocab_size()) + ")",
                              "decode ids written by the same character codec");
    }
    if (id < kByteIds) {
      text->push_back(static_cast<char>(static_cast<unsigned char>(id)));
    } else {
      utf8::append(code_points_[static_cast<size_t>(id - kByteIds)], *text);
    }
  }
  return ok_status();
}

}  // namespace morpheus::lm
