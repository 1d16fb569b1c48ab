// SPDX-License-Identifier: MIT
// AnnIndex (embed/ann_index.h): searches from several threads at once, each with its own
// efSearch / nprobe, answer as the same searches run one after another.
#include "embed/ann_index.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace morpheus::embed {
namespace {

constexpr size_t kRows = 3000;
constexpr size_t kDim = 16;
constexpr size_t kQueries = 100;
constexpr size_t kK = 10;
constexpr int kRepeats = 40;  // searches per thread

// kRows Gaussian rows around 60 centres (row-major).
std::vector<float> clustered_rows() {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> centres(60 * kDim);
  for (float& v : centres) v = normal(rng);
  std::vector<float> rows(kRows * kDim);
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kDim; ++j)
      rows[r * kDim + j] = centres[(r % 60) * kDim + j] + normal(rng);
  }
  return rows;
}

// (row, score) of every hit of every query, in order.
std::vector<std::pair<int64_t, float>> flat_hits(const std::vector<std::vector<Neighbor>>& hits) {
  std::vector<std::pair<int64_t, float>> out;
  for (const std::vector<Neighbor>& query : hits) {
    for (const Neighbor& n : query) out.emplace_back(n.row, n.score);
  }
  return out;
}

// Two threads search one index `kRepeats` times each, thread t with options[t]; every answer
// must equal the sequential answer for its options, and the two option sets must answer
// differently (so a search that saw the other thread's options would be caught).
void expect_concurrent_equals_sequential(const AnnBuildOptions& build,
                                         const AnnSearchOptions (&options)[2]) {
  if (!ann_available()) GTEST_SKIP() << "this build has no FAISS";
  const std::vector<float> rows = clustered_rows();
  StatusOr<std::unique_ptr<AnnIndex>> index = AnnIndex::build(rows, kRows, kDim, build);
  ASSERT_TRUE(index.ok()) << index.status().message();
  const std::vector<float> queries(rows.begin(), rows.begin() + kQueries * kDim);
  std::vector<std::pair<int64_t, float>> want[2];
  for (int t = 0; t < 2; ++t) {
    StatusOr<std::vector<std::vector<Neighbor>>> hits = (*index)->search(queries, kK, options[t]);
    ASSERT_TRUE(hits.ok()) << hits.status().message();
    want[t] = flat_hits(*hits);
  }
  ASSERT_NE(want[0], want[1]) << "the two option sets must answer differently";
  int mismatches[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRepeats; ++i) {
        StatusOr<std::vector<std::vector<Neighbor>>> hits =
            (*index)->search(queries, kK, options[t]);
        if (!hits.ok() || flat_hits(*hits) != want[t]) ++mismatches[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches[0], 0);
  EXPECT_EQ(mismatches[1], 0);
}

TEST(AnnIndexTest, ConcurrentHnswSearchesWithTheirOwnEfSearchEqualSequentialOnes) {
  AnnBuildOptions build;
  build.type = "hnsw";
  build.hnsw_m = 4;
  build.ef_construction = 8;
  AnnSearchOptions narrow;
  narrow.ef_search = 1;  // raised to k
  AnnSearchOptions wide;
  wide.ef_search = 400;
  expect_concurrent_equals_sequential(build, {narrow, wide});
}

TEST(AnnIndexTest, ConcurrentIvfSearchesWithTheirOwnNprobeEqualSequentialOnes) {
  AnnBuildOptions build;
  build.type = "ivf";
  build.nlist = 64;
  AnnSearchOptions narrow;
  narrow.nprobe = 1;
  AnnSearchOptions wide;
  wide.nprobe = 64;
  expect_concurrent_equals_sequential(build, {narrow, wide});
}

TEST(AnnIndexTest, SearchLeavesOutExcludedRowsAndKeepsK) {
  if (!ann_available()) GTEST_SKIP() << "this build has no FAISS";
  const std::vector<float> rows = clustered_rows();
  AnnBuildOptions build;
  build.type = "flat";
  StatusOr<std::unique_ptr<AnnIndex>> index = AnnIndex::build(rows, kRows, kDim, build);
  ASSERT_TRUE(index.ok()) << index.status().message();
  const std::vector<float> query(rows.begin(), rows.begin() + kDim);
  StatusOr<std::vector<std::vector<Neighbor>>> hits = (*index)->search(query, 3, {}, {{0}});
  ASSERT_TRUE(hits.ok()) << hits.status().message();
  ASSERT_EQ(hits->size(), 1u);
  ASSERT_EQ((*hits)[0].size(), 3u);
  for (const Neighbor& n : (*hits)[0]) EXPECT_NE(n.row, 0);
}

}  // namespace
}  // namespace morpheus::embed
