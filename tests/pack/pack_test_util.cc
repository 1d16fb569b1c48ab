// SPDX-License-Identifier: MIT
#include "tests/pack/pack_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "core/file_util.h"
#include "core/hash.h"
#include "tests/support/test_support.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/segment_table.h"
#include "tokenizer/segmenter.h"

namespace morpheus::pack::testing {
namespace {

using nlohmann::json;

size_t utf8_len(const std::string& s, size_t pos) {
  const auto c = static_cast<unsigned char>(s[pos]);
  return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

// Cuts every run in pieces of two code points.
class PairSegmenter : public tokenizer::Segmenter {
 public:
  std::string name() const override { return "pairs"; }
  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& runs) const override {
    tokenizer::Segmentation out;
    for (const std::string& run : runs) {
      std::vector<std::string> pieces;
      for (size_t pos = 0; pos < run.size();) {
        size_t end = pos;
        for (int k = 0; k < 2 && end < run.size(); ++k) end += utf8_len(run, end);
        pieces.push_back(run.substr(pos, end - pos));
        pos = end;
      }
      out.push_back(std::move(pieces));
    }
    return out;
  }
};

tokenizer::SegmenterSpec pair_model() {
  static const bool registered = [] {
    tokenizer::register_segmenter("pack-test-pairs", [](const tokenizer::SegmenterSpec&) {
      return StatusOr<std::unique_ptr<tokenizer::Segmenter>>(std::make_unique<PairSegmenter>());
    });
    return true;
  }();
  (void)registered;
  tokenizer::SegmenterSpec spec;
  spec.name = "pack-test-pairs";
  return spec;
}

// The i-th filler piece: "zq" and i in the letters a..j (distinct, never a table word).
std::string filler(size_t i) {
  std::string s = "zq";
  do {
    s += static_cast<char>('a' + i % 10);
    i /= 10;
  } while (i > 0);
  return s;
}

}  // namespace

std::string write_tokenizer_dir(const std::string& tag, size_t filler_pieces) {
  const std::string dir = morpheus::testing::make_temp_dir(tag);
  std::vector<std::string> pieces;
  for (size_t i = 0; i < filler_pieces; ++i) pieces.push_back(filler(i));
  for (const char* p : {"kitap", "lar", "ımız", "dan", "ev", "ler", "de", "ok", "ud", "um", " "}) {
    pieces.emplace_back(p);
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"kitaplarımızdan", {"kitap", "lar", "ımız", "dan"}},
      {"kitap", {"kitap"}},
      {"evlerde", {"ev", "ler", "de"}},
      {"okudum", {"ok", "ud", "um"}}};
  EXPECT_TRUE(
      write_file_atomic(path_join(dir, "pieces.json"), json{{"pieces", pieces}}.dump()).ok());
  EXPECT_TRUE(write_file_atomic(path_join(dir, tokenizer::kSegmentTableFile),
                                tokenizer::SegmentTable::serialize(table))
                  .ok());
  json files = json::object();
  for (const std::string f : {"pieces.json", tokenizer::kSegmentTableFile}) {
    files[f] = file_checksum(path_join(dir, f)).value();
  }
  const std::vector<std::string> specials = tokenizer::default_special_tokens();
  const json config = {{"format_version", tokenizer::kTokenizerFormatVersion},
                       {"kind", tokenizer::kTokenizerKind},
                       {"vocab_size", 259 + pieces.size() + specials.size()},
                       {"turkish_apostrophe", false},
                       {"files", files},
                       {"self_test", json::array()},
                       {"special_tokens", specials},
                       {"user_symbols", json::array()},
                       {"first_special_id", 259 + pieces.size()}};
  EXPECT_TRUE(write_file_atomic(path_join(dir, "morpheus.json"), config.dump()).ok());
  return dir;
}

std::unique_ptr<tokenizer::Tokenizer> load_tokenizer(const std::string& dir) {
  auto tok = tokenizer::Tokenizer::load(dir, false, pair_model());
  EXPECT_TRUE(tok.ok()) << tok.status().to_string();
  return tok.ok() ? std::move(*tok) : nullptr;
}

std::string write_lines(const std::string& tag, const std::string& name,
                        const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  const std::string path = path_join(morpheus::testing::make_temp_dir(tag), name);
  EXPECT_TRUE(write_file_atomic(path, text).ok());
  return path;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string jsonl(const std::string& text) { return json{{"text", text}}.dump(); }

std::vector<std::string> sample_texts() {
  return {"Kitaplarımızdan birini okudum.",
          "evlerde\nkitap\n\nİki satır ve bir \"tırnak\"\tsekme.",
          "",
          "😀 new words: Zıplayan çocuklar ĞÜŞİÖÇ",
          "KITAP kitap Kitap",
          "   ",
          "okudum okudum okudum evlerde kitaplarımızdan"};
}

}  // namespace morpheus::pack::testing
