// SPDX-License-Identifier: MIT
#include "tests/engine/engine_test_util.h"

#include <cmath>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "core/check.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/utf8.h"
#include "engine/weight_file.h"
#include "tests/support/test_support.h"
#include "tokenizer/directory_format.h"

namespace morpheus::testing {
namespace {

const char kLetters[] = "abcçdefgğhıijklmnoöprsştuüvyzqwxâîû";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// RoPE table [rows, dh] of model/rope.cc: angle pos·base^(−2i/dh), halves repeated.
std::vector<float> rope_table(int64_t rows, int64_t dh, bool sine) {
  std::vector<float> out;
  for (int64_t pos = 0; pos < rows; ++pos) {
    for (int64_t e = 0; e < dh; ++e) {
      const double freq =
          std::pow(10000.0, -2.0 * static_cast<double>(e % (dh / 2)) / static_cast<double>(dh));
      const double angle = static_cast<double>(pos) * freq;
      out.push_back(static_cast<float>(sine ? std::sin(angle) : std::cos(angle)));
    }
  }
  return out;
}

std::vector<float> random_values(const engine::TensorSpec& spec, std::mt19937_64& rng,
                                 double scale) {
  int64_t n = 1;
  for (int64_t s : spec.shape) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  // The only 1-D ".weight" tensors are LayerNorm scales.
  const bool norm_scale = spec.shape.size() == 1 && ends_with(spec.name, ".weight");
  const bool embedding = spec.name.find("embedding") != std::string::npos;
  const int64_t fan_in = spec.shape.size() == 3   ? spec.shape[1] * spec.shape[2]
                         : spec.shape.size() == 2 ? spec.shape[1]
                                                  : 1;
  for (float& x : v) {
    double value = unit(rng);
    if (embedding) {
      value *= 1.7;
    } else if (spec.shape.size() == 1) {
      value = (norm_scale ? 1.0 : 0.0) + 0.1 * value;  // LayerNorm scales, shifts and biases
    } else {
      value *= scale / std::sqrt(static_cast<double>(fan_in));
    }
    x = static_cast<float>(value);
  }
  return v;
}

}  // namespace

model::ModelConfig small_engine_config() {
  model::ModelConfig c;
  c.char_vocab_size = engine_chars().size();
  c.char_dim = 16;
  c.char_embed_dim = 8;
  c.case_embed_dim = 4;
  c.n_layers_encoder = 1;
  c.n_layers_detector = 2;
  c.num_heads = 2;
  c.ffn_mult = 2;
  c.max_word_len = 12;
  c.max_segs = 6;
  c.cnn_kernels = {2, 3, 4, 5};
  c.cnn_channels = 4;
  return c;
}

std::string random_weight_bytes(const model::ModelConfig& config, uint64_t seed, double scale) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<float>> values;
  const std::vector<engine::TensorSpec> specs = engine::expected_tensors(config);
  for (const engine::TensorSpec& spec : specs) {
    if (ends_with(spec.name, "rope.cos_cache") || ends_with(spec.name, "rope.sin_cache")) {
      values.push_back(rope_table(spec.shape[0], spec.shape[1], ends_with(spec.name, "sin_cache")));
    } else {
      values.push_back(random_values(spec, rng, scale));
    }
  }
  std::vector<engine::TensorInput> inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    inputs.push_back({specs[i].name, specs[i].shape, values[i].data()});
  }
  StatusOr<std::string> bytes = engine::weight_file_bytes(config, inputs);
  MORPHEUS_CHECK(bytes.ok(), bytes.status().to_string());
  return *bytes;
}

std::string write_random_weights(const std::string& dir, const model::ModelConfig& config,
                                 uint64_t seed, double scale) {
  const std::string path = path_join(dir, tokenizer::kWeightsFile);
  const Status s = write_file_atomic(path, random_weight_bytes(config, seed, scale));
  MORPHEUS_CHECK(s.ok(), s.to_string());
  return path;
}

std::shared_ptr<const engine::Model> random_model(const model::ModelConfig& config, uint64_t seed,
                                                  double scale) {
  const std::string dir = make_temp_dir("engine_model");
  StatusOr<std::shared_ptr<const engine::Model>> model =
      engine::Model::load(write_random_weights(dir, config, seed, scale));
  MORPHEUS_CHECK(model.ok(), model.status().to_string());
  return *model;
}

tokenizer::CharVocab engine_chars() {
  const std::u32string letters = *utf8::decode(kLetters);
  std::unordered_map<char32_t, uint64_t> counts;
  uint64_t n = 1000;
  for (char32_t c : letters) counts[c] = n--;
  return tokenizer::CharVocab::build(counts, 1.0, 1, letters);
}

std::vector<std::string> turkish_like_words(size_t n, size_t max_chars, uint64_t seed) {
  const std::vector<std::string> stems = {"ev",    "kitap", "göz",  "yol", "kedi", "okul",
                                          "çocuk", "şehir", "ağaç", "gün", "masa", "kapı"};
  const std::vector<std::string> suffixes = {"ler",  "lar", "de", "da",   "den",  "in",
                                             "imiz", "siz", "e",  "leri", "ında", "dan"};
  const std::u32string letters = *utf8::decode(kLetters);
  std::mt19937_64 rng(seed);
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  while (out.size() < n) {
    std::string w = rng() % 3 == 0 ? "" : stems[rng() % stems.size()];
    const size_t parts = rng() % 4;
    for (size_t p = 0; p < parts; ++p) w += suffixes[rng() % suffixes.size()];
    const size_t extra = rng() % 4;
    for (size_t e = 0; e < extra; ++e) utf8::append(letters[rng() % letters.size()], w);
    if (w.empty()) continue;
    std::u32string cps = *utf8::decode(w);
    if (cps.size() > max_chars) cps.resize(max_chars);
    w = utf8::encode(cps);
    if (seen.insert(w).second) out.push_back(w);
  }
  return out;
}

void reseal_weight_bytes(std::string* bytes) {
  auto get = [&](size_t at) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>((*bytes)[at + i])) << (8 * i);
    return v;
  };
  auto put = [&](size_t at, uint64_t v) {
    for (size_t i = 0; i < 8; ++i) (*bytes)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  const size_t data_offset = static_cast<size_t>(get(32));
  const auto* p = reinterpret_cast<const unsigned char*>(bytes->data());
  put(48, fnv1a64(p + data_offset, bytes->size() - data_offset));
  put(56, fnv1a64(p + 64, data_offset - 64, fnv1a64(p, 56)));
}

}  // namespace morpheus::testing
