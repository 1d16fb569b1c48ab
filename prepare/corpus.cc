// SPDX-License-Identifier: MIT
#include "prepare/corpus.h"

#include <cstddef>

#include "core/file_util.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "tokenizer/pretokenizer.h"

namespace morpheus::train {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

void extract_words(std::string_view line, std::vector<FoldedWord>* out) {
  std::vector<tokenizer::Span> spans;
  tokenizer::pretokenize_into(line, spans);
  std::u32string cps;
  for (const tokenizer::Span& span : spans) {
    if (span.kind != tokenizer::SpanKind::kLetter) continue;
    cps.clear();
    const std::string_view text = span.text(line);
    for (size_t pos = 0; pos < text.size();) {
      const utf8::Decoded d = utf8::decode_one(text, pos);
      cps.push_back(d.code_point);
      pos += d.length;
    }
    unicode::CaseFolded folded = unicode::fold_case(cps);
    out->push_back(FoldedWord{std::move(folded.lower), std::move(folded.upper)});
  }
}

std::u32string lower_code_points(std::string_view text) {
  std::u32string out;
  for (size_t pos = 0; pos < text.size();) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    out.push_back(unicode::to_lower(d.code_point));
    pos += d.length;
  }
  return out;
}

StatusOr<CorpusFormat> detect_corpus_format(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/false));
  std::string line;
  while (reader.next(&line)) {
    if (line.empty() || line == "\r") continue;
    if (starts_with(line, "<DOC>\t") || starts_with(line, "<S>\t")) return CorpusFormat::kTreebank;
    return CorpusFormat::kPlainText;
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return CorpusFormat::kPlainText;
}

uint32_t Corpus::intern(const std::u32string& word) {
  auto it = index_.find(word);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<uint32_t>(types_.size());
  types_.push_back(word);
  counts_.push_back(0);
  index_.emplace(word, id);
  return id;
}

void Corpus::add_sentence(std::string_view text) {
  scratch_.clear();
  extract_words(text, &scratch_);
  if (scratch_.empty()) {
    ++num_empty_;
    return;
  }
  Sentence sentence;
  sentence.reserve(scratch_.size());
  for (FoldedWord& w : scratch_) {
    Token token;
    token.type = intern(w.lower);
    ++counts_[token.type];
    num_chars_ += w.lower.size();
    bool any_upper = false;
    for (bool u : w.upper) any_upper = any_upper || u;
    if (any_upper) token.upper = std::move(w.upper);
    sentence.push_back(std::move(token));
  }
  num_tokens_ += sentence.size();
  sentences_.push_back(std::move(sentence));
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  text_.append(text);
  text_ += '\n';
}

Status Corpus::add_file(const std::string& path, CorpusFormat format) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  std::string line;
  if (format == CorpusFormat::kPlainText) {
    while (reader.next(&line)) add_sentence(line);
    return reader.status();
  }
  std::string sentence;
  bool in_sentence = false;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t tab = line.find('\t');
    const std::string_view token = std::string_view(line).substr(0, tab);
    if (token == "<S>") {
      in_sentence = true;
      sentence.clear();
    } else if (token == "</S>") {
      if (in_sentence) add_sentence(sentence);
      in_sentence = false;
    } else if (token == "<DOC>" || token == "</DOC>" || token.empty()) {
      continue;
    } else if (in_sentence) {
      if (!sentence.empty()) sentence += ' ';
      sentence += token;
    }
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (in_sentence) {
    return invalid_argument(path + ": line " + std::to_string(reader.line_number()) +
                                ": the file ends inside a sentence (<S> without </S>)",
                            "is the treebank file truncated?");
  }
  return ok_status();
}

}  // namespace morpheus::train
