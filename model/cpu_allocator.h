// SPDX-License-Identifier: MIT
// A caching CPU allocator for LibTorch tensors (installed with c10::SetCPUAllocator).
//
// A training step allocates and frees the same large tensors every step (activations, their
// gradients, the dense [V,D] gradient of an embedding table). glibc returns blocks above its mmap
// threshold (at most 32 MiB) to the kernel on free, so every step page-faults them in again; on a
// VM a fault costs ~10 µs per 4 KiB page (measured here: a fresh 207 MB tensor 0.4–0.7 s, the
// same tensor reused 10 ms). This allocator keeps freed blocks of >= kCachedMinBytes (sizes
// rounded up to 1/8 of their power of two, <= 12.5 % slack) and hands out the smallest cached
// block of at least the request and at most 1.5× it; on a miss it first frees as many cached
// bytes as the new block takes (least recently cached first), so new batch shapes do not make
// the footprint creep. Blocks of >= 2 MiB are 2 MiB-aligned and advised as transparent huge pages.
// Smaller requests go to posix_memalign/free as in LibTorch's default CPU allocator (64-byte
// alignment). The cache holds at most `max_cached_bytes`; a block freed beyond that goes back
// to the kernel. Thread-safe. Installation is process-wide and idempotent; tensors allocated
// before it keep their own deleter.
#pragma once

#include <cstddef>
#include <cstdint>

namespace morpheus::model {

constexpr size_t kCachedMinBytes = size_t{1} << 20;  // 1 MiB

struct CpuAllocatorStats {
  uint64_t cached_allocations = 0;  // requests >= kCachedMinBytes
  uint64_t cache_hits = 0;          // ... served from the cache
  size_t cached_bytes = 0;          // bytes held on free lists now
  size_t live_bytes = 0;            // bytes of cached-class blocks in use now
};

// Installs the caching allocator as LibTorch's CPU allocator (first call; later calls only
// update the cap). max_cached_bytes: cap of the free lists (default 4 GiB).
void install_caching_cpu_allocator(size_t max_cached_bytes = size_t{4} << 30);

// True once install_caching_cpu_allocator() has run in this process.
bool caching_cpu_allocator_installed();

CpuAllocatorStats caching_cpu_allocator_stats();

// Returns every cached block to the kernel (live blocks are untouched).
void release_cached_cpu_memory();

// The size class a request of n >= kCachedMinBytes bytes is served from (exposed for tests).
size_t cpu_allocator_size_class(size_t n);

}  // namespace morpheus::model
