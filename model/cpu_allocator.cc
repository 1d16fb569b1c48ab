// SPDX-License-Identifier: MIT
// Caching CPU allocator: size classes, free lists, huge-page advice, the c10 hook.
#include "model/cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <sys/mman.h>
#include <torch/version.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

#include "core/arith.h"

namespace morpheus::model {
namespace {

constexpr size_t kSmallAlignment = 64;              // LibTorch's own CPU alignment
constexpr size_t kHugePageBytes = size_t{2} << 20;  // x86-64 transparent huge page

// LibTorch 2.3 made c10::Allocator::allocate non-const and added the pure virtual copy_data.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define MORPHEUS_ALLOCATE_CONST
#define MORPHEUS_ALLOCATOR_HAS_COPY_DATA 1
#else
#define MORPHEUS_ALLOCATE_CONST const
#define MORPHEUS_ALLOCATOR_HAS_COPY_DATA 0
#endif

class CachingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) MORPHEUS_ALLOCATE_CONST override {
    void* data = n == 0 ? nullptr : acquire(n);
    return {data, data, &CachingCpuAllocator::deallocate, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &CachingCpuAllocator::deallocate; }
#if MORPHEUS_ALLOCATOR_HAS_COPY_DATA
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

  static CachingCpuAllocator& instance() {
    // Never destroyed: tensors freed during static destruction still find it.
    static auto* allocator = new CachingCpuAllocator();
    return *allocator;
  }

  void set_cap(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    max_cached_ = bytes;
    trim_locked(max_cached_);
  }

  CpuAllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    trim_locked(0);
  }

 private:
  static void* system_alloc(size_t bytes) {
    const size_t alignment = bytes >= kHugePageBytes ? kHugePageBytes : kSmallAlignment;
    void* data = nullptr;
    if (posix_memalign(&data, alignment, bytes) != 0 || data == nullptr) {
      TORCH_CHECK(false, "CPU allocator: out of memory allocating ", bytes, " bytes");
    }
    // Advice only: fewer page faults where transparent huge pages are set to madvise.
    if (bytes >= kHugePageBytes) madvise(data, bytes, MADV_HUGEPAGE);
    return data;
  }

  void* acquire(size_t n) const {
    if (n < kCachedMinBytes) return system_alloc(n);
    const size_t size = cpu_allocator_size_class(n);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.cached_allocations;
      // Best fit among cached blocks of up to 1.5 × the request: batches change shape
      // from step to step, so exact size classes alone would rarely match.
      auto it = by_size_.lower_bound(size);
      if (it != by_size_.end() && it->first <= size / 2 * 3) {
        void* data = it->second.data;
        const size_t block = it->first;
        by_age_.erase(it->second.stamp);
        by_size_.erase(it);
        stats_.cached_bytes -= block;
        stats_.live_bytes += block;
        ++stats_.cache_hits;
        live_.emplace(data, block);
        return data;
      }
      // A miss: give back at least as many cached bytes as the new block takes (least recently
      // freed first: blocks of shapes no longer used), so the footprint (live + cached) does not
      // creep up with every new batch shape.
      size_t freed = 0;
      while (freed < size && !by_age_.empty()) freed += free_oldest_locked();
    }
    void* data = system_alloc(size);  // throws when out of memory: nothing recorded then
    std::lock_guard<std::mutex> lock(mu_);
    stats_.live_bytes += size;
    live_.emplace(data, size);
    return data;
  }

  static void deallocate(void* data) {
    if (data == nullptr) return;
    CachingCpuAllocator& self = instance();
    {
      std::lock_guard<std::mutex> lock(self.mu_);
      auto it = self.live_.find(data);
      if (it != self.live_.end()) {
        const size_t size = it->second;
        self.live_.erase(it);
        self.stats_.live_bytes -= size;
        if (self.stats_.cached_bytes + size <= self.max_cached_) {
          const uint64_t stamp = ++self.clock_;
          self.by_age_.emplace(stamp, self.by_size_.emplace(size, Cached{data, stamp}));
          self.stats_.cached_bytes += size;
          return;
        }
      }
    }
    std::free(data);  // small block, or the cache is full
  }

  // Frees cached blocks until at most `keep` bytes stay cached. Caller holds mu_.
  void trim_locked(size_t keep) {
    while (stats_.cached_bytes > keep && !by_age_.empty()) free_oldest_locked();
  }

  // Frees the least recently cached block; returns its size. Caller holds mu_, cache non-empty.
  size_t free_oldest_locked() const {
    auto oldest = by_age_.begin();
    const auto block = oldest->second;
    const size_t size = block->first;
    std::free(block->second.data);
    stats_.cached_bytes -= size;
    by_size_.erase(block);
    by_age_.erase(oldest);
    return size;
  }

  mutable std::mutex mu_;
  struct Cached {
    void* data;
    uint64_t stamp;  // when it was cached (clock_)
  };
  using BySize = std::multimap<size_t, Cached>;
  mutable BySize by_size_;                               // block size -> cached block
  mutable std::map<uint64_t, BySize::iterator> by_age_;  // stamp -> cached block
  uint64_t clock_ = 0;
  mutable std::unordered_map<void*, size_t> live_;  // cached-class blocks in use
  mutable CpuAllocatorStats stats_;
  size_t max_cached_ = size_t{4} << 30;
};

std::mutex g_install_mu;
bool g_installed = false;

}  // namespace

size_t cpu_allocator_size_class(size_t n) {
  if (n < kCachedMinBytes || n > (size_t{1} << 60)) return n;
  size_t power = kCachedMinBytes;
  while (power * 2 <= n) power *= 2;
  const size_t step = power / 8;
  return round_up(n, step);
}

void install_caching_cpu_allocator(size_t max_cached_bytes) {
  std::lock_guard<std::mutex> lock(g_install_mu);
  CachingCpuAllocator& allocator = CachingCpuAllocator::instance();
  allocator.set_cap(max_cached_bytes);
  if (g_installed) return;
  // Priority above LibTorch's default registration (0), so a later default cannot replace it.
  c10::SetCPUAllocator(&allocator, /*priority=*/1);
  g_installed = true;
}

bool caching_cpu_allocator_installed() {
  std::lock_guard<std::mutex> lock(g_install_mu);
  return g_installed;
}

CpuAllocatorStats caching_cpu_allocator_stats() { return CachingCpuAllocator::instance().stats(); }

void release_cached_cpu_memory() { CachingCpuAllocator::instance().release(); }

}  // namespace morpheus::model
