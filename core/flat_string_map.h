// SPDX-License-Identifier: MIT
// FlatStringMap<V>: an open-addressing hash map from byte strings to small trivially copyable
// values, for the lookups done once per token (the codec's units cache, the prefetch scan).
// Slots live in one array (hash, key offset and length, value) and keys in one byte arena, so a
// lookup reads one slot and the key bytes: no node, no allocation per entry. Linear probing at
// load <= 1/2; no erase (clear() empties it, keeping its capacity). Not thread-safe: the owner
// locks.
//   FlatStringMap<uint32_t> m;  m.insert("evler", 7);  *m.find("evler") == 7
// image() is the map as bytes and view() a map reading such bytes in place (a mapped file: no
// parse, no copy); a view copies itself into its own storage at the first insert or clear.
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

inline constexpr char kFlatMapImageMagic[] = "MPHSFMAP";  // 8 bytes, no terminator in the image
inline constexpr uint32_t kFlatMapImageVersion = 1;
inline constexpr size_t kFlatMapImageHeader = 64;

// A 64-bit hash of `s`, 8 bytes per step (not FNV-1a). Never 0 (0 marks an empty slot). Map
// images store it: changing it needs a new kFlatMapImageVersion.
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
    if (const V* found = find_hashed(key, hash)) {
      if (!is_view()) return {const_cast<V*>(found), false};
      own();
      return {const_cast<V*>(find_hashed(key, hash)), false};
    }
    own();
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot& slot = free_slot(hash);
    slot.hash = hash;
    slot.offset = static_cast<uint32_t>(keys_.size());
    slot.length = static_cast<uint32_t>(key.size());
    slot.value = value;
    keys_.insert(keys_.end(), key.begin(), key.end());
    ++size_;
    return {&slot.value, true};
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Makes room for `n` entries without growing on the way (a map about to be filled).
  void reserve(size_t n) {
    own();
    while (2 * n > slots_.size()) grow();
  }

  // Calls fn(key, value) for every entry, in slot order (neither insertion nor key order).
  template <class Fn>
  void for_each(Fn fn) const {
    const Slot* slots = slot_data();
    for (size_t i = 0; i < slot_count(); ++i) {
      if (slots[i].hash != 0) {
        fn(std::string_view(key_data() + slots[i].offset, slots[i].length), slots[i].value);
      }
    }
  }

  // Empties the map, keeping its slot array (a map refilled to the same size does not regrow).
  void clear() {
    own();
    slots_.assign(slots_.size(), Slot{});
    keys_.clear();
    size_ = 0;
  }

  // The map as bytes (little-endian hosts; the layout is this build's Slot): a 64-byte header
  // (magic, version, sizeof(V), sizeof(Slot), slot count, entry count, key bytes), the slots,
  // the keys.
  std::string image() const {
    std::string out(kFlatMapImageHeader, '\0');
    std::memcpy(&out[0], kFlatMapImageMagic, 8);
    const uint64_t fields[] = {kFlatMapImageVersion, sizeof(V), sizeof(Slot),
                               slot_count(),         size_,     key_bytes()};
    std::memcpy(&out[8], fields, sizeof(fields));
    // Field by field into zeroed bytes: the padding of a Slot is not part of the image.
    out.resize(kFlatMapImageHeader + slot_count() * sizeof(Slot), '\0');
    const Slot* slots = slot_data();
    for (size_t i = 0; i < slot_count(); ++i) {
      char* at = &out[kFlatMapImageHeader + i * sizeof(Slot)];
      std::memcpy(at + offsetof(Slot, hash), &slots[i].hash, sizeof(slots[i].hash));
      std::memcpy(at + offsetof(Slot, offset), &slots[i].offset, sizeof(slots[i].offset));
      std::memcpy(at + offsetof(Slot, length), &slots[i].length, sizeof(slots[i].length));
      std::memcpy(at + offsetof(Slot, value), &slots[i].value, sizeof(V));
    }
    out.append(key_data(), key_bytes());
    return out;
  }

  // A map reading `image` (an image() of this build, aligned to 8 bytes) in place: it must outlive
  // the map and every copy of it. Checks the header, the sizes, and that every slot's key lies
  // in the key bytes; *error says what is wrong and the result is empty otherwise.
  static FlatStringMap view(std::string_view image, std::string* error) {
    FlatStringMap map;
    uint64_t f[6] = {};
    if (image.size() >= kFlatMapImageHeader) std::memcpy(f, image.data() + 8, sizeof(f));
    const uint64_t slots = f[3], entries = f[4], keys = f[5];
    if (image.size() < kFlatMapImageHeader ||
        std::memcmp(image.data(), kFlatMapImageMagic, 8) != 0 || f[0] != kFlatMapImageVersion ||
        f[1] != sizeof(V) || f[2] != sizeof(Slot)) {
      *error = "not a flat map image of this build";
    } else if (slots == 0 || (slots & (slots - 1)) != 0 || 2 * entries > slots ||
               slots > (image.size() - kFlatMapImageHeader) / sizeof(Slot) ||
               keys != image.size() - kFlatMapImageHeader - slots * sizeof(Slot)) {
      *error = "the flat map image's sizes do not match its length";
    } else if (reinterpret_cast<uintptr_t>(image.data()) % alignof(Slot) != 0) {
      *error = "the flat map image is not aligned";
    } else {
      map.view_slots_ = reinterpret_cast<const Slot*>(image.data() + kFlatMapImageHeader);
      map.view_slot_count_ = static_cast<size_t>(slots);
      map.view_keys_ = image.data() + kFlatMapImageHeader + slots * sizeof(Slot);
      map.view_key_bytes_ = static_cast<size_t>(keys);
      map.size_ = static_cast<size_t>(entries);
      map.slots_.clear();
      if (map.view_valid()) return map;
      *error = "a flat map image slot points outside its keys (or its entry count is wrong)";
    }
    return FlatStringMap();
  }

 private:
  struct Slot {
    uint64_t hash = 0;  // 0: empty
    uint32_t offset = 0;
    uint32_t length = 0;
    V value{};
  };

  bool is_view() const { return view_slots_ != nullptr; }
  const Slot* slot_data() const { return is_view() ? view_slots_ : slots_.data(); }
  size_t slot_count() const { return is_view() ? view_slot_count_ : slots_.size(); }
  const char* key_data() const { return is_view() ? view_keys_ : keys_.data(); }
  size_t key_bytes() const { return is_view() ? view_key_bytes_ : keys_.size(); }

  // A view's slots: entries as counted, every key inside the key bytes.
  bool view_valid() const {
    size_t used = 0;
    for (size_t i = 0; i < view_slot_count_; ++i) {
      const Slot& slot = view_slots_[i];
      if (slot.hash == 0) continue;
      ++used;
      if (slot.offset > view_key_bytes_ || slot.length > view_key_bytes_ - slot.offset)
        return false;
    }
    return used == size_;
  }

  // A view becomes a map of its own (copies its slots and keys).
  void own() {
    if (!is_view()) return;
    slots_.assign(view_slots_, view_slots_ + view_slot_count_);
    keys_.assign(view_keys_, view_keys_ + view_key_bytes_);
    view_slots_ = nullptr;
    view_keys_ = nullptr;
    view_slot_count_ = view_key_bytes_ = 0;
  }

  const V* find_hashed(std::string_view key, uint64_t hash) const {
    const Slot* slots = slot_data();
    const char* keys = key_data();
    const size_t mask = slot_count() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots[i];
      if (slot.hash == 0) return nullptr;
      if (slot.hash == hash && slot.length == key.size() &&
          std::memcmp(keys + slot.offset, key.data(), key.size()) == 0) {
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
  std::vector<char> keys_;
  size_t size_ = 0;
  // A view's image (null for a map of its own).
  const Slot* view_slots_ = nullptr;
  size_t view_slot_count_ = 0;
  const char* view_keys_ = nullptr;
  size_t view_key_bytes_ = 0;
};

}  // namespace morpheus
