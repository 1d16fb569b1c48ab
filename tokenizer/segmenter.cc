// SPDX-License-Identifier: MIT
// The segmenter registry and the torch-free systems registered from the start.
#include "tokenizer/segmenter.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "tokenizer/cbpe/cbpe_model.h"
#include "tokenizer/hybrid/hybrid_tokenizer.h"

namespace morpheus::tokenizer {
namespace {

// "file": options {"turkish_case": true}.
StatusOr<std::unique_ptr<Segmenter>> create_file(const SegmenterSpec& spec) {
  MORPHEUS_ASSIGN_OR_RETURN(
      std::unique_ptr<cbpe::SegmentationTable> table,
      cbpe::SegmentationTable::load(spec.path, spec.options.value("turkish_case", true)));
  return std::unique_ptr<Segmenter>(std::move(table));
}

// "cbpe": the model directory of `morpheus cbpe train`.
StatusOr<std::unique_ptr<Segmenter>> create_cbpe(const SegmenterSpec& spec) {
  MORPHEUS_ASSIGN_OR_RETURN(cbpe::CbpeModel model, cbpe::CbpeModel::load(spec.path));
  return std::unique_ptr<Segmenter>(std::make_unique<cbpe::CbpeSegmenter>(*model.segmenter()));
}

// "hybrid": options {"mode": "lossless" | "reference"} (default lossless).
StatusOr<std::unique_ptr<Segmenter>> create_hybrid(const SegmenterSpec& spec) {
  const std::string mode = spec.options.value("mode", "lossless");
  if (mode != "lossless" && mode != "reference") {
    return invalid_argument("hybrid segmenter: unknown mode \"" + mode + "\"",
                            "mode is lossless or reference");
  }
  MORPHEUS_ASSIGN_OR_RETURN(hybrid::HybridTokenizer tok,
                            hybrid::HybridTokenizer::load(
                                spec.path, mode == "lossless" ? hybrid::HybridMode::kLossless
                                                              : hybrid::HybridMode::kReference));
  return std::unique_ptr<Segmenter>(std::make_unique<hybrid::HybridTokenizer>(std::move(tok)));
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, SegmenterCreator> creators{
      {"file", create_file}, {"cbpe", create_cbpe}, {"hybrid", create_hybrid}};
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: usable from static destructors
  return *r;
}

}  // namespace

void register_segmenter(const std::string& name, SegmenterCreator creator) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.creators[name] = std::move(creator);
}

StatusOr<std::unique_ptr<Segmenter>> create_segmenter(const SegmenterSpec& spec) {
  SegmenterCreator creator;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.creators.find(spec.name);
    if (it != r.creators.end()) creator = it->second;
  }
  if (!creator) {
    std::string names;
    for (const std::string& n : segmenter_names()) names += (names.empty() ? "" : ", ") + n;
    return not_found("no segmenter named \"" + spec.name + "\"", "registered: " + names);
  }
  return creator(spec);
}

std::vector<std::string> segmenter_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.creators) names.push_back(entry.first);
  return names;
}

}  // namespace morpheus::tokenizer
