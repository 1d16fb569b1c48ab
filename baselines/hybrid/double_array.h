// SPDX-License-Identifier: MIT
// A static byte-level double-array trie (Aoe 1989): keys are byte strings, each with one int32
// value. A lookup walks one array cell per input byte, so the longest-match scan used by the
// hybrid encoder is linear in the bytes it reads. Built once from a key list; immutable after.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace morpheus::tokenizer::hybrid {

class DoubleArray {
 public:
  static constexpr int32_t kNoValue = -1;

  // Builds the trie from (key, value) pairs. Keys must be non-empty and distinct; values >= 0.
  // Contract violations (empty or duplicate key, negative value) throw InternalError.
  // An empty key list gives the empty trie, the same as a DoubleArray that was never built.
  void build(const std::vector<std::pair<std::string, int32_t>>& keys);

  // The root state. Walk with `step`; a negative result means "no transition".
  static constexpr int32_t root() { return 0; }
  // The state reached from `state` by byte `c`, or -1. `state` is root() or a state that step()
  // returned. The empty trie has no transitions.
  int32_t step(int32_t state, unsigned char c) const {
    if (units_.empty()) return -1;  // empty trie: no cells at all, not even the root's
    // base + 255 is always inside the array: build() leaves 256 cells of slack after the last.
    // t == 0 (cell 0, the root's, check 0) would pass only from the root, whose base is >= 1.
    const auto t = static_cast<size_t>(units_[static_cast<size_t>(state)].base) + c;
    return units_[t].check == state ? static_cast<int32_t>(t) : -1;
  }
  // The value stored at `state` (a key ends there), or kNoValue (always, in the empty trie).
  int32_t value(int32_t state) const {
    return units_.empty() ? kNoValue : units_[static_cast<size_t>(state)].value;
  }

  // Exact lookup of a whole key; kNoValue when absent.
  int32_t find(const std::string& key) const;
  // Cells in the array, slack included; 0 for the empty trie.
  size_t num_units() const { return units_.size(); }

 private:
  struct Unit {
    int32_t base = 0;
    int32_t check = -1;
    int32_t value = kNoValue;
  };
  std::vector<Unit> units_;  // empty for the empty trie (never built, or built from no keys)
};

}  // namespace morpheus::tokenizer::hybrid
