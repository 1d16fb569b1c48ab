// SPDX-License-Identifier: MIT
// Canvas drawing, the 5×7 bitmap font, and the PNG/zlib/deflate encoder.
#include "core/png.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <unordered_map>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus {
namespace {

// 5×7 glyphs, one string per row, '#' = ink. Drawn for this project.
struct Glyph {
  char ch;
  const char* rows[7];
};
constexpr Glyph kGlyphs[] = {
    {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"####.", "....#", "....#", ".###.", "....#", "....#", "####."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {".###.", "#....", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "....#", ".###."}},
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'C', {".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}},
    {'D', {"####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'F', {"#####", "#....", "#....", "####.", "#....", "#....", "#...."}},
    {'G', {".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}},
    {'H', {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'I', {".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'J', {"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}},
    {'K', {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}},
    {'L', {"#....", "#....", "#....", "#....", "#....", "#....", "#####"}},
    {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
    {'N', {"#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"}},
    {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'P', {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}},
    {'Q', {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}},
    {'R', {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}},
    {'S', {".####", "#....", "#....", ".###.", "....#", "....#", "####."}},
    {'T', {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'U', {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'V', {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'W', {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}},
    {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
    {'Y', {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}},
    {'Z', {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {',', {".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."}},
    {':', {".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}},
    {';', {".....", ".##..", ".##..", ".....", ".##..", "..#..", ".#..."}},
    {'-', {".....", ".....", ".....", "#####", ".....", ".....", "....."}},
    {'_', {".....", ".....", ".....", ".....", ".....", ".....", "#####"}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'=', {".....", ".....", "#####", ".....", "#####", ".....", "....."}},
    {'%', {"##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"}},
    {'/', {".....", "....#", "...#.", "..#..", ".#...", "#....", "....."}},
    {'(', {"...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."}},
    {')', {".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."}},
    {'[', {".###.", ".#...", ".#...", ".#...", ".#...", ".#...", ".###."}},
    {']', {".###.", "...#.", "...#.", "...#.", "...#.", "...#.", ".###."}},
    {'<', {"...#.", "..#..", ".#...", "#....", ".#...", "..#..", "...#."}},
    {'>', {".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#..."}},
    {'@', {".###.", "#...#", "#.###", "#.#.#", "#.###", "#....", ".###."}},
    {'#', {".#.#.", ".#.#.", "#####", ".#.#.", "#####", ".#.#.", ".#.#."}},
    {'\'', {"..#..", "..#..", ".#...", ".....", ".....", ".....", "....."}},
    {'"', {".#.#.", ".#.#.", ".....", ".....", ".....", ".....", "....."}},
    {'!', {"..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."}},
    {'?', {".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."}},
    {'*', {".....", "#.#.#", ".###.", "#####", ".###.", "#.#.#", "....."}},
    {'&', {".##..", "#..#.", "#.#..", ".#...", "#.#.#", "#..#.", ".##.#"}},
    {'|', {"..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'^', {"..#..", ".#.#.", "#...#", ".....", ".....", ".....", "....."}},
};

const Glyph* glyph_for(char32_t cp) {
  static const std::unordered_map<char32_t, const Glyph*> table = [] {
    std::unordered_map<char32_t, const Glyph*> t;
    for (const Glyph& g : kGlyphs) t[static_cast<char32_t>(g.ch)] = &g;
    return t;
  }();
  switch (cp) {
    case U'ç':
    case U'Ç':
      cp = U'C';
      break;
    case U'ğ':
    case U'Ğ':
      cp = U'G';
      break;
    case U'ı':
    case U'İ':
      cp = U'I';
      break;
    case U'ö':
    case U'Ö':
      cp = U'O';
      break;
    case U'ş':
    case U'Ş':
      cp = U'S';
      break;
    case U'ü':
    case U'Ü':
      cp = U'U';
      break;
    case U'â':
    case U'Â':
      cp = U'A';
      break;
    case U'î':
    case U'Î':
      cp = U'I';
      break;
    case U'û':
    case U'Û':
      cp = U'U';
      break;
    default:
      break;
  }
  if (cp >= U'a' && cp <= U'z') cp = cp - U'a' + U'A';
  auto it = table.find(cp);
  return it != table.end() ? it->second : table.at(U'?');
}

std::vector<char32_t> code_points(std::string_view s) {
  std::vector<char32_t> out;
  for (size_t pos = 0; pos < s.size();) {
    const utf8::Decoded d = utf8::decode_one(s, pos);
    out.push_back(d.code_point);
    pos += d.length;
  }
  return out;
}

// LSB-first bit writer for deflate.
class BitWriter {
 public:
  void bits(uint32_t value, int count) {
    for (int i = 0; i < count; ++i) put((value >> i) & 1u);
  }
  // Huffman codes are sent most-significant bit first.
  void code(uint32_t value, int count) {
    for (int i = count - 1; i >= 0; --i) put((value >> i) & 1u);
  }
  std::string finish() {
    if (nbits_ > 0) out_ += static_cast<char>(cur_);
    cur_ = 0;
    nbits_ = 0;
    return out_;
  }

 private:
  void put(uint32_t bit) {
    cur_ = static_cast<uint8_t>(cur_ | (bit << nbits_));
    if (++nbits_ == 8) {
      out_ += static_cast<char>(cur_);
      cur_ = 0;
      nbits_ = 0;
    }
  }
  std::string out_;
  uint8_t cur_ = 0;
  int nbits_ = 0;
};

void fixed_literal(BitWriter& w, uint32_t sym) {
  if (sym <= 143)
    w.code(0x30 + sym, 8);
  else if (sym <= 255)
    w.code(0x190 + sym - 144, 9);
  else if (sym <= 279)
    w.code(sym - 256, 7);
  else
    w.code(0xC0 + sym - 280, 8);
}

constexpr std::array<uint16_t, 29> kLenBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                               15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                               67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<uint8_t, 29> kLenExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<uint16_t, 30> kDistBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<uint8_t, 30> kDistExtra = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                                4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                                9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

void emit_match(BitWriter& w, size_t length, size_t distance) {
  size_t li = kLenBase.size() - 1;
  while (kLenBase[li] > length) --li;
  fixed_literal(w, static_cast<uint32_t>(257 + li));
  w.bits(static_cast<uint32_t>(length - kLenBase[li]), kLenExtra[li]);
  size_t di = kDistBase.size() - 1;
  while (kDistBase[di] > distance) --di;
  w.code(static_cast<uint32_t>(di), 5);
  w.bits(static_cast<uint32_t>(distance - kDistBase[di]), kDistExtra[di]);
}

}  // namespace

Rgb palette_color(size_t i) {
  static constexpr Rgb kPalette[] = {
      {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
      {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};
  return kPalette[i % 10];
}

Canvas::Canvas(int width, int height, Rgb background)
    : width_(std::max(1, width)), height_(std::max(1, height)) {
  rgb_.resize(static_cast<size_t>(width_) * static_cast<size_t>(height_) * 3);
  for (size_t i = 0; i < rgb_.size(); i += 3) {
    rgb_[i] = background.r;
    rgb_[i + 1] = background.g;
    rgb_[i + 2] = background.b;
  }
}

void Canvas::set(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
  rgb_[i] = c.r;
  rgb_[i + 1] = c.g;
  rgb_[i + 2] = c.b;
}

Rgb Canvas::get(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return {};
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(width_) + static_cast<size_t>(x)) * 3;
  return {rgb_[i], rgb_[i + 1], rgb_[i + 2]};
}

void Canvas::fill_rect(int x0, int y0, int x1, int y1, Rgb c) {
  if (x0 > x1) std::swap(x0, x1);
  if (y0 > y1) std::swap(y0, y1);
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, width_ - 1);
  y1 = std::min(y1, height_ - 1);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) set(x, y, c);
}

void Canvas::line(int x0, int y0, int x1, int y1, Rgb c, int thickness) {
  const int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
  const int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  const int lo = -(thickness - 1) / 2, hi = thickness / 2;
  while (true) {
    fill_rect(x0 + lo, y0 + lo, x0 + hi, y0 + hi, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

void Canvas::text(int x, int y, std::string_view utf8_text, Rgb c, int scale) {
  int pen = x;
  for (char32_t cp : code_points(utf8_text)) {
    const Glyph* g = glyph_for(cp);
    for (int row = 0; row < 7; ++row) {
      for (int col = 0; col < 5; ++col) {
        if (g->rows[row][col] == '#') {
          fill_rect(pen + col * scale, y + row * scale, pen + (col + 1) * scale - 1,
                    y + (row + 1) * scale - 1, c);
        }
      }
    }
    pen += 6 * scale;
  }
}

void Canvas::text_vertical(int x, int y, std::string_view utf8_text, Rgb c, int scale) {
  int pen = y;
  for (char32_t cp : code_points(utf8_text)) {
    const Glyph* g = glyph_for(cp);
    for (int row = 0; row < 7; ++row) {
      for (int col = 0; col < 5; ++col) {
        if (g->rows[row][col] == '#') {
          // (col, row) → (row, −col): glyph x grows upward, glyph y grows rightward.
          fill_rect(x + row * scale, pen - (col + 1) * scale + 1, x + (row + 1) * scale - 1,
                    pen - col * scale, c);
        }
      }
    }
    pen -= 6 * scale;
  }
}

int Canvas::text_width(std::string_view utf8_text, int scale) {
  return static_cast<int>(code_points(utf8_text).size()) * 6 * scale;
}

uint32_t crc32(std::string_view data, uint32_t crc) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (char ch : data) crc = table[(crc ^ static_cast<uint8_t>(ch)) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

uint32_t adler32(std::string_view data) {
  uint32_t a = 1, b = 0;
  for (char ch : data) {
    a = (a + static_cast<uint8_t>(ch)) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

std::string zlib_compress(std::string_view data, size_t row_stride) {
  BitWriter w;
  w.bits(1, 1);  // BFINAL
  w.bits(1, 2);  // BTYPE = fixed Huffman
  // Matches only at distance 3 (previous RGB pixel) and `row_stride` (pixel above); enough for
  // flat-colour charts.
  std::vector<size_t> distances = {3, 1};
  if (row_stride > 0 && row_stride <= 32768) distances.push_back(row_stride);
  size_t i = 0;
  while (i < data.size()) {
    size_t best_len = 0, best_dist = 0;
    for (size_t d : distances) {
      if (d > i) continue;
      size_t len = 0;
      while (len < 258 && i + len < data.size() && data[i + len] == data[i + len - d]) ++len;
      if (len > best_len) {
        best_len = len;
        best_dist = d;
      }
    }
    if (best_len >= 3) {
      emit_match(w, best_len, best_dist);
      i += best_len;
    } else {
      fixed_literal(w, static_cast<uint8_t>(data[i]));
      ++i;
    }
  }
  fixed_literal(w, 256);
  std::string out = "\x78\x01";  // CMF (deflate, 32K window), FLG (check bits, fastest)
  out += w.finish();
  const uint32_t adler = adler32(data);
  for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((adler >> s) & 0xFFu);
  return out;
}

namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xFFu);
}

void put_chunk(std::string& out, const char* type, const std::string& body) {
  put_u32(out, static_cast<uint32_t>(body.size()));
  std::string typed = std::string(type, 4) + body;
  out += typed;
  put_u32(out, crc32(typed));
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb) {
  const auto w = static_cast<size_t>(width), h = static_cast<size_t>(height);
  std::string raw;
  raw.reserve(h * (w * 3 + 1));
  for (size_t y = 0; y < h; ++y) {
    raw += '\0';  // filter: none
    raw.append(reinterpret_cast<const char*>(rgb.data() + y * w * 3), w * 3);
  }
  std::string out = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put_u32(ihdr, static_cast<uint32_t>(width));
  put_u32(ihdr, static_cast<uint32_t>(height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit, RGB, deflate, no filter, no interlace
  put_chunk(out, "IHDR", ihdr);
  put_chunk(out, "IDAT", zlib_compress(raw, w * 3 + 1));
  put_chunk(out, "IEND", "");
  return out;
}

Status write_png(const std::string& path, const Canvas& canvas) {
  return write_file_atomic(path, encode_png(canvas.width(), canvas.height(), canvas.pixels()));
}

}  // namespace morpheus
