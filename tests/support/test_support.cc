// SPDX-License-Identifier: MIT
#include "tests/support/test_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::testing {
namespace {

const std::vector<std::string>& pieces() {
  static const std::vector<std::string> kPieces = {
      // Turkish letters, both cases
      "a",
      "e",
      "ı",
      "i",
      "o",
      "ö",
      "u",
      "ü",
      "ç",
      "ğ",
      "ş",
      "I",
      "İ",
      "Ç",
      "Ğ",
      "Ş",
      "Ö",
      "Ü",
      "k",
      "l",
      "m",
      "n",
      "r",
      "t",
      "d",
      "s",
      "y",
      "z",
      "A",
      "E",
      "K",
      "L",
      "M",
      "q",
      "w",
      "x",
      "â",
      "î",
      "û",
      "Â",
      // words and suffixes
      "ev",
      "ler",
      "de",
      "ki",
      "Ankara",
      "İstanbul",
      "IĞDIR",
      "kitaplarımızdan",
      "gözlükçü",
      // digits
      "0",
      "7",
      "1990",
      "3,14",
      // whitespace
      " ",
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\r",
      "\u00A0",
      "\u3000",
      "\u2009",
      // apostrophes and punctuation
      "'",
      "\u2019",
      "\u2018",
      "\u02BC",
      ".",
      ",",
      "!",
      "?",
      "-",
      "\"",
      "(",
      ")",
      "…",
      "«",
      "»",
      // emoji, incl. ZWJ family, skin tone, flag, variation selector
      "😀",
      "👍🏽",
      "👨‍👩‍👧",
      "🇹🇷",
      "❤️",
      "🙂",
      // combining marks, alone and after letters
      "\u0307",
      "i\u0307",
      "e\u0301",
      "\u0301",
      "n\u0303",
      // other scripts
      "Ω",
      "λόγος",
      "Москва",
      "ж",
      "مرحبا",
      "漢字",
      "ひらがな",
      "한국어",
      "ǅ",
      "ß",
      "ẞ",
      // symbols and controls
      "€",
      "%",
      "#",
      "@",
      "\u200D",
      "\u200B",
      "\uFEFF",
      "\x01",
      "\x7F",
  };
  return kPieces;
}

}  // namespace

std::string random_text(std::mt19937_64& rng, size_t max_code_points) {
  std::uniform_int_distribution<size_t> count_dist(0, max_code_points);
  const size_t n = count_dist(rng);
  const auto& p = pieces();
  std::uniform_int_distribution<size_t> pick(0, p.size() - 1);
  std::uniform_int_distribution<int> mode(0, 19);
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const int m = mode(rng);
    if (m == 0) {
      // A long letter run (longer than any model word length).
      std::uniform_int_distribution<int> len(30, 90);
      const int l = len(rng);
      for (int k = 0; k < l; ++k) out += p[pick(rng) % 18];
    } else if (m == 1) {
      // A random scalar value from the whole range.
      std::uniform_int_distribution<uint32_t> cp_dist(1, 0x10FFFF);
      uint32_t cp = cp_dist(rng);
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
      utf8::append(static_cast<char32_t>(cp), out);
    } else {
      out += p[pick(rng)];
    }
  }
  return out;
}

std::string random_bytes(std::mt19937_64& rng, size_t max_bytes) {
  std::uniform_int_distribution<size_t> len(1, max_bytes);
  std::uniform_int_distribution<int> byte(0, 255);
  const size_t n = len(rng);
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(byte(rng)));
  return out;
}

std::string make_temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  std::string base = ::testing::TempDir();
  if (base.empty()) base = "/tmp/";
  const std::string dir = path_join(
      base, "morpheus_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) return dir;
  (void)make_dirs(dir);
  return dir;
}

std::string source_dir() { return MORPHEUS_SOURCE_DIR; }

std::string shared_data_dir() {
  const char* env = std::getenv("MORPHEUS_SHARED_DATA");
  const std::string dir =
      env != nullptr && *env != '\0' ? std::string(env) : source_dir() + "/../shared/data";
  return dir_exists(dir) ? dir : std::string();
}

std::string shared_data_file(const std::string& relative) {
  const std::string dir = shared_data_dir();
  if (dir.empty()) return "";
  const std::string path = path_join(dir, relative);
  return (file_exists(path) || dir_exists(path)) ? path : std::string();
}

std::string npm_file(const std::string& relative) {
  const std::string path = source_dir() + "/node_modules/" + relative;
  return file_exists(path) ? path : std::string();
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace morpheus::testing
