// SPDX-License-Identifier: MIT
// Caching CPU allocator: size classes, free lists, huge-page advice, the c10 hook.
#include "model/cpu_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace morpheus::model {
namespace {

constexpr size_t kSmallAlignment = 64;              // LibTorch's own CPU alignment
constexpr size_t kHugePageBytes = size_t{2} << 20;  // x86-64 transparent huge page

class CachingCpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    void* data = n == 0 ? nullptr : acquire(n);
    return {data, data, &CachingCpuAllocator::deallocate, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &CachingCpuAllocator::deallocate; }

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
      stats_.live_bytes += size;
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        void* data = it->second.back();
        it->second.pop_back();
        stats_.cached_bytes -= size;
        ++stats_.cache_hits;
        live_.emplace(data, size);
        return data;
      }
    }
    void* data = system_alloc(size);
    std::lock_guard<std::mutex> lock(mu_);
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
          self.free_[size].push_back(data);
          self.stats_.cached_bytes += size;
          return;
        }
      }
    }
    std::free(data);  // small block, or the cache is full
  }

  // Frees cached blocks until at most `keep` bytes stay cached. Caller holds mu_.
  void trim_locked(size_t keep) {
    for (auto& [size, blocks] : free_) {
      while (!blocks.empty() && stats_.cached_bytes > keep) {
        std::free(blocks.back());
        blocks.pop_back();
        stats_.cached_bytes -= size;
      }
    }
  }

  mutable std::mutex mu_;
  mutable std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> blocks
  mutable std::unordered_map<void*, size_t> live_;               // cached-class blocks in use
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
  return (n + step - 1) / step * step;
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
