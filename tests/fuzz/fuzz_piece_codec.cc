// SPDX-License-Identifier: MIT
// Fuzz target: PieceCodec (tokenizer/piece_codec.h) over a small fixed vocabulary and four word
// segmenters (none, greedy longest match, byte pairs that may split code points, and one that
// returns pieces that do not concatenate back). encode→decode is the identity (valid UTF-8, or
// any bytes with allow_invalid), every id is in range, word-start flags match the ids, invalid
// UTF-8 without allow_invalid is an error, and decoding arbitrary ids never crashes.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/check.h"
#include "core/utf8.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/piece_codec.h"

namespace {

using morpheus::tokenizer::PieceCodec;

const std::vector<std::string>& codec_pieces() {
  static const std::vector<std::string> pieces = {"ev",
                                                  "ler",
                                                  "lar",
                                                  "de",
                                                  "da",
                                                  "i",
                                                  "ı",
                                                  "ş",
                                                  "ç",
                                                  "ğ",
                                                  "ö",
                                                  "ü",
                                                  "a",
                                                  "e",
                                                  "k",
                                                  "t",
                                                  "st",
                                                  "an",
                                                  "bul",
                                                  "kitap",
                                                  " ",
                                                  "  ",
                                                  ".",
                                                  ",",
                                                  "'",
                                                  "1",
                                                  "23",
                                                  "\n",
                                                  "\xcc\x87",
                                                  "i\xcc\x87",
                                                  "\xf0\x9f\x98\x80",
                                                  "\xc3\xa2"};
  return pieces;
}

std::vector<std::string> greedy_pieces(std::string_view word) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < word.size()) {
    size_t best = 0;
    for (const std::string& p : codec_pieces()) {
      if (p.size() > best && word.compare(pos, p.size(), p) == 0) best = p.size();
    }
    if (best == 0) best = std::max<size_t>(1, morpheus::utf8::decode_one(word, pos).length);
    out.emplace_back(word.substr(pos, best));
    pos += best;
  }
  return out;
}

std::vector<std::string> byte_pairs(std::string_view word) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < word.size(); pos += 2) out.emplace_back(word.substr(pos, 2));
  return out;
}

std::vector<std::string> broken_pieces(std::string_view word) {
  return {std::string(word.substr(0, word.size() / 2)), "x", std::string(word)};
}

using CutFn = std::vector<std::string> (*)(std::string_view);

// A Segmenter over one of the cut functions above.
class FnSegmenter : public morpheus::tokenizer::WordSegmenter {
 public:
  explicit FnSegmenter(CutFn fn) : fn_(fn) {}
  std::vector<std::string> cut(std::string_view word) const override { return fn_(word); }
  std::string name() const override { return "fuzz-fn"; }

 private:
  CutFn fn_;
};

// The stream layout's codecs (variant & 8) add word-initial pieces and joins of pieces.
std::vector<std::string> stream_pieces() {
  std::vector<std::string> pieces = codec_pieces();
  for (const char* p : {" kitap", " ev", " st", " ,", " 1", " \xc3\xa2", " 23", "evler", "stan",
                        "kitapst", " evler"}) {
    if (std::find(pieces.begin(), pieces.end(), p) == pieces.end()) pieces.emplace_back(p);
  }
  return pieces;
}

const PieceCodec& codec_for(unsigned variant) {
  static std::array<std::unique_ptr<PieceCodec>, 16> codecs;
  std::unique_ptr<PieceCodec>& slot = codecs[variant % 16];
  if (!slot) {
    CutFn fn = nullptr;
    switch (variant % 4) {
      case 1:
        fn = greedy_pieces;
        break;
      case 2:
        fn = byte_pairs;
        break;
      case 3:
        fn = broken_pieces;
        break;
      default:
        break;
    }
    morpheus::tokenizer::PieceCodecOptions options;
    options.turkish_case = (variant / 4) % 2 == 0;
    options.cache_capacity = variant % 3 == 0 ? 0 : 64;
    const bool stream = (variant & 8u) != 0;
    options.word_initial = stream;
    options.line_start_prefix = stream && variant % 2 == 0;
    options.merge_pieces = stream;
    std::shared_ptr<const morpheus::tokenizer::Segmenter> segmenter;
    if (fn != nullptr) segmenter = std::make_shared<FnSegmenter>(fn);
    auto made = PieceCodec::create(stream ? stream_pieces() : codec_pieces(), segmenter, options);
    MORPHEUS_CHECK(made.ok(), made.status().to_string());
    slot = std::make_unique<PieceCodec>(std::move(made).value());
  }
  return *slot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  morpheus::fuzz::InputReader in(data, size);
  const uint8_t mode = in.byte();
  const PieceCodec& codec = codec_for((mode & 7u) | ((mode & 16u) != 0 ? 8u : 0u));
  const bool allow_invalid = (mode & 8u) != 0;
  const std::string_view text = in.rest();
  const bool valid = morpheus::utf8::is_valid(text);

  std::vector<int32_t> ids;
  std::vector<uint8_t> starts;
  const morpheus::Status st = codec.encode(text, &ids, &starts, allow_invalid);
  if (!valid && !allow_invalid) {
    MORPHEUS_CHECK(!st.ok(), "invalid UTF-8 accepted without allow_invalid");
  } else {
    MORPHEUS_CHECK(st.ok(), "encode failed: ", st.to_string());
    MORPHEUS_CHECK(starts.size() == ids.size(), "word-start flags do not match the ids");
    MORPHEUS_CHECK(text.empty() || (!starts.empty() && starts[0] == 1), "first id not a start");
    for (int32_t id : ids) MORPHEUS_CHECK(id >= 0 && id < codec.vocab_size(), "id out of range");
    std::string back;
    const morpheus::Status dst = codec.decode(ids, &back);
    MORPHEUS_CHECK(dst.ok(), "decode of encoded ids failed: ", dst.to_string());
    MORPHEUS_CHECK(back == text, "decode(encode(s)) != s");
    for (int32_t id : ids) (void)codec.id_to_string(id);
  }
  if (valid) {
    auto pieces = codec.segment_word(text);
    if (pieces.ok()) {
      std::string joined;
      for (const std::string& p : *pieces) joined += p;
      MORPHEUS_CHECK(joined == text, "segment_word pieces do not concatenate to the word");
    }
  }
  // Arbitrary ids: two bytes each, some out of range; decode returns a Status, never crashes.
  std::vector<int32_t> raw;
  for (size_t i = 0; i + 1 < text.size(); i += 2) {
    raw.push_back(static_cast<int32_t>(static_cast<uint8_t>(text[i])) * 2 +
                  static_cast<int32_t>(static_cast<uint8_t>(text[i + 1]) % 4) - 4);
  }
  std::string out;
  (void)codec.decode(raw, &out);
  return 0;
}
