// SPDX-License-Identifier: MIT
// A minimal RGB raster canvas with a built-in 5×7 bitmap font, and a self-contained PNG encoder
// (8-bit RGB, fixed-Huffman deflate with run matches, CRC-32 and Adler-32): no image library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

// Colour i of a 10-colour qualitative palette (cycles).
Rgb palette_color(size_t i);

class Canvas {
 public:
  Canvas(int width, int height, Rgb background = {255, 255, 255});

  int width() const { return width_; }
  int height() const { return height_; }
  // Pixels outside the canvas are ignored by every drawing call.
  void set(int x, int y, Rgb c);
  Rgb get(int x, int y) const;
  // Fills the rectangle [x0, x1] × [y0, y1] (inclusive, any corner order).
  void fill_rect(int x0, int y0, int x1, int y1, Rgb c);
  // A line of the given thickness (Bresenham with a square pen).
  void line(int x0, int y0, int x1, int y1, Rgb c, int thickness = 1);
  // Draws text with its top-left corner at (x, y); glyphs are 5×7 cells scaled by `scale`
  // (advance 6·scale). Lower-case is drawn as upper-case; Turkish letters as their ASCII base
  // (ç→C, ğ→G, ı/İ→I, ö→O, ş→S, ü→U); other code points as '?'.
  void text(int x, int y, std::string_view utf8_text, Rgb c, int scale = 1);
  // Text drawn rotated 90° counter-clockwise (reads bottom-up), starting at (x, y) bottom-left.
  void text_vertical(int x, int y, std::string_view utf8_text, Rgb c, int scale = 1);
  // Width in pixels of text() output.
  static int text_width(std::string_view utf8_text, int scale = 1);

  const std::vector<uint8_t>& pixels() const { return rgb_; }  // row-major RGB

 private:
  int width_, height_;
  std::vector<uint8_t> rgb_;
};

// CRC-32 (PNG/zlib polynomial) and Adler-32 of a byte string.
uint32_t crc32(std::string_view data, uint32_t crc = 0);
uint32_t adler32(std::string_view data);
// A zlib stream (RFC 1950) of `data`, compressed with fixed-Huffman deflate (RFC 1951).
std::string zlib_compress(std::string_view data, size_t row_stride = 0);
// The PNG file bytes of an RGB image.
std::string encode_png(int width, int height, const std::vector<uint8_t>& rgb);
// Writes the canvas as a PNG file atomically.
Status write_png(const std::string& path, const Canvas& canvas);

}  // namespace morpheus
