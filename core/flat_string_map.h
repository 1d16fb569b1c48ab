// SPDX-License-Identifier: MIT
// FlatStringMap<V>: an open-addressing hash map from byte strings to small trivially copyable
// values, for the lookups done once per token (the codec's units cache, the prefetch scan).
// Slots live in one array (hash, key offset and length, value) and keys in one byte arena, so a
// lookup reads one slot and the key bytes: no node, no allocation per entry. Linear probing at
// load <= 1/2; no erase (clear() empties it, keeping its capacity). Not thread-safe: the owner
// locks.
//   FlatStringMap<uint32_t> m;  m.insert("evler", 7);  *m.find("evler") == 7
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace morpheus {

// A 64-bit hash of `s`, 8 bytes per step (not FNV-1a: this one is for in-memory tables only,
// never stored). Never 0 (0 marks an empty slot).
inline uint64_t flat_hash(std::string_view s) {
  const auto mix = [](uint64_t h) {
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
  };
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (s.size() * 0xff51afd7ed558ccdULL);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = mix(h ^ w) + 0x9e3779b97f4a7c15ULL;
  }
  if (i < s.size()) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = mix(h ^ w) + 0x9e3779b97f4a7c15ULL;
  }
  h = mix(h);
  return h == 0 ? 1 : h;
}

template <class V>
class FlatStringMap {
  static_assert(std::is_trivially_copyable_v<V>, "values are copied as bytes");

 public:
  FlatStringMap() { slots_.resize(16); }

  // The value of `key`, or nullptr.
  const V* find(std::string_view key) const { return find_hashed(key, flat_hash(key)); }

  // Inserts key -> value unless the key is present; returns the stored value and whether it was
  // inserted. Keys longer than 4 GiB in total are not supported.
  std::pair<V*, bool> insert(std::string_view key, const V& value) {
    const uint64_t hash = flat_hash(key);
    if (V* found = const_cast<V*>(find_hashed(key, hash))) return {found, false};
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot& slot = free_slot(hash);
    slot.hash = hash;
    slot.offset = static_cast<uint32_t>(keys_.size());
    slot.length = static_cast<uint32_t>(key.size());
    slot.value = value;
    keys_.append(key.data(), key.size());
    ++size_;
    return {&slot.value, true};
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Calls fn(key, value) for every entry, in slot order (neither insertion nor key order).
  template <class Fn>
  void for_each(Fn fn) const {
    for (const Slot& slot : slots_) {
      if (slot.hash != 0) fn(std::string_view(keys_.data() + slot.offset, slot.length), slot.value);
    }
  }

  // Empties the map, keeping its slot array (a map refilled to the same size does not regrow).
  void clear() {
    slots_.assign(slots_.size(), Slot{});
    keys_.clear();
    size_ = 0;
  }

 private:
  struct Slot {
    uint64_t hash = 0;  // 0: empty
    uint32_t offset = 0;
    uint32_t length = 0;
    V value{};
  };

  const V* find_hashed(std::string_view key, uint64_t hash) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.hash == 0) return nullptr;
      if (slot.hash == hash && slot.length == key.size() &&
          std::memcmp(keys_.data() + slot.offset, key.data(), key.size()) == 0) {
        return &slot.value;
      }
    }
  }

  Slot& free_slot(uint64_t hash) {
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    while (slots_[i].hash != 0) i = (i + 1) & mask;
    return slots_[i];
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.hash != 0) free_slot(slot.hash) = slot;
    }
  }

  std::vector<Slot> slots_;
  std::string keys_;
  size_t size_ = 0;
};

}  // namespace morpheus
