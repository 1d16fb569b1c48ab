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

// $MORPHEUS_SHARED_DATA, or else <repo>/../shared/data. Empty when the directory is absent.
std::string shared_data_dir();
// Path to a file under shared_data_dir(), or "" when missing.
std::string shared_data_file(const std::string& relative);
// Path of the repo checkout (tests read the npm packages from <repo>/node_modules).
std::string source_dir();
// A file under <repo>/node_modules, or "" when missing.
std::string npm_file(const std::string& relative);

// True when the environment variable CI is "true" (.ci/run sets it).
bool running_in_ci();

}  // namespace morpheus::testing

// The one way a test gives up on a missing prerequisite (a file of ../shared/data, an installed
// tool): skips the test when `available` is false, and fails it instead when CI=true, so that CI
// never passes with tests silently skipped. Use only in a TEST body or in SetUp().
#define MORPHEUS_REQUIRE(available, what)                             \
  do {                                                                \
    if (!(available)) {                                               \
      if (::morpheus::testing::running_in_ci()) {                     \
        FAIL() << "required in CI (CI=true) but missing: " << (what); \
      }                                                               \
      GTEST_SKIP() << "not available: " << (what);                    \
    }                                                                 \
  } while (false)

// MORPHEUS_REQUIRE for data: `path` (a path, or any container) is empty when the data is absent.
#define MORPHEUS_REQUIRE_DATA(path, what) MORPHEUS_REQUIRE(!(path).empty(), what)
