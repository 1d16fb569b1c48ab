// SPDX-License-Identifier: MIT
// Fuzz target: the training-cache reader (prepare/cache.h) on arbitrary bytes written to a file.
// Without checksum verification (the mutated header/sections reach the structural checks) the
// reader either rejects the file with a Status or every accessor stays inside the mapping (ASan).
// A corpus input that starts with "WRITE" instead builds a cache from the remaining bytes with
// CacheWriter and requires it to read back word for word.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "core/check.h"
#include "core/file_util.h"
#include "prepare/cache.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using morpheus::train::CacheReader;

void touch_everything(const CacheReader& cache) {
  uint64_t sum = 0;
  for (uint64_t w = 0; w < cache.num_windows(); ++w) {
    MORPHEUS_CHECK(cache.window_begin(w) <= cache.window_end(w), "window order");
    for (uint64_t i = cache.window_begin(w); i < cache.window_end(w); ++i) {
      const morpheus::train::CacheWord word = cache.word(i);
      sum += word.word_id + word.root_id + word.case_bits + word.boundary_bits + word.flags;
      for (uint32_t j = 0; j < cache.word_length(i); ++j) {
        sum += cache.char_id(i, j) + (cache.is_upper(i, j) ? 1u : 0u);
        if (j > 0) sum += cache.boundary(i, j) ? 1u : 0u;
      }
    }
  }
  (void)sum;
}

void round_trip_writer(std::string_view bytes, const std::string& path) {
  morpheus::train::CacheInfo info;
  info.char_vocab_size = bytes.size() % 2 == 0 ? 300 : 200;
  info.max_window_words = 4;
  morpheus::train::CacheWriter writer(info);
  writer.begin_window();
  size_t pos = 0;
  uint64_t in_window = 0;
  while (pos < bytes.size()) {
    const auto len = static_cast<size_t>(static_cast<uint8_t>(bytes[pos]) % 30 + 1);
    morpheus::train::CacheWord word;
    for (size_t k = 0; k < len && pos + 1 + k < bytes.size(); ++k) {
      word.char_ids.push_back(
          static_cast<uint16_t>(static_cast<uint8_t>(bytes[pos + 1 + k]) % info.char_vocab_size));
    }
    pos += len + 1;
    if (word.char_ids.empty()) break;
    const uint32_t mask = (1u << word.char_ids.size()) - 1u;
    word.case_bits = static_cast<uint32_t>(pos) & mask;
    word.boundary_bits = (static_cast<uint32_t>(pos) << 1) & mask & ~1u;
    if (in_window == info.max_window_words) {
      writer.begin_window();
      in_window = 0;
    }
    writer.add_word(word);
    ++in_window;
  }
  MORPHEUS_CHECK(writer.write(path).ok(), "cache write failed");
  auto cache = CacheReader::open(path);
  MORPHEUS_CHECK(cache.ok(), "written cache does not read back: ", cache.status().to_string());
  MORPHEUS_CHECK(cache->num_words() == writer.num_words(), "word count differs");
  touch_everything(*cache);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string path = morpheus::fuzz::scratch_dir() + "/fuzz.cache";
  if (bytes.substr(0, 5) == "WRITE") {
    round_trip_writer(bytes.substr(5), path);
    return 0;
  }
  {  // a plain write (no fsync): the atomic writer's fsync would cap the run at ~60 inputs/s
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    MORPHEUS_CHECK(out.good(), "cannot write ", path);
  }
  for (bool verify : {false, true}) {
    auto cache = CacheReader::open(path, verify);
    if (cache.ok()) {
      touch_everything(*cache);
    } else {
      MORPHEUS_CHECK(cache.status().message().find(path) != std::string::npos,
                     "error does not name the file: ", cache.status().to_string());
    }
  }
  return 0;
}
