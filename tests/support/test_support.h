// SPDX-License-Identifier: MIT
// Test helpers shared by every suite: seeded random text, temp dirs and access to ../shared/data.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace morpheus::testing {

// A random valid UTF-8 string of up to `max_code_points` code points mixing Turkish letters
// (both cases, incl. İ ı ğ ş ç ö ü), ASCII, digits, whitespace runs (space, tab, \n, \r, NBSP),
// apostrophes (' ’), punctuation, emoji (incl. ZWJ sequences and skin tones), combining marks,
// other scripts (Greek, Cyrillic, Arabic, CJK), and long letter runs.
std::string random_text(std::mt19937_64& rng, size_t max_code_points = 40);

// A random byte string that is usually NOT valid UTF-8.
std::string random_bytes(std::mt19937_64& rng, size_t max_bytes = 24);

// A fresh empty directory under the gtest temp dir, unique per call.
std::string make_temp_dir(const std::string& tag);

// ../shared/data (or $MORPHEUS_SHARED_DATA). Empty when absent.
std::string shared_data_dir();
// Path to a file under shared_data_dir(), or "" when missing.
std::string shared_data_file(const std::string& relative);
// Path of the repo checkout (tests read the npm packages from <repo>/node_modules).
std::string source_dir();
// A file under <repo>/node_modules, or "" when missing.
std::string npm_file(const std::string& relative);

bool running_in_ci();

}  // namespace morpheus::testing

// Skips the test when `path` is empty (data absent), and fails it instead when CI=true.
#define MORPHEUS_REQUIRE_DATA(path, what)                    \
  do {                                                       \
    if ((path).empty()) {                                    \
      if (::morpheus::testing::running_in_ci()) {            \
        FAIL() << "required data missing in CI: " << (what); \
      }                                                      \
      GTEST_SKIP() << "data not available: " << (what);      \
    }                                                        \
  } while (false)
