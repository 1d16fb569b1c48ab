// SPDX-License-Identifier: MIT
// The token file formats (pack/format.h) and their writers (pack/writer.h): the bytes of each
// format checked against its published layout, the token type chosen from the vocabulary size,
// ids over the token type, and nothing under a final name before commit.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "pack/format.h"
#include "pack/writer.h"
#include "tests/pack/pack_test_util.h"
#include "tests/support/test_support.h"

namespace morpheus::pack {
namespace {

using testing::file_bytes;

uint64_t le_at(const std::string& bytes, size_t offset, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= uint64_t{static_cast<unsigned char>(bytes.at(offset + i))} << (8 * i);
  }
  return v;
}

// Writes `docs` with a writer of `format`/`dtype` at a fresh prefix, commits, returns the prefix.
std::string write_pack(const std::string& tag, Format format, DType dtype,
                       const std::vector<std::vector<int32_t>>& docs) {
  const std::string prefix = path_join(morpheus::testing::make_temp_dir(tag), "p");
  auto writer = make_writer(format, dtype, prefix);
  EXPECT_TRUE(writer.ok()) << writer.status().to_string();
  if (!writer.ok()) return prefix;
  for (const auto& d : docs) EXPECT_TRUE((*writer)->add(d).ok());
  EXPECT_TRUE((*writer)->finish().ok());
  EXPECT_TRUE((*writer)->commit().ok());
  return prefix;
}

const std::vector<std::vector<int32_t>> kDocs = {{5, 6, 7}, {}, {65535, 0}, {9}};

TEST(PackFormat, DtypeIsUint16BelowVocabulary65500) {
  for (const Format f : {Format::kMegatron, Format::kLlmc, Format::kNpy}) {
    EXPECT_EQ(dtype_for(f, 1), DType::kUint16);
    EXPECT_EQ(dtype_for(f, 65499), DType::kUint16);
  }
}

TEST(PackFormat, DtypeIsWideFromVocabulary65500) {
  EXPECT_EQ(dtype_for(Format::kMegatron, 65500), DType::kInt32);
  EXPECT_EQ(dtype_for(Format::kNpy, 65500), DType::kInt32);
  EXPECT_EQ(dtype_for(Format::kLlmc, 65500), DType::kUint32);
  EXPECT_EQ(dtype_for(Format::kMegatron, 128256), DType::kInt32);
}

TEST(PackFormat, UnknownFormatIsAnErrorNamingTheFormats) {
  const auto f = parse_format("parquet");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("parquet"), std::string::npos);
  EXPECT_NE(f.status().hint().find("megatron"), std::string::npos);
  EXPECT_EQ(parse_format("llmc").value(), Format::kLlmc);
}

TEST(PackFormat, NpyHeaderIsOneHundredTwentyEightBytesEndingInNewline) {
  const std::string h = npy_header("<u2", 123456789);
  ASSERT_EQ(h.size(), kNpyHeaderBytes);
  EXPECT_EQ(h.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(le_at(h, 8, 2), kNpyHeaderBytes - 10);
  EXPECT_EQ(h.back(), '\n');
  EXPECT_NE(h.find("'shape': (123456789,)"), std::string::npos);
}

TEST(PackWriter, MegatronIndexFollowsTheIndexedDatasetLayout) {
  const std::string p = write_pack("w_megatron", Format::kMegatron, DType::kUint16, kDocs);
  const std::string bin = file_bytes(p + ".bin");
  const std::string idx = file_bytes(p + ".idx");
  ASSERT_EQ(bin.size(), 6u * 2);
  EXPECT_EQ(le_at(bin, 0, 2), 5u);
  EXPECT_EQ(le_at(bin, 6, 2), 65535u);
  ASSERT_EQ(idx.size(), 34u + 4 * 4 + 4 * 8 + 5 * 8);
  EXPECT_EQ(idx.substr(0, 9), std::string("MMIDIDX\0\0", 9));
  EXPECT_EQ(le_at(idx, 9, 8), 1u);   // version
  EXPECT_EQ(le_at(idx, 17, 1), 8u);  // uint16
  EXPECT_EQ(le_at(idx, 18, 8), 4u);  // sequences
  EXPECT_EQ(le_at(idx, 26, 8), 5u);  // document indices
  const std::vector<uint64_t> lengths = {3, 0, 2, 1}, pointers = {0, 6, 6, 10};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(le_at(idx, 34 + 4 * i, 4), lengths[i]) << i;
    EXPECT_EQ(le_at(idx, 50 + 8 * i, 8), pointers[i]) << i;
  }
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(le_at(idx, 82 + 8 * i, 8), i);
}

TEST(PackWriter, LlmcHeaderHasMagicVersionAndTokenCount) {
  const std::string p = write_pack("w_llmc", Format::kLlmc, DType::kUint16, kDocs);
  const std::string bin = file_bytes(p + ".bin");
  ASSERT_EQ(bin.size(), 1024u + 6 * 2);
  EXPECT_EQ(le_at(bin, 0, 4), 20240520u);
  EXPECT_EQ(le_at(bin, 4, 4), 1u);
  EXPECT_EQ(le_at(bin, 8, 4), 6u);
  for (size_t i = 3; i < 256; ++i) ASSERT_EQ(le_at(bin, 4 * i, 4), 0u) << i;
  EXPECT_EQ(le_at(bin, 1024 + 6, 2), 65535u);
}

TEST(PackWriter, LlmcUint32HeaderIsTheLlama3One) {
  const std::string p = write_pack("w_llmc32", Format::kLlmc, DType::kUint32, {{70000, 1}});
  const std::string bin = file_bytes(p + ".bin");
  ASSERT_EQ(bin.size(), 1024u + 2 * 4);
  EXPECT_EQ(le_at(bin, 0, 4), 20240801u);
  EXPECT_EQ(le_at(bin, 4, 4), 7u);
  EXPECT_EQ(le_at(bin, 8, 4), 2u);
  EXPECT_EQ(le_at(bin, 1024, 4), 70000u);
}

TEST(PackWriter, NpyArraysHoldTheTokensAndTheDocumentOffsets) {
  const std::string p = write_pack("w_npy", Format::kNpy, DType::kUint16, kDocs);
  const std::string data = file_bytes(p + ".npy");
  const std::string idx = file_bytes(p + ".idx.npy");
  EXPECT_EQ(data.substr(0, kNpyHeaderBytes), npy_header("<u2", 6));
  EXPECT_EQ(idx.substr(0, kNpyHeaderBytes), npy_header("<i8", 5));
  ASSERT_EQ(data.size(), kNpyHeaderBytes + 12);
  ASSERT_EQ(idx.size(), kNpyHeaderBytes + 40);
  const std::vector<uint64_t> offsets = {0, 3, 3, 5, 6};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(le_at(idx, kNpyHeaderBytes + 8 * i, 8), offsets[i]);
}

TEST(PackWriter, WideTokenTypeOfALargeVocabularyStoresIdsAbove65535) {
  // A fake vocabulary of 70,000 ids: the type dtype_for gives holds its largest id.
  const DType dtype = dtype_for(Format::kMegatron, 70000);
  ASSERT_EQ(dtype, DType::kInt32);
  const std::string p = write_pack("w_wide", Format::kMegatron, dtype, {{69999, 65536, 3}});
  const std::string bin = file_bytes(p + ".bin");
  ASSERT_EQ(bin.size(), 12u);
  EXPECT_EQ(le_at(bin, 0, 4), 69999u);
  EXPECT_EQ(le_at(bin, 4, 4), 65536u);
  EXPECT_EQ(le_at(file_bytes(p + ".idx"), 17, 1), 4u);  // Megatron's int32 code
}

TEST(PackWriter, IdOverTheTokenTypeIsAnInternalErrorAndWritesNothing) {
  const std::string dir = morpheus::testing::make_temp_dir("w_over");
  const std::string p = path_join(dir, "p");
  {
    auto writer = make_writer(Format::kMegatron, DType::kUint16, p);
    ASSERT_TRUE(writer.ok());
    const Status s = (*writer)->add(std::vector<int32_t>{1, 65536});
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_NE(s.message().find("65536"), std::string::npos);
    EXPECT_EQ((*writer)->documents(), 0u);
    const Status negative = (*writer)->add(std::vector<int32_t>{-1});
    EXPECT_EQ(negative.code(), StatusCode::kInternal);
  }
  EXPECT_TRUE(testing::dir_entries(dir).empty());
}

TEST(PackWriter, FilesAppearUnderTheirFinalNamesOnlyAtCommit) {
  const std::string dir = morpheus::testing::make_temp_dir("w_commit");
  const std::string p = path_join(dir, "p");
  auto writer = make_writer(Format::kNpy, DType::kUint16, p);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->add(std::vector<int32_t>{1, 2}).ok());
  ASSERT_TRUE((*writer)->finish().ok());
  EXPECT_FALSE(file_exists(p + ".npy"));
  EXPECT_FALSE(file_exists(p + ".idx.npy"));
  ASSERT_TRUE((*writer)->commit().ok());
  EXPECT_TRUE(file_exists(p + ".npy"));
  EXPECT_TRUE(file_exists(p + ".idx.npy"));
  EXPECT_EQ(testing::dir_entries(dir).size(), 2u);  // no temporary file left
}

TEST(PackWriter, WriterDestroyedBeforeCommitLeavesNoFile) {
  const std::string dir = morpheus::testing::make_temp_dir("w_abort");
  {
    auto writer = make_writer(Format::kMegatron, DType::kUint16, path_join(dir, "p"));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->add(std::vector<int32_t>{1, 2}).ok());
    ASSERT_TRUE((*writer)->finish().ok());
  }
  EXPECT_TRUE(testing::dir_entries(dir).empty());
}

TEST(PackWriter, TokenTypeOfAnotherFormatIsRefused) {
  EXPECT_FALSE(make_writer(Format::kLlmc, DType::kInt32, "/tmp/unused_prefix").ok());
  EXPECT_FALSE(make_writer(Format::kMegatron, DType::kUint32, "/tmp/unused_prefix").ok());
}

}  // namespace
}  // namespace morpheus::pack
