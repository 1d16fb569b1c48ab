// SPDX-License-Identifier: MIT
// Line-oriented encode/decode/segment loops shared by `morpheus cbpe` and `morpheus-spm`.
#include "tools/codec_io.h"

#include <charconv>

#include "core/file_util.h"
#include "tools/cli.h"

namespace morpheus::tools {
namespace {

std::string where(const std::string& input, size_t line_no) {
  return (input == "-" ? std::string("<stdin>") : input) + ":" + std::to_string(line_no) + ": ";
}

}  // namespace

Status encode_lines(const std::string& input, const std::string& output, bool allow_invalid,
                    const EncodeLineFn& encode) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(input, !allow_invalid));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(output));
  std::string line;
  std::string text;
  std::vector<int32_t> ids;
  size_t line_no = 0;
  while (reader.next(&line)) {
    ++line_no;
    ids.clear();
    const Status s = encode(line, &ids);
    if (!s.ok()) return Status(s.code(), where(input, line_no) + s.message(), s.hint());
    text.clear();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) text += ' ';
      text += std::to_string(ids[i]);
    }
    text += '\n';
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out.close();
}

Status decode_lines(const std::string& input, const std::string& output,
                    const DecodeLineFn& decode) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(input, true));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(output));
  std::string line;
  std::string text;
  std::vector<int32_t> ids;
  size_t line_no = 0;
  while (reader.next(&line)) {
    ++line_no;
    ids.clear();
    const char* p = line.data();
    const char* end = line.data() + line.size();
    while (p < end) {
      if (*p == ' ' || *p == '\r') {
        ++p;
        continue;
      }
      int32_t id = 0;
      const auto [next, ec] = std::from_chars(p, end, id);
      if (ec != std::errc() || (next < end && *next != ' ' && *next != '\r')) {
        return invalid_argument(
            where(input, line_no) + "expected space-separated ids, got \"" + line + "\"",
            "decode reads the output of encode");
      }
      ids.push_back(id);
      p = next;
    }
    text.clear();
    const Status s = decode(ids, &text);
    if (!s.ok()) return Status(s.code(), where(input, line_no) + s.message(), s.hint());
    text += '\n';
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out.close();
}

Status segment_lines(const std::string& input, const std::string& output,
                     const SegmentWordFn& segment) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(input, true));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(output));
  std::string line;
  std::string text;
  size_t line_no = 0;
  while (reader.next(&line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    StatusOr<std::vector<std::string>> pieces = segment(line);
    if (!pieces.ok()) {
      const Status& s = pieces.status();
      return Status(s.code(), where(input, line_no) + s.message(), s.hint());
    }
    text = line;
    text += '\t';
    for (size_t i = 0; i < pieces->size(); ++i) {
      if (i > 0) text += ' ';
      text += (*pieces)[i];
    }
    text += '\n';
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out.close();
}

}  // namespace morpheus::tools
