// SPDX-License-Identifier: MIT
// Caching CPU allocator: size classes, reuse of freed blocks, small requests bypass the cache,
// the cap, data integrity of reused blocks, concurrent use, and a model step on top of it.
#include "model/cpu_allocator.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>
#include <vector>

namespace morpheus::model {
namespace {

constexpr int64_t kFloats3MiB = 3 * (1 << 20) / 4;

TEST(CpuAllocatorTest, SizeClassCoversRequestWithinOneEighth) {
  for (size_t n : {size_t{1} << 20, (size_t{1} << 20) + 1, size_t{3} << 20, size_t{12582912},
                   size_t{153600000}, (size_t{1} << 30) - 7}) {
    const size_t c = cpu_allocator_size_class(n);
    EXPECT_GE(c, n) << n;
    EXPECT_LE(c - n, n / 8) << n;
    EXPECT_EQ(cpu_allocator_size_class(c), c) << n;  // a class is its own class
  }
  EXPECT_EQ(cpu_allocator_size_class(4096), 4096u);  // below the cached range: exact
}

TEST(CpuAllocatorTest, FreedBlockIsReusedForSameSizeClass) {
  install_caching_cpu_allocator();
  ASSERT_TRUE(caching_cpu_allocator_installed());
  const void* first = nullptr;
  {
    torch::Tensor t = torch::empty({kFloats3MiB});
    first = t.data_ptr();
  }
  const CpuAllocatorStats before = caching_cpu_allocator_stats();
  torch::Tensor again = torch::empty({kFloats3MiB - 16});  // same class, slightly smaller
  const CpuAllocatorStats after = caching_cpu_allocator_stats();
  EXPECT_EQ(again.data_ptr(), first);
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  EXPECT_EQ(after.cached_allocations, before.cached_allocations + 1);
}

TEST(CpuAllocatorTest, SmallRequestsBypassTheCache) {
  install_caching_cpu_allocator();
  const CpuAllocatorStats before = caching_cpu_allocator_stats();
  std::vector<torch::Tensor> small;
  for (int i = 0; i < 100; ++i) small.push_back(torch::ones({1000}));
  small.clear();
  const CpuAllocatorStats after = caching_cpu_allocator_stats();
  EXPECT_EQ(after.cached_allocations, before.cached_allocations);
  EXPECT_EQ(after.cached_bytes, before.cached_bytes);
}

TEST(CpuAllocatorTest, CapBoundsCachedBytesAndReleaseEmptiesCache) {
  install_caching_cpu_allocator(size_t{8} << 20);
  {
    std::vector<torch::Tensor> blocks;
    for (int i = 0; i < 5; ++i) blocks.push_back(torch::empty({int64_t{1} << 20}));  // 4 MiB
  }
  EXPECT_LE(caching_cpu_allocator_stats().cached_bytes, size_t{8} << 20);
  EXPECT_GT(caching_cpu_allocator_stats().cached_bytes, 0u);
  release_cached_cpu_memory();
  EXPECT_EQ(caching_cpu_allocator_stats().cached_bytes, 0u);
  install_caching_cpu_allocator();  // back to the default cap
}

TEST(CpuAllocatorTest, BestFitServesSlightlySmallerShapes) {
  install_caching_cpu_allocator();
  release_cached_cpu_memory();
  const void* block = nullptr;
  {
    torch::Tensor t = torch::empty({int64_t{2} << 20});  // 8 MiB
    block = t.data_ptr();
  }
  torch::Tensor smaller = torch::empty({(int64_t{2} << 20) * 3 / 4});  // 6 MiB: 8 <= 1.5 × 6
  EXPECT_EQ(smaller.data_ptr(), block);
  torch::Tensor much_smaller = torch::empty({int64_t{1} << 19});  // 2 MiB: not from an 8 MiB
  EXPECT_NE(much_smaller.data_ptr(), block);
}

TEST(CpuAllocatorTest, MissFreesLeastRecentlyCachedBlocksFirst) {
  install_caching_cpu_allocator();
  release_cached_cpu_memory();
  torch::Tensor old_block = torch::empty({int64_t{2} << 20});  // 8 MiB
  torch::Tensor new_block = torch::empty({int64_t{1} << 19});  // 2 MiB
  old_block = torch::Tensor();                                 // cached first
  new_block = torch::Tensor();                                 // cached second
  ASSERT_EQ(caching_cpu_allocator_stats().cached_bytes, size_t{10} << 20);
  torch::Tensor miss = torch::empty({int64_t{5} << 18});  // 5 MiB: neither block fits
  // The 8 MiB block (oldest) covers the new 5 MiB; the recent 2 MiB one stays cached.
  EXPECT_EQ(caching_cpu_allocator_stats().cached_bytes, size_t{2} << 20);
}

TEST(CpuAllocatorTest, ReusedBlocksHoldNewDataAndLiveBytesReturnToZero) {
  install_caching_cpu_allocator();
  const size_t live_before = caching_cpu_allocator_stats().live_bytes;
  for (int round = 0; round < 3; ++round) {
    torch::Tensor a = torch::full({kFloats3MiB}, static_cast<float>(round));
    torch::Tensor b = a * 2 + 1;
    EXPECT_EQ(b.min().item<float>(), 2.0f * round + 1);
    EXPECT_EQ(b.max().item<float>(), 2.0f * round + 1);
  }
  EXPECT_EQ(caching_cpu_allocator_stats().live_bytes, live_before);
}

TEST(CpuAllocatorTest, ConcurrentAllocationsKeepTheirContents) {
  install_caching_cpu_allocator();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int th = 0; th < 4; ++th) {
    threads.emplace_back([th, &failures] {
      for (int i = 0; i < 50; ++i) {
        const int64_t n = kFloats3MiB + 4096 * ((th + i) % 5);
        torch::Tensor t = torch::full({n}, static_cast<float>(th * 1000 + i));
        if (t.min().item<float>() != t.max().item<float>() ||
            t[n - 1].item<float>() != static_cast<float>(th * 1000 + i)) {
          ++failures[static_cast<size_t>(th)];
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

TEST(CpuAllocatorTest, GradientsIdenticalWithAndWithoutBlockReuse) {
  auto run = [] {
    torch::manual_seed(3);
    torch::nn::Sequential net(torch::nn::Linear(512, 1024), torch::nn::GELU(),
                              torch::nn::Linear(1024, 512));
    for (int step = 0; step < 3; ++step) {
      net->zero_grad();
      torch::Tensor x = torch::randn({600, 512});
      net->forward(x).pow(2).mean().backward();
    }
    std::vector<torch::Tensor> grads;
    for (const auto& p : net->parameters()) grads.push_back(p.grad().clone());
    return grads;
  };
  install_caching_cpu_allocator(0);  // cap 0: every freed block goes back to the system
  const std::vector<torch::Tensor> reference = run();
  install_caching_cpu_allocator();
  run();  // fills the cache
  const uint64_t hits_before = caching_cpu_allocator_stats().cache_hits;
  const std::vector<torch::Tensor> reused = run();
  EXPECT_GT(caching_cpu_allocator_stats().cache_hits, hits_before);
  ASSERT_EQ(reference.size(), reused.size());
  for (size_t i = 0; i < reference.size(); ++i) EXPECT_TRUE(torch::equal(reference[i], reused[i]));
}

}  // namespace
}  // namespace morpheus::model
