// SPDX-License-Identifier: MIT
// The character-level tokenizer: reversible on any valid UTF-8, byte fallback for unseen code
// points, file round trip, errors.
#include "lm_data/char_codec.h"

#include <gtest/gtest.h>

#include <random>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus::lm {
namespace {

TEST(CharCodecTest, SeenCodePointsGetOneIdUnseenOnesTheirBytes) {
  const CharCodec codec = CharCodec::from_code_points({U'b', U'a', U'a'});
  EXPECT_EQ(codec.vocab_size(), 258);
  std::vector<int32_t> ids;
  ASSERT_TRUE(codec.encode("ba😀", &ids).ok());
  EXPECT_EQ(ids, (std::vector<int32_t>{257, 256, 240, 159, 152, 128}));
  std::string text;
  ASSERT_TRUE(codec.decode(ids, &text).ok());
  EXPECT_EQ(text, "ba😀");
}

TEST(CharCodecTest, RoundTripsRandomText) {
  std::mt19937_64 rng(11);
  const CharCodec codec = CharCodec::from_code_points({U'a', U'ı', U'ğ', U' ', U'İ'});
  for (int i = 0; i < 500; ++i) {
    const std::string s = testing::random_text(rng, 60);
    std::vector<int32_t> ids;
    ASSERT_TRUE(codec.encode(s, &ids).ok());
    std::string back;
    ASSERT_TRUE(codec.decode(ids, &back).ok());
    ASSERT_EQ(back, s);
  }
}

TEST(CharCodecTest, TrainsOnAFileAndSavesAndLoads) {
  const std::string dir = testing::make_temp_dir("chars");
  ASSERT_TRUE(write_file_atomic(dir + "/t.txt", "kış\nçok güzel\n").ok());
  auto codec = CharCodec::train(dir + "/t.txt");
  ASSERT_TRUE(codec.ok()) << codec.status().message();
  EXPECT_EQ(codec->code_points().size(), 11u);  // k ı ş ç o g ü z e l and the space
  ASSERT_TRUE(codec->save(dir + "/c.json").ok());
  auto loaded = CharCodec::load(dir + "/c.json");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->code_points(), codec->code_points());
}

TEST(CharCodecTest, BadInputIsAnError) {
  const CharCodec codec = CharCodec::from_code_points({U'a'});
  std::vector<int32_t> ids;
  EXPECT_FALSE(codec.encode("a\xc3(", &ids).ok());
  std::string text;
  const Status out_of_range = codec.decode({97, 257}, &text);
  EXPECT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.message().find("257"), std::string::npos);
  const std::string dir = testing::make_temp_dir("chars");
  ASSERT_TRUE(write_file_atomic(dir + "/bad.json", "{\"format\":\"other\"}").ok());
  EXPECT_EQ(CharCodec::load(dir + "/bad.json").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(CharCodec::load(dir + "/none.json").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace morpheus::lm
