// SPDX-License-Identifier: MIT
// PNG encoder: signature, chunk CRCs, IHDR size, and the IDAT stream inflated by a small
// fixed-Huffman inflater written here (independent of the encoder) back to the pixels.
#include "core/png.h"

#include <gtest/gtest.h>

#include <array>

#include "core/file_util.h"
#include "core/plot.h"
#include "tests/support/test_support.h"

namespace morpheus {
namespace {

uint32_t be32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

// Inflates a zlib stream holding fixed-Huffman (BTYPE 1) blocks; fails the test on anything else.
std::string inflate_fixed(const std::string& z) {
  size_t bitpos = 16;  // skip CMF/FLG
  auto bit = [&]() -> uint32_t {
    const uint32_t b = (static_cast<uint8_t>(z.at(bitpos / 8)) >> (bitpos % 8)) & 1u;
    ++bitpos;
    return b;
  };
  auto bits = [&](int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v |= bit() << i;
    return v;
  };
  static constexpr std::array<int, 29> kLen = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                               15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                               67, 83, 99, 115, 131, 163, 195, 227, 258};
  static constexpr std::array<int, 29> kLenX = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  std::string out;
  bool last = false;
  while (!last) {
    last = bit() == 1;
    EXPECT_EQ(bits(2), 1u) << "only fixed-Huffman blocks expected";
    while (true) {
      uint32_t code = 0;
      for (int i = 0; i < 7; ++i) code = (code << 1) | bit();
      uint32_t sym;
      if (code <= 23) {
        sym = 256 + code;
      } else {
        code = (code << 1) | bit();
        if (code >= 0x30 && code <= 0xBF) {
          sym = code - 0x30;
        } else if (code >= 0xC0 && code <= 0xC7) {
          sym = 280 + code - 0xC0;
        } else {
          code = (code << 1) | bit();
          sym = 144 + code - 0x190;
        }
      }
      if (sym < 256) {
        out += static_cast<char>(sym);
        continue;
      }
      if (sym == 256) break;
      const size_t li = sym - 257;
      const size_t len = static_cast<size_t>(kLen[li]) + bits(kLenX[li]);
      uint32_t dcode = 0;
      for (int i = 0; i < 5; ++i) dcode = (dcode << 1) | bit();
      size_t dist;
      if (dcode < 4) {
        dist = dcode + 1;
      } else {
        const int extra = static_cast<int>(dcode / 2 - 1);
        dist = ((2u + (dcode & 1u)) << extra) + 1 + bits(extra);
      }
      for (size_t i = 0; i < len; ++i) out += out.at(out.size() - dist);
    }
  }
  return out;
}

TEST(PngTest, Crc32AndAdler32KnownValues) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(adler32("Wikipedia"), 0x11E60398u);
}

TEST(PngTest, ZlibStreamInflatesBackToTheInput) {
  std::string data;
  for (int i = 0; i < 5000; ++i) data += static_cast<char>((i / 7) % 3 == 0 ? 'a' : i % 251);
  const std::string z = zlib_compress(data, 300);
  EXPECT_EQ((static_cast<uint8_t>(z[0]) * 256 + static_cast<uint8_t>(z[1])) % 31, 0);
  EXPECT_EQ(inflate_fixed(z), data);
  EXPECT_EQ(be32(z, z.size() - 4), adler32(data));
}

TEST(PngTest, ChartFileHasValidChunksAndPixels) {
  Canvas c = grouped_bar_chart("MorphScore macro-F1 (n=30193)", {"macro_f1", "micro_f1"},
                               {"morpheus", "bpe"}, {{0.61, 0.55}, {0.32, std::nullopt}});
  const std::string dir = testing::make_temp_dir("png");
  const std::string path = path_join(dir, "bars.png");
  ASSERT_TRUE(write_png(path, c).ok());
  auto bytes = read_file(path);
  ASSERT_TRUE(bytes.ok());
  const std::string& png = *bytes;
  ASSERT_EQ(png.compare(0, 8, "\x89PNG\r\n\x1a\n"), 0);
  size_t at = 8;
  std::string idat, types;
  while (at < png.size()) {
    const uint32_t len = be32(png, at);
    const std::string typed = png.substr(at + 4, 4 + len);
    EXPECT_EQ(be32(png, at + 8 + len), crc32(typed)) << typed.substr(0, 4);
    types += typed.substr(0, 4) + " ";
    if (typed.compare(0, 4, "IHDR") == 0) {
      EXPECT_EQ(be32(typed, 4), static_cast<uint32_t>(c.width()));
      EXPECT_EQ(be32(typed, 8), static_cast<uint32_t>(c.height()));
    }
    if (typed.compare(0, 4, "IDAT") == 0) idat += typed.substr(4);
    at += 12 + len;
  }
  EXPECT_EQ(types, "IHDR IDAT IEND ");
  const std::string raw = inflate_fixed(idat);
  const size_t stride = static_cast<size_t>(c.width()) * 3 + 1;
  ASSERT_EQ(raw.size(), stride * static_cast<size_t>(c.height()));
  for (size_t y = 0; y < static_cast<size_t>(c.height()); y += 37) {
    ASSERT_EQ(raw[y * stride], '\0');
    ASSERT_EQ(
        raw.compare(y * stride + 1, stride - 1,
                    std::string(reinterpret_cast<const char*>(c.pixels().data()) + y * (stride - 1),
                                stride - 1)),
        0);
  }
  EXPECT_LT(png.size(), raw.size() / 4);  // flat charts compress well
}

TEST(PngTest, TextDrawsInkInsideItsBox) {
  Canvas c(60, 20);
  c.text(2, 2, "Aİ1", {0, 0, 0}, 1);
  int ink = 0;
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 60; ++x) ink += c.get(x, y).r == 0;
  EXPECT_GT(ink, 20);
  EXPECT_EQ(c.get(30, 15).r, 255);
  EXPECT_EQ(Canvas::text_width("Aİ1", 2), 36);
}

}  // namespace
}  // namespace morpheus
