// SPDX-License-Identifier: MIT
#include "baselines/hybrid/double_array.h"

#include <algorithm>

#include "core/check.h"

namespace morpheus::tokenizer::hybrid {
namespace {

// A pointer trie used only while building: children sorted by byte.
struct BuildNode {
  std::vector<std::pair<unsigned char, int32_t>> children;
  int32_t value = DoubleArray::kNoValue;
};

}  // namespace

void DoubleArray::build(const std::vector<std::pair<std::string, int32_t>>& keys) {
  std::vector<BuildNode> nodes(1);
  for (const auto& [key, value] : keys) {
    MORPHEUS_CHECK(!key.empty(), "DoubleArray: empty key");
    MORPHEUS_CHECK(value >= 0, "DoubleArray: negative value for key ", key);
    int32_t cur = 0;
    for (char ch : key) {
      const auto c = static_cast<unsigned char>(ch);
      auto& kids = nodes[static_cast<size_t>(cur)].children;
      auto it = std::lower_bound(
          kids.begin(), kids.end(), c,
          [](const std::pair<unsigned char, int32_t>& p, unsigned char x) { return p.first < x; });
      if (it != kids.end() && it->first == c) {
        cur = it->second;
      } else {
        const auto next = static_cast<int32_t>(nodes.size());
        kids.insert(it, {c, next});
        nodes.emplace_back();
        cur = next;
      }
    }
    MORPHEUS_CHECK(nodes[static_cast<size_t>(cur)].value == kNoValue, "DoubleArray: duplicate key ",
                   key);
    nodes[static_cast<size_t>(cur)].value = value;
  }

  if (nodes[0].children.empty()) {
    // No keys. A laid-out root would have base 0, and step(root(), 0) would land on the root's
    // own cell 0 (check 0): a false transition. The empty trie holds no cells instead.
    units_ = std::vector<Unit>();
    return;
  }

  // Place nodes breadth first. `used` marks cells owned by some node.
  units_.assign(1, Unit{});
  units_[0].check = 0;  // the root owns cell 0
  std::vector<bool> used(1, true);
  std::vector<int32_t> cell_of(nodes.size(), -1);
  cell_of[0] = 0;
  std::vector<int32_t> queue{0};
  // Darts-style placement: scan for a free base from `next_check`, and move `next_check` past
  // regions that are at least 95% full so that later scans do not revisit them.
  size_t next_check = 1;
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    const int32_t n = queue[qi];
    const BuildNode& node = nodes[static_cast<size_t>(n)];
    const auto s = static_cast<size_t>(cell_of[static_cast<size_t>(n)]);
    units_[s].value = node.value;
    if (node.children.empty()) continue;
    const size_t c0 = node.children.front().first;
    const size_t start = std::max(next_check, c0 + 1);
    size_t pos = start;
    size_t busy = 0;
    size_t base = 0;
    for (;; ++pos) {
      if (pos < used.size() && used[pos]) {
        ++busy;
        continue;
      }
      base = pos - c0;
      bool ok = true;
      for (const auto& [c, child] : node.children) {
        const size_t t = base + c;
        if (t < used.size() && used[t]) {
          ok = false;
          break;
        }
      }
      if (ok) break;
    }
    if (pos > start && busy * 20 >= (pos - start + 1) * 19) next_check = pos;
    const size_t last = base + node.children.back().first;
    if (last >= used.size()) {
      used.resize(last + 1, false);
      units_.resize(last + 1);
    }
    units_[s].base = static_cast<int32_t>(base);
    for (const auto& [c, child] : node.children) {
      const size_t t = base + c;
      used[t] = true;
      units_[t].check = static_cast<int32_t>(s);
      cell_of[static_cast<size_t>(child)] = static_cast<int32_t>(t);
      queue.push_back(child);
    }
  }
  // Slack so that step() never reads past the end for base + 255.
  units_.resize(units_.size() + 256);
}

int32_t DoubleArray::find(const std::string& key) const {
  int32_t state = root();
  for (char ch : key) {
    state = step(state, static_cast<unsigned char>(ch));
    if (state < 0) return kNoValue;
  }
  return value(state);
}

}  // namespace morpheus::tokenizer::hybrid
