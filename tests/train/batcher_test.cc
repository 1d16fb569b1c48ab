// SPDX-License-Identifier: MIT
// Batching the training cache: teacher confidence, epoch plans (every window once, seeded,
// length-sorted buckets), sequential plans, the exact tensors of a batch built from a hand-made
// cache (BOS/EOS/PAD layout, case flags, gap labels, sentence slots, skipped chunks), and the
// background prefetcher (plan order, error propagation, early stop).
#include "train/batcher.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::train {
namespace {

CacheWord batcher_word(std::vector<uint16_t> chars, uint32_t case_bits, uint32_t boundary_bits,
                       uint32_t word_id, uint32_t root_id, uint8_t flags) {
  CacheWord w;
  w.char_ids = std::move(chars);
  w.case_bits = case_bits;
  w.boundary_bits = boundary_bits;
  w.word_id = word_id;
  w.root_id = root_id;
  w.flags = flags;
  return w;
}

// Window 0: "Abc" (cut after 1 character) and "de"; window 1: a 6-character word cut after 2 and
// 5; window 2: a long word stored as chunks of 4 and 1 characters, then a 2-character word.
CacheReader batcher_cache() {
  CacheInfo info;
  info.max_word_chars = 30;
  info.max_window_words = 8;
  info.char_vocab_size = 20;
  info.word_vocab_size = 10;
  info.root_vocab_size = 5;
  CacheWriter writer(info);
  writer.begin_window();
  writer.add_word(batcher_word({4, 5, 6}, 0b001, 0b010, 3, 2, 0));
  writer.add_word(batcher_word({7, 8}, 0, 0, 4, 1, 0));
  writer.begin_window();
  writer.add_word(batcher_word({4, 4, 4, 4, 4, 4}, 0b100000, 0b100100, 5, 3, 0));
  writer.begin_window();
  writer.add_word(batcher_word({9, 9, 9, 9}, 0, 0b0100, 6, 4, kWordIsChunk | kWordContinues));
  writer.add_word(batcher_word({10}, 0, 0, 6, 4, kWordIsChunk));
  writer.add_word(batcher_word({11, 12}, 0b11, 0, 7, 0, 0));
  const std::string path = path_join(testing::make_temp_dir("batcher"), "train.cache");
  EXPECT_TRUE(writer.write(path).ok());
  StatusOr<CacheReader> cache = CacheReader::open(path);
  EXPECT_TRUE(cache.ok()) << cache.status().to_string();
  return std::move(*cache);
}

torch::Tensor i64_rows(const std::vector<int64_t>& values, int64_t cols) {
  return torch::tensor(values, torch::kLong).view({-1, cols});
}

void expect_same_batch(const model::MorpheusBatch& a, const model::MorpheusBatch& b) {
  EXPECT_TRUE(torch::equal(a.char_ids, b.char_ids));
  EXPECT_TRUE(torch::equal(a.case_flags, b.case_flags));
  EXPECT_TRUE(torch::equal(a.boundary_labels, b.boundary_labels));
  EXPECT_TRUE(torch::equal(a.confidence, b.confidence));
  EXPECT_TRUE(torch::equal(a.word_ids, b.word_ids));
  EXPECT_TRUE(torch::equal(a.root_ids, b.root_ids));
  EXPECT_TRUE(torch::equal(a.word_index, b.word_index));
}

TEST(TeacherConfidenceTest, LengthOverFourSegmentsClampedToThePaperRange) {
  EXPECT_EQ(teacher_confidence(10, 0), 1.0);           // one segment
  EXPECT_EQ(teacher_confidence(2, 0), 1.0);            // one segment, however short
  EXPECT_EQ(teacher_confidence(8, 0b10), 1.0);         // 8 / (4·2)
  EXPECT_EQ(teacher_confidence(6, 0b1000), 0.75);      // 6 / (4·2)
  EXPECT_EQ(teacher_confidence(6, 0b100100), 0.5);     // 6 / (4·3)
  EXPECT_EQ(teacher_confidence(3, 0b110), 0.3);        // 3/12 = 0.25, clamped up
  EXPECT_EQ(teacher_confidence(40, 0b10010010), 1.0);  // 40/16, clamped down
}

TEST(PlanEpochTest, EveryWindowOnceInBatchesCutPerBucket) {
  // 10 windows, 3 per batch, 2 batches per bucket: buckets of 6 and 4 -> batches 3 3 | 3 1.
  const std::vector<uint32_t> lengths{5, 1, 9, 3, 3, 7, 2, 8, 6, 4};
  const EpochPlan plan = plan_epoch(lengths, 3, 2, 11, 0);
  std::vector<size_t> sizes;
  std::vector<uint64_t> seen;
  for (const auto& batch : plan) {
    sizes.push_back(batch.size());
    seen.insert(seen.end(), batch.begin(), batch.end());
  }
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 3, 3, 3}));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(PlanEpochTest, SameSeedAndEpochSamePlanOtherEpochOtherOrder) {
  std::vector<uint32_t> lengths(40);
  for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<uint32_t>(1 + i % 13);
  EXPECT_EQ(plan_epoch(lengths, 4, 3, 5, 2), plan_epoch(lengths, 4, 3, 5, 2));
  EXPECT_NE(plan_epoch(lengths, 4, 3, 5, 2), plan_epoch(lengths, 4, 3, 5, 3));
  EXPECT_NE(plan_epoch(lengths, 4, 3, 5, 2), plan_epoch(lengths, 4, 3, 6, 2));
}

TEST(PlanEpochTest, BatchesOfOneBucketHoldDisjointLengthRanges) {
  // One bucket holding every window: sorted by length before cutting, so no two batches'
  // length ranges overlap (ties may touch).
  std::vector<uint32_t> lengths(30);
  for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<uint32_t>((i * 7) % 19);
  const EpochPlan plan = plan_epoch(lengths, 4, 100, 9, 1);
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (const auto& batch : plan) {
    uint32_t lo = 1000, hi = 0;
    for (uint64_t w : batch) {
      lo = std::min(lo, lengths[w]);
      hi = std::max(hi, lengths[w]);
    }
    ranges.emplace_back(lo, hi);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    EXPECT_LE(ranges[i - 1].second, ranges[i].first) << "batch " << i;
  }
}

TEST(PlanSequentialTest, FileOrderInBatchesUpToTheLimit) {
  EXPECT_EQ(plan_sequential(7, 3, 0), (EpochPlan{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(plan_sequential(7, 3, 5), (EpochPlan{{0, 1, 2}, {3, 4}}));
  EXPECT_EQ(plan_sequential(4, 2, 10), (EpochPlan{{0, 1}, {2, 3}}));
  EXPECT_TRUE(plan_sequential(0, 2, 0).empty());
}

TEST(BatcherTest, WindowMaxLengthsAreTheLongestWordPerWindow) {
  const CacheReader cache = batcher_cache();
  EXPECT_EQ(window_max_lengths(cache), (std::vector<uint32_t>{3, 6, 4}));
}

TEST(BatcherTest, BatchHoldsBosCharsEosPaddingLabelsAndSlots) {
  const CacheReader cache = batcher_cache();
  const model::MorpheusBatch b = make_batch(cache, {0, 1}, 32, false);
  // T = longest word (6) + BOS + EOS.
  EXPECT_TRUE(torch::equal(b.char_ids, i64_rows({2, 4, 5, 6, 3, 0, 0, 0,  //
                                                 2, 7, 8, 3, 0, 0, 0, 0,  //
                                                 2, 4, 4, 4, 4, 4, 4, 3},
                                                8)));
  EXPECT_TRUE(torch::equal(b.case_flags, i64_rows({0, 1, 0, 0, 0, 0, 0, 0,  //
                                                   0, 0, 0, 0, 0, 0, 0, 0,  //
                                                   0, 0, 0, 0, 0, 0, 1, 0},
                                                  8)));
  // Gap g lies between positions g and g+1: boundary bit g.
  EXPECT_TRUE(torch::equal(b.boundary_labels, torch::tensor({0, 1, 0, 0, 0, 0, 0,  //
                                                             0, 0, 0, 0, 0, 0, 0,  //
                                                             0, 0, 1, 0, 0, 1, 0},
                                                            torch::kFloat)
                                                  .view({3, 7})));
  EXPECT_TRUE(torch::equal(b.confidence, torch::tensor({0.375f, 1.0f, 0.5f})));
  EXPECT_TRUE(torch::equal(b.word_ids, torch::tensor({3, 4, 5}, torch::kLong)));
  EXPECT_TRUE(torch::equal(b.root_ids, torch::tensor({2, 1, 3}, torch::kLong)));
  // The teacher's suffix strings: chars 5 6 (after the cut at gap 1), none, 4 4 4 4 (gap 2 on).
  const auto fnv = [](std::vector<uint64_t> ids) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint64_t id : ids) h = (h ^ id) * 0x100000001b3ULL;
    return static_cast<int64_t>((h >> 1) | 1);
  };
  EXPECT_TRUE(
      torch::equal(b.suffix_ids, torch::tensor({fnv({5, 6}), int64_t{0}, fnv({4, 4, 4, 4})})));
  EXPECT_TRUE(torch::equal(b.word_index, i64_rows({0, 1, 2, -1}, 2)));
  model::ModelConfig config;
  config.max_word_len = 8;
  config.max_sent_len = 2;
  EXPECT_NO_THROW(b.check(config));
}

TEST(BatcherTest, SkippedChunksLeaveTheirWindowSlots) {
  const CacheReader cache = batcher_cache();
  const model::MorpheusBatch with = make_batch(cache, {2, 0}, 32, false);
  EXPECT_EQ(with.char_ids.sizes(), (std::vector<int64_t>{5, 6}));
  EXPECT_TRUE(torch::equal(with.word_index, i64_rows({0, 1, 2, 3, 4, -1}, 3)));
  EXPECT_TRUE(torch::equal(with.word_ids, torch::tensor({6, 6, 7, 3, 4}, torch::kLong)));
  const model::MorpheusBatch without = make_batch(cache, {2, 0}, 32, true);
  // Without the chunks the longest word is "Abc": T = 3 + 2.
  EXPECT_EQ(without.char_ids.sizes(), (std::vector<int64_t>{3, 5}));
  EXPECT_TRUE(torch::equal(without.word_index, i64_rows({0, -1, 1, 2}, 2)));
  EXPECT_TRUE(torch::equal(without.word_ids, torch::tensor({7, 3, 4}, torch::kLong)));
  EXPECT_TRUE(torch::equal(without.char_ids[0], torch::tensor({2, 11, 12, 3, 0}, torch::kLong)));
  EXPECT_TRUE(torch::equal(without.case_flags[0], torch::tensor({0, 1, 1, 0, 0}, torch::kLong)));
}

TEST(BatcherTest, WordsLongerThanTheModelAllowsAreRejected) {
  const CacheReader cache = batcher_cache();
  EXPECT_THROW(make_batch(cache, {1}, 7, false), c10::Error);  // 6 + 2 > 7
  EXPECT_NO_THROW(make_batch(cache, {1}, 8, false));
}

TEST(BatchPrefetcherTest, YieldsThePlanInOrderFromTheFirstBatch) {
  const CacheReader cache = batcher_cache();
  const EpochPlan plan{{2}, {0, 1}, {1}, {0}};
  BatchPrefetcher prefetcher(cache, plan, 1, 32, false, /*pin_memory=*/false, 1);
  for (size_t k = 1; k < plan.size(); ++k) {
    model::MorpheusBatch got;
    ASSERT_TRUE(prefetcher.next(&got)) << "batch " << k;
    expect_same_batch(got, make_batch(cache, plan[k], 32, false));
  }
  model::MorpheusBatch none;
  EXPECT_FALSE(prefetcher.next(&none));
  EXPECT_FALSE(prefetcher.next(&none));
}

TEST(BatchPrefetcherTest, RethrowsTheBuildErrorAfterTheGoodBatches) {
  const CacheReader cache = batcher_cache();
  const EpochPlan plan{{0}, {1}, {2}};  // window 1 needs T = 8
  BatchPrefetcher prefetcher(cache, plan, 0, 7, false);
  model::MorpheusBatch got;
  ASSERT_TRUE(prefetcher.next(&got));
  expect_same_batch(got, make_batch(cache, plan[0], 7, false));
  EXPECT_THROW(prefetcher.next(&got), c10::Error);
}

TEST(BatchPrefetcherTest, StopsWhenDestroyedBeforeThePlanIsConsumed) {
  const CacheReader cache = batcher_cache();
  const EpochPlan plan = plan_sequential(3, 1, 0);
  for (size_t consumed = 0; consumed <= 2; ++consumed) {
    BatchPrefetcher prefetcher(cache, plan, 0, 32, false, /*pin_memory=*/false, 1);
    model::MorpheusBatch got;
    for (size_t k = 0; k < consumed; ++k) ASSERT_TRUE(prefetcher.next(&got));
  }  // the destructor joins the builder thread, which is blocked on a full queue
}

}  // namespace
}  // namespace morpheus::train
