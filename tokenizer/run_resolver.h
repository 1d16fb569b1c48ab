// SPDX-License-Identifier: MIT
// Stages 3 and 4 of the tokenizer (tokenizer.h) as one Segmenter: the pieces of a folded letter
// run come from the first source that knows it — the segment table (no lock), the cache file,
// the model (created on the first miss with the directory's segmenter spec, self-tested) — and
// the model's answers go through the root snap before they are kept or cached (the table and
// the cache file hold snapped pieces). Every call returns its own outcome: a failed model call is
// that call's error, the model is dropped and the next run that needs it creates it again.
// Thread-safe. The Tokenizer hands it to its PieceCodec as the codec's segmenter.
//   RunResolver runs(dir, config, std::move(table), spec);
//   runs.segment_word("kitaplarımızdan") -> {"kitap", "lar", "ımız", "dan"}
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "tokenizer/segment_cache.h"
#include "tokenizer/segment_table.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

class RunResolver : public Segmenter {
 public:
  // The runs of the tokenizer directory `dir` (`config`: its morpheus.json; `table`: its segment
  // table; `model`: the model segmenter's spec, its path set to `dir` when created).
  RunResolver(std::string dir, std::shared_ptr<const nlohmann::json> config, SegmentTable table,
              SegmenterSpec model);
  ~RunResolver() override;

  // Folded letter runs (fold_run) to pieces, one run at a time (segment: each in turn).
  StatusOr<Segmentation> segment(const std::vector<std::string>& folded) const override;
  StatusOr<std::vector<std::string>> segment_word(std::string_view folded) const override;
  std::string name() const override { return "morpheus-tokenizer"; }

  const SegmentTable& table() const { return table_; }

  // The prefetch of Tokenizer::prefetch_begin: whether this block's scan is skipped (adaptive,
  // see there); the runs among the distinct folded `runs` that no source knows go to the model
  // (Segmenter::send); prefetch_end (or any later model use) stores the answers.
  bool skip_scan() const;
  Status prefetch_begin(const std::vector<std::string>& runs) const;
  Status prefetch_end() const;

  // Looks runs outside the table up in `cache` before the model, and appends what the model
  // segments (after the root snap) to it.
  void attach_cache(std::unique_ptr<SegmentCache> cache);

  // The model (created on first use, self-tested; owned here), or its creation error; the
  // pointer is valid until a model call fails.
  StatusOr<Segmenter*> model() const;
  bool model_created() const;

  // Runs answered by the table; looked up past it (by the cache file, or else the model); of
  // those, answered by the cache file; sent to the model.
  struct Counts {
    uint64_t table = 0;
    uint64_t lookups = 0;
    uint64_t cache = 0;
    uint64_t model = 0;
  };
  Counts counts() const;
  uint64_t table_hits() const;
  uint64_t model_runs() const;

 private:
  struct State;

  std::string dir_;
  std::shared_ptr<const nlohmann::json> config_;
  SegmentTable table_;
  SegmenterSpec model_;
  std::unique_ptr<State> state_;
};

}  // namespace morpheus::tokenizer
