// SPDX-License-Identifier: MIT
// pack_corpus (pack/packer.h) and merge_packs (pack/merge.h) on a small tokenizer: documents
// are their encode ids (+ </s>), shards merge to the unsharded pack byte for byte, workers change
// nothing, bad lines fail naming file and line or are skipped and counted, empty documents are
// zero-length sequences (no </s> or <s>), a vocabulary of 65,500 ids stores int32, and merge
// refuses what does not belong together.
#include "pack/packer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/utf8.h"
#include "pack/manifest.h"
#include "pack/merge.h"
#include "pack/reader.h"
#include "tests/pack/pack_test_util.h"
#include "tests/support/test_support.h"
#include "tokenizer/directory_format.h"

namespace morpheus::pack {
namespace {

using testing::file_bytes;
using testing::jsonl;

class PackTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::write_tokenizer_dir("pack_tok"));
    tok_ = testing::load_tokenizer(*dir_).release();
  }
  static void TearDownTestSuite() {
    delete tok_;
    delete dir_;
  }

  // The sample texts as a JSONL file.
  static std::string corpus(const std::string& tag) {
    std::vector<std::string> lines;
    for (const std::string& t : testing::sample_texts()) lines.push_back(jsonl(t));
    return testing::write_lines(tag, "corpus.jsonl", lines);
  }

  static PackOptions options(const std::vector<std::string>& inputs, const std::string& tag,
                             Format format = Format::kMegatron) {
    PackOptions o;
    o.inputs = inputs;
    o.out = path_join(morpheus::testing::make_temp_dir(tag), "out");
    o.format = format;
    o.content.append_eos = true;
    o.progress = false;
    o.block_docs = 2;  // several blocks from a few documents
    return o;
  }

  // A document's ids in a megatron or npy pack: its encode ids (+ </s>); an empty document
  // stays empty (in an llmc file it is </s> alone).
  static std::vector<int32_t> encoded(const std::string& text, bool eos = true,
                                      Format format = Format::kMegatron) {
    std::vector<int32_t> ids;
    if (text.empty() && format != Format::kLlmc) return ids;
    tokenizer::EncodeOptions eo;
    eo.add_eos = eos;
    EXPECT_TRUE(tok_->encode(text, eo, &ids).ok());
    return ids;
  }

  static std::vector<std::vector<int32_t>> documents(const std::string& prefix) {
    std::vector<std::vector<int32_t>> docs;
    const auto m = read_manifest(prefix);
    EXPECT_TRUE(m.ok()) << m.status().to_string();
    if (!m.ok()) return docs;
    auto reader = open_pack_reader(prefix, *m);
    EXPECT_TRUE(reader.ok()) << reader.status().to_string();
    std::vector<int32_t> ids;
    while (reader.ok() && (*reader)->next(&ids).value()) docs.push_back(ids);
    return docs;
  }

  static std::string* dir_;
  static tokenizer::Tokenizer* tok_;
};

std::string* PackTest::dir_ = nullptr;
tokenizer::Tokenizer* PackTest::tok_ = nullptr;

TEST_F(PackTest, DocumentsAreTheirEncodeIdsFollowedByEos) {
  for (const Format f : {Format::kMegatron, Format::kLlmc, Format::kNpy}) {
    const PackOptions o = options({corpus("p_docs")}, "p_docs_out", f);
    const auto m = pack_corpus(*tok_, o);
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    const auto texts = testing::sample_texts();
    const auto docs = documents(o.out);
    ASSERT_EQ(docs.size(), texts.size()) << format_name(f);
    for (size_t i = 0; i < texts.size(); ++i) {
      EXPECT_EQ(docs[i], encoded(texts[i], true, f)) << format_name(f) << " document " << i;
      std::string back;
      ASSERT_TRUE(tok_->decode(docs[i], &back).ok());
      EXPECT_EQ(back, texts[i]);
    }
    EXPECT_EQ(m->documents, texts.size());
    EXPECT_EQ(m->dtype, DType::kUint16);
    EXPECT_EQ(m->eos_id, tok_->eos_id());
  }
}

TEST_F(PackTest, ManifestRecordsCountsTokenizerInputsAndOptions) {
  const std::string in = corpus("p_manifest");
  PackOptions o = options({in}, "p_manifest_out", Format::kNpy);
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  const auto m = read_manifest(o.out);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  uint64_t tokens = 0, chars = 0;
  for (const std::string& t : testing::sample_texts()) {
    tokens += encoded(t).size();
    chars += utf8::length(t);
  }
  EXPECT_EQ(m->tokens, tokens);
  EXPECT_EQ(m->characters, chars);
  EXPECT_EQ(m->vocab_size, tok_->vocab_size());
  EXPECT_EQ(m->tokenizer_id, hex16(tok_->id()));
  EXPECT_EQ(m->tokenizer_checksum, file_checksum(path_join(*dir_, "morpheus.json")).value());
  ASSERT_EQ(m->inputs.size(), 1u);
  EXPECT_EQ(m->inputs[0].checksum, file_checksum(in).value());
  EXPECT_TRUE(m->options.append_eos);
  EXPECT_EQ(m->files.size(), 2u);
}

TEST_F(PackTest, ShardsMergeToTheUnshardedPackByteForByte) {
  std::vector<std::string> lines;
  for (int r = 0; r < 5; ++r) {
    for (const std::string& t : testing::sample_texts())
      lines.push_back(jsonl(t + " " + std::to_string(r)));
  }
  lines.insert(lines.begin() + 7, "{broken");  // skipped in the whole pack and in its shard
  const std::string a = testing::write_lines("p_shard_a", "a.jsonl", lines);
  const std::string b = testing::write_lines("p_shard_b", "b.txt.jsonl", {jsonl("son"), jsonl("")});
  for (const Format f : {Format::kMegatron, Format::kLlmc, Format::kNpy}) {
    PackOptions whole = options({a, b}, "p_whole", f);
    whole.content.skip_invalid = true;
    ASSERT_TRUE(pack_corpus(*tok_, whole).ok());
    std::vector<std::string> parts;
    for (size_t i = 0; i < 3; ++i) {
      PackOptions shard = whole;
      shard.out = path_join(morpheus::testing::make_temp_dir("p_shard"), "part");
      shard.shard_index = 2 - i;  // any order
      shard.shard_count = 3;
      shard.workers = 1 + i;
      ASSERT_TRUE(pack_corpus(*tok_, shard).ok());
      parts.push_back(shard.out);
    }
    const std::string merged = path_join(morpheus::testing::make_temp_dir("p_merged"), "m");
    const auto m = merge_packs(parts, merged, false);
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    for (const std::string& file : format_files(f, whole.out)) {
      const std::string name = file.substr(whole.out.size());
      EXPECT_EQ(file_bytes(merged + name), file_bytes(file)) << format_name(f) << " " << name;
    }
    const auto w = read_manifest(whole.out).value();
    EXPECT_EQ(m->documents, w.documents);
    EXPECT_EQ(m->tokens, w.tokens);
    EXPECT_EQ(m->characters, w.characters);
    EXPECT_EQ(m->skipped_documents, w.skipped_documents);
  }
}

TEST_F(PackTest, WorkersAndBlockSizesGiveTheSameFiles) {
  const std::string in = corpus("p_workers");
  PackOptions one = options({in}, "p_workers_1");
  one.block_docs = 1000;
  ASSERT_TRUE(pack_corpus(*tok_, one).ok());
  PackOptions four = options({in}, "p_workers_4");
  four.workers = 4;
  four.block_docs = 3;
  ASSERT_TRUE(pack_corpus(*tok_, four).ok());
  EXPECT_EQ(file_bytes(four.out + ".bin"), file_bytes(one.out + ".bin"));
  EXPECT_EQ(file_bytes(four.out + ".idx"), file_bytes(one.out + ".idx"));
}

TEST_F(PackTest, BadLineIsAnErrorNamingFileAndLineAndWritesNothing) {
  const std::string in = testing::write_lines(
      "p_bad", "c.jsonl", {jsonl("a"), jsonl("b"), jsonl("c"), R"({"text": 7})", jsonl("d")});
  const PackOptions o = options({in}, "p_bad_out");
  const auto m = pack_corpus(*tok_, o);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find(in + ":4: "), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("\"text\" is a number"), std::string::npos);
  EXPECT_TRUE(testing::dir_entries(o.out.substr(0, o.out.rfind('/'))).empty());
}

TEST_F(PackTest, InvalidUtf8PlainLineIsAnErrorWithItsLineNumber) {
  const std::string in = testing::write_lines("p_utf8", "c.txt", {"iyi", "bozuk \xC3\x28"});
  PackOptions o = options({in}, "p_utf8_out");
  o.content.plain = true;
  const auto m = pack_corpus(*tok_, o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(in + ":2: "), std::string::npos) << m.status().message();
}

TEST_F(PackTest, SkipInvalidSkipsAndCountsBadDocuments) {
  const std::string in =
      testing::write_lines("p_skip", "c.jsonl",
                           {jsonl("a"), "not json", R"({"body": "x"})", jsonl("b"),
                            "{\"text\": \"\xFF\"}", R"({"text": ["x"]})", jsonl("c")});
  PackOptions o = options({in}, "p_skip_out");
  o.content.skip_invalid = true;
  const auto m = pack_corpus(*tok_, o);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(m->documents, 3u);
  EXPECT_EQ(m->documents_seen, 7u);
  EXPECT_EQ(m->skipped_documents, (std::vector<uint64_t>{2, 3, 5, 6}));
  const auto j = nlohmann::json::parse(file_bytes(manifest_path(o.out)));
  EXPECT_EQ(j.at("skipped_invalid").get<int>(), 4);
  EXPECT_EQ(documents(o.out),
            (std::vector<std::vector<int32_t>>{encoded("a"), encoded("b"), encoded("c")}));
}

TEST_F(PackTest, EmptyDocumentsAreZeroLengthSequencesWithoutEosOrBos) {
  const std::string in = testing::write_lines("p_empty", "c.txt", {"a", "", "b"});
  PackOptions o = options({in}, "p_empty_out", Format::kNpy);
  o.content.plain = true;
  o.content.append_eos = false;
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  EXPECT_EQ(documents(o.out),
            (std::vector<std::vector<int32_t>>{encoded("a", false), {}, encoded("b", false)}));
  o.content.append_eos = true;
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  EXPECT_EQ(documents(o.out), (std::vector<std::vector<int32_t>>{encoded("a"), {}, encoded("b")}));
}

TEST_F(PackTest, LlmcNeedsEosOrBosToDelimitDocuments) {
  PackOptions o = options({corpus("p_llmc")}, "p_llmc_out", Format::kLlmc);
  o.content.append_eos = false;
  const auto m = pack_corpus(*tok_, o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("--append-eos"), std::string::npos);
  o.content.prepend_bos = true;
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  const auto docs = documents(o.out);
  ASSERT_EQ(docs.size(), testing::sample_texts().size());
  EXPECT_EQ(docs[2], (std::vector<int32_t>{tok_->bos_id()}));
}

TEST_F(PackTest, RepackReplacesThePackAndLeavesNoTemporaryFile) {
  const std::string in = corpus("p_repack");
  PackOptions o = options({in}, "p_repack_out");
  ASSERT_TRUE(write_file_atomic(o.out + ".bin.tmp.999999999", "stale").ok());
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  o.content.append_eos = false;
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  EXPECT_FALSE(read_manifest(o.out).value().options.append_eos);
  EXPECT_EQ(testing::dir_entries(o.out.substr(0, o.out.rfind('/'))),
            (std::vector<std::string>{"out.bin", "out.idx", "out.json"}));
}

TEST_F(PackTest, ChangedTokenFileIsRefusedByTheManifest) {
  PackOptions o = options({corpus("p_changed")}, "p_changed_out");
  ASSERT_TRUE(pack_corpus(*tok_, o).ok());
  ASSERT_TRUE(write_file_atomic(o.out + ".bin", file_bytes(o.out + ".bin") + "xx").ok());
  const auto m = read_manifest(o.out);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kDataLoss);
}

TEST(PackLargeVocabulary, VocabularyOf65500IdsStoresWideTokens) {
  const std::string dir = testing::write_tokenizer_dir("pack_big_tok", 65300);
  const auto tok = testing::load_tokenizer(dir);
  ASSERT_NE(tok, nullptr);
  ASSERT_GE(tok->vocab_size(), 65500);
  ASSERT_LT(tok->vocab_size(), 65600);
  const std::string in = testing::write_lines("p_big", "c.txt", {"kitaplarımızdan evlerde"});
  for (const auto& [format, dtype] : {std::make_pair(Format::kMegatron, DType::kInt32),
                                      std::make_pair(Format::kLlmc, DType::kUint32),
                                      std::make_pair(Format::kNpy, DType::kInt32)}) {
    PackOptions o;
    o.inputs = {in};
    o.out = path_join(morpheus::testing::make_temp_dir("p_big_out"), "out");
    o.format = format;
    o.content.plain = true;
    o.content.append_eos = true;
    o.progress = false;
    const auto m = pack_corpus(*tok, o);
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    EXPECT_EQ(m->dtype, dtype) << format_name(format);
    auto reader = open_pack_reader(o.out, *m);
    ASSERT_TRUE(reader.ok());
    std::vector<int32_t> ids;
    ASSERT_TRUE((*reader)->next(&ids).value());
    std::vector<int32_t> want;
    tokenizer::EncodeOptions eo;
    eo.add_eos = true;
    ASSERT_TRUE(tok->encode("kitaplarımızdan evlerde", eo, &want).ok());
    EXPECT_EQ(ids, want);
    EXPECT_GT(*std::max_element(ids.begin(), ids.end()), 65535);
  }
}

class MergeTest : public PackTest {};

TEST_F(MergeTest, WholePacksAreConcatenatedInTheOrderGiven) {
  const std::string a = testing::write_lines("m_cat_a", "a.txt", {"bir", "iki"});
  const std::string b = testing::write_lines("m_cat_b", "b.txt", {"üç"});
  PackOptions pa = options({a}, "m_cat_pa"), pb = options({b}, "m_cat_pb"),
              pab = options({b, a}, "m_cat_pab");
  for (PackOptions* o : {&pa, &pb, &pab}) {
    o->content.plain = true;
    ASSERT_TRUE(pack_corpus(*tok_, *o).ok());
  }
  const std::string out = path_join(morpheus::testing::make_temp_dir("m_cat"), "m");
  const auto m = merge_packs({pb.out, pa.out}, out, false);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_EQ(file_bytes(out + ".bin"), file_bytes(pab.out + ".bin"));
  EXPECT_EQ(file_bytes(out + ".idx"), file_bytes(pab.out + ".idx"));
  EXPECT_EQ(m->merged_from, (std::vector<std::string>{pb.out, pa.out}));
}

TEST_F(MergeTest, PartsWithOtherOptionsOrFormatsAreRefused) {
  const std::string in = corpus("m_diff");
  PackOptions eos = options({in}, "m_diff_eos");
  PackOptions bos = options({in}, "m_diff_bos");
  bos.content.append_eos = false;
  bos.content.prepend_bos = true;
  PackOptions npy = options({in}, "m_diff_npy", Format::kNpy);
  for (PackOptions* o : {&eos, &bos, &npy}) ASSERT_TRUE(pack_corpus(*tok_, *o).ok());
  const std::string out = path_join(morpheus::testing::make_temp_dir("m_diff"), "m");
  const auto by_options = merge_packs({eos.out, bos.out}, out, false);
  ASSERT_FALSE(by_options.ok());
  EXPECT_EQ(by_options.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(by_options.status().message().find("options"), std::string::npos);
  const auto by_format = merge_packs({eos.out, npy.out}, out, false);
  ASSERT_FALSE(by_format.ok());
  EXPECT_NE(by_format.status().message().find("format"), std::string::npos);
  EXPECT_FALSE(file_exists(out + ".bin"));
  EXPECT_FALSE(file_exists(out + ".json"));
}

TEST_F(MergeTest, PartsOfAnotherTokenizerAreRefused) {
  const std::string in = corpus("m_tok");
  PackOptions a = options({in}, "m_tok_a"), b = options({in}, "m_tok_b");
  ASSERT_TRUE(pack_corpus(*tok_, a).ok());
  const auto other = testing::load_tokenizer(testing::write_tokenizer_dir("m_tok_other", 3));
  ASSERT_TRUE(pack_corpus(*other, b).ok());
  const auto m = merge_packs({a.out, b.out}, a.out + "_m", false);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("tokenizer"), std::string::npos);
}

TEST_F(MergeTest, MissingOrRepeatedShardIsRefused) {
  const std::string in = corpus("m_shards");
  std::vector<std::string> parts;
  for (size_t i = 0; i < 3; ++i) {
    PackOptions o = options({in}, "m_shards_" + std::to_string(i));
    o.shard_index = i;
    o.shard_count = 3;
    ASSERT_TRUE(pack_corpus(*tok_, o).ok());
    parts.push_back(o.out);
  }
  const std::string out = path_join(morpheus::testing::make_temp_dir("m_shards"), "m");
  const auto missing = merge_packs({parts[0], parts[2]}, out, false);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("each once"), std::string::npos);
  EXPECT_FALSE(merge_packs({parts[0], parts[1], parts[1]}, out, false).ok());
  EXPECT_TRUE(merge_packs(parts, out, false).ok());
}

TEST_F(MergeTest, ShardsOfOtherInputsAreRefused) {
  PackOptions a = options({corpus("m_in_a")}, "m_in_pa");
  a.shard_count = 2;
  PackOptions b = options({testing::write_lines("m_in_b", "b.jsonl", {jsonl("x")})}, "m_in_pb");
  b.shard_index = 1;
  b.shard_count = 2;
  ASSERT_TRUE(pack_corpus(*tok_, a).ok());
  ASSERT_TRUE(pack_corpus(*tok_, b).ok());
  const auto m = merge_packs({a.out, b.out}, a.out + "_m", false);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("inputs"), std::string::npos);
}

TEST_F(MergeTest, OutputThatIsAPartIsRefused) {
  PackOptions a = options({corpus("m_self")}, "m_self_a");
  ASSERT_TRUE(pack_corpus(*tok_, a).ok());
  EXPECT_EQ(merge_packs({a.out}, a.out, false).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace morpheus::pack
