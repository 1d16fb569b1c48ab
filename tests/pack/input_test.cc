// SPDX-License-Identifier: MIT
// The inputs of a pack (pack/input.h): lines of plain and gzip files, and the document of a line
// (a JSONL object's string under a key, or the line) with its errors.
#include "pack/input.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/hash.h"
#include "tests/pack/pack_test_util.h"
#include "tests/support/test_support.h"

namespace morpheus::pack {
namespace {

std::vector<std::string> all_lines(const std::string& path) {
  LineInput in;
  EXPECT_TRUE(in.open(path).ok());
  std::vector<std::string> lines;
  std::string line;
  while (in.next(&line)) lines.push_back(line);
  EXPECT_TRUE(in.status().ok()) << in.status().to_string();
  return lines;
}

Status text_of(const std::string& line, std::string* text, const std::string& key = "text") {
  DocumentFormat format;
  format.jsonl_key = key;
  return document_text(line, format, text);
}

TEST(PackInput, LinesKeepCarriageReturnAndALastLineWithoutNewline) {
  const std::string path = path_join(morpheus::testing::make_temp_dir("in_lines"), "a.txt");
  ASSERT_TRUE(write_file_atomic(path, "one\r\n\ntwo\nlast").ok());
  EXPECT_EQ(all_lines(path), (std::vector<std::string>{"one\r", "", "two", "last"}));
}

TEST(PackInput, LongLinesCrossTheReadBuffer) {
  const std::string big(3 << 20, 'x');
  const std::string path = testing::write_lines("in_long", "a.txt", {"a", big, "b"});
  EXPECT_EQ(all_lines(path), (std::vector<std::string>{"a", big, "b"}));
}

TEST(PackInput, GzipMembersReadAsTheirConcatenatedLines) {
  const std::string dir = morpheus::testing::make_temp_dir("in_gz");
  const std::string path = path_join(dir, "a.jsonl.gz");
  for (const char* part : {"first\nsec", "ond\nthird\n"}) {
    gzFile gz = gzopen(path.c_str(), "ab");
    ASSERT_NE(gz, nullptr);
    ASSERT_GT(gzputs(gz, part), 0);
    ASSERT_EQ(gzclose(gz), Z_OK);
  }
  EXPECT_EQ(all_lines(path), (std::vector<std::string>{"first", "second", "third"}));
  LineInput in;
  ASSERT_TRUE(in.open(path).ok());
  std::string line;
  while (in.next(&line)) {
  }
  EXPECT_EQ(in.checksum(), file_checksum(path).value());  // of the compressed bytes
}

TEST(PackInput, TruncatedGzipIsDataLoss) {
  const std::string dir = morpheus::testing::make_temp_dir("in_gz_cut");
  const std::string path = path_join(dir, "a.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  const std::string text(100000, 'a');
  ASSERT_GT(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), 0);
  ASSERT_EQ(gzclose(gz), Z_OK);
  const std::string bytes = testing::file_bytes(path);
  ASSERT_TRUE(write_file_atomic(path, bytes.substr(0, bytes.size() / 2)).ok());
  LineInput in;
  ASSERT_TRUE(in.open(path).ok());
  std::string line;
  while (in.next(&line)) {
  }
  EXPECT_EQ(in.status().code(), StatusCode::kDataLoss);
}

TEST(PackInput, JsonlTextUnderTheKeyWithEscapedNewlines) {
  std::string text;
  ASSERT_TRUE(
      text_of(R"({"id": 3, "text": "a\nb\t\"c\" \u00e7 \ud83d\ude00", "x": [1]})", &text).ok());
  EXPECT_EQ(text, "a\nb\t\"c\" ç 😀");
  ASSERT_TRUE(text_of(R"({"body": "x", "meta": {"text": 1}})", &text, "body").ok());
  EXPECT_EQ(text, "x");
}

TEST(PackInput, InvalidJsonIsAnErrorWithItsBytePosition) {
  std::string text;
  const Status s = text_of(R"({"text": "abc)", &text);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("invalid JSON (at byte"), std::string::npos) << s.message();
  EXPECT_NE(s.hint().find("--skip-invalid"), std::string::npos);
  EXPECT_FALSE(text_of("", &text).ok());  // a blank line is no JSON object
}

TEST(PackInput, LineThatIsNotAnObjectIsAnError) {
  std::string text;
  const Status s = text_of(R"(["text", "a"])", &text);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not a JSON object"), std::string::npos) << s.message();
}

TEST(PackInput, MissingKeyNamesTheKeysThere) {
  std::string text;
  const Status s = text_of(R"({"content": "a", "id": 1, "sub": {"text": "b"}})", &text);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no \"text\" key"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("content, id, sub"), std::string::npos) << s.message();
  EXPECT_NE(s.hint().find("--jsonl-key"), std::string::npos);
}

TEST(PackInput, NonStringTextIsAnErrorNamingWhatItIs) {
  std::string text;
  for (const auto& [line, kind] :
       std::vector<std::pair<std::string, std::string>>{{R"({"text": 12})", "a number"},
                                                        {R"({"text": null})", "null"},
                                                        {R"({"text": ["a"]})", "an array"},
                                                        {R"({"text": {"a": "b"}})", "an object"},
                                                        {R"({"text": true})", "a boolean"}}) {
    const Status s = text_of(line, &text);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << line;
    EXPECT_NE(s.message().find("\"text\" is " + kind), std::string::npos) << s.message();
  }
}

TEST(PackInput, InvalidUtf8IsAnErrorInJsonAndPlainLines) {
  std::string text;
  EXPECT_EQ(text_of("{\"text\": \"ab\xC3\x28\"}", &text).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(text_of(R"({"text": "\ud800"})", &text).code(), StatusCode::kInvalidArgument);
  DocumentFormat plain;
  plain.plain = true;
  EXPECT_EQ(document_text("ab\xFF", plain, &text).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(document_text("{\"not\": json", plain, &text).ok());
  EXPECT_EQ(text, "{\"not\": json");
}

TEST(PackInput, MissingFileIsNotFoundNamingIt) {
  LineInput in;
  const Status s = in.open("/no/such/corpus.jsonl");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/no/such/corpus.jsonl"), std::string::npos);
}

}  // namespace
}  // namespace morpheus::pack
