// SPDX-License-Identifier: MIT
#include "tokenizer/segment_file.h"

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {

StatusOr<SegmentedWord> parse_segment_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos) {
    return invalid_argument("expected word<TAB>pieces, found no tab",
                            "each line must be: word<TAB>piece piece ...");
  }
  SegmentedWord out;
  out.word = std::string(line.substr(0, tab));
  if (out.word.empty()) return invalid_argument("empty word before the tab");
  if (!utf8::is_valid(line)) return utf8::validate(line);
  std::string_view rest = line.substr(tab + 1);
  std::string joined;
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t space = rest.find(' ', pos);
    if (space == std::string_view::npos) space = rest.size();
    if (space > pos) {
      out.pieces.emplace_back(rest.substr(pos, space - pos));
      joined += out.pieces.back();
    }
    pos = space + 1;
  }
  if (out.pieces.empty()) return invalid_argument("no pieces after the tab for '" + out.word + "'");
  if (joined != out.word) {
    return invalid_argument("pieces '" + std::string(rest) + "' do not spell the word '" +
                            out.word + "'");
  }
  return out;
}

std::string format_segment_line(const std::string& word, const std::vector<std::string>& pieces) {
  std::string line = word;
  line.push_back('\t');
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) line.push_back(' ');
    line += pieces[i];
  }
  return line;
}

StatusOr<std::vector<SegmentedWord>> read_segment_file(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::vector<SegmentedWord> words;
  std::string line;
  while (reader.next(&line)) {
    if (line.empty() || line == "\r") continue;
    auto parsed = parse_segment_line(line);
    if (!parsed.ok()) {
      Status s = parsed.status();
      return s.prepend(path + ": line " + std::to_string(reader.line_number()));
    }
    words.push_back(std::move(parsed).value());
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return words;
}

Status write_segment_file(const std::string& path, const std::vector<SegmentedWord>& words) {
  AtomicFileWriter writer;
  MORPHEUS_RETURN_IF_ERROR(writer.open(path));
  std::string buffer;
  for (const SegmentedWord& w : words) {
    buffer += format_segment_line(w.word, w.pieces);
    buffer.push_back('\n');
    if (buffer.size() > (1u << 16)) {
      MORPHEUS_RETURN_IF_ERROR(writer.write(buffer));
      buffer.clear();
    }
  }
  MORPHEUS_RETURN_IF_ERROR(writer.write(buffer));
  return writer.commit();
}

}  // namespace morpheus::tokenizer
