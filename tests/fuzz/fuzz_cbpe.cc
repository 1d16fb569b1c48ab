// SPDX-License-Identifier: MIT
// Fuzz target: a constrained-BPE model (baselines/cbpe/cbpe_model.h) trained once on a small
// built-in corpus, with and without a boundary table: encode→decode is the identity for valid
// UTF-8 (and any bytes with allow_invalid), ids are in range, word_pieces concatenate back.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "baselines/cbpe/cbpe_model.h"
#include "core/check.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/segment_table.h"

namespace {

using morpheus::tokenizer::cbpe::CbpeConfig;
using morpheus::tokenizer::cbpe::CbpeModel;

constexpr const char* kCbpeCorpus =
    "Evlerimizde kitaplar var.\nKitaplarımızı evlerde okuruz.\nEVLERDE 3 kitap, İSTANBUL'da "
    "ılık.\nevler kitaplar evlerde kitaplarda ığdır şişe çiçek gözlük üzüm\n";

const CbpeModel& cbpe_model(bool with_table) {
  static std::unique_ptr<CbpeModel> models[2];
  std::unique_ptr<CbpeModel>& slot = models[with_table ? 1 : 0];
  if (!slot) {
    const std::string corpus = morpheus::fuzz::scratch_dir() + "/cbpe_corpus.txt";
    MORPHEUS_CHECK(morpheus::write_file_atomic(corpus, kCbpeCorpus).ok(), "corpus");
    std::shared_ptr<const morpheus::tokenizer::Segmenter> table;
    CbpeConfig config;
    if (with_table) {
      config.boundaries = "file";
      table = std::make_shared<morpheus::tokenizer::TableSegmenter>(
          std::vector<morpheus::tokenizer::SegmentedWord>{
              {"evlerimizde", {"ev", "ler", "imiz", "de"}},
              {"kitaplar", {"kitap", "lar"}},
              {"evlerde", {"ev", "ler", "de"}}});
    }
    auto model = CbpeModel::train_corpus(corpus, table, config, 320);
    MORPHEUS_CHECK(model.ok(), model.status().to_string());
    slot = std::make_unique<CbpeModel>(std::move(model).value());
  }
  return *slot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const CbpeModel& model = cbpe_model((mode & 1u) != 0);
  const bool allow_invalid = (mode & 2u) != 0;
  const bool valid = morpheus::utf8::is_valid(text);
  std::vector<int32_t> ids;
  const morpheus::Status st = model.codec().encode(text, &ids, nullptr, allow_invalid);
  if (!valid && !allow_invalid) {
    MORPHEUS_CHECK(!st.ok(), "invalid UTF-8 accepted");
    return 0;
  }
  MORPHEUS_CHECK(st.ok(), "encode failed: ", st.to_string());
  for (int32_t id : ids) {
    MORPHEUS_CHECK(id >= 0 && id < model.codec().vocab_size(), "id out of range: ", id);
  }
  auto back = model.codec().decode(ids);
  MORPHEUS_CHECK(back.ok(), "decode failed: ", back.status().to_string());
  MORPHEUS_CHECK(*back == text, "cbpe decode(encode(s)) != s");
  if (valid && text.size() < 64) {
    std::string joined;
    for (const std::string& p : model.word_pieces(text)) joined += p;
    MORPHEUS_CHECK(joined == text, "word_pieces do not concatenate back");
  }
  return 0;
}
