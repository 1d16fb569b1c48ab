// SPDX-License-Identifier: MIT
// The segmenter registry.
#include "tokenizer/segmenter.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

namespace morpheus::tokenizer {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, SegmenterCreator> creators;
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
