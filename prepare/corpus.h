// SPDX-License-Identifier: MIT
// Training corpus ingestion for `morpheus prepare`: every line of a plain text file (or every
// <S>…</S> sentence of an NLPToolkit treebank file such as penntreebank.txt) becomes one sentence;
// its words are the letter runs of the lossless pretokenizer (apostrophes and digits split them,
// nothing is merged or dropped), Turkish-case-folded with the per-character case side channel kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace morpheus::train {

// One word occurrence: its type (index into Corpus::types) and the case side channel.
struct Token {
  uint32_t type = 0;
  // upper[j] is true when character j was upper case; empty when the word is all lower case.
  std::vector<bool> upper;
};

// One sentence: its words in order (punctuation, digits and spaces are not words).
using Sentence = std::vector<Token>;

// A letter run, case-folded: lower-cased code points plus one case flag per code point.
struct FoldedWord {
  std::u32string lower;
  std::vector<bool> upper;  // same length as lower
};

// Appends the words of `line` (letter runs of the pretokenizer, case-folded) to `out`.
// "Türkiye'nin 1990'larda" -> türkiye, nin, larda. Invalid UTF-8 bytes end a run and are skipped.
void extract_words(std::string_view line, std::vector<FoldedWord>* out);

// Code points of UTF-8 `text`, each lower-cased (Turkish rules), so lengths never change;
// invalid bytes become U+FFFD.
std::u32string lower_code_points(std::string_view text);

// How a corpus file is read.
enum class CorpusFormat {
  kPlainText,  // one sentence per line
  kTreebank,   // NLPToolkit treebank: "token<TAB>analysis" lines, sentences between <S> and </S>
};

// kTreebank when the first non-empty line starts with "<DOC>\t" or "<S>\t", else kPlainText.
StatusOr<CorpusFormat> detect_corpus_format(const std::string& path);

// Word types with counts and the sentences that use them.
class Corpus {
 public:
  // Adds one sentence of raw text (may be empty of words; such sentences are counted, not kept).
  void add_sentence(std::string_view text);
  // Adds every sentence of a file in the given format. Errors name the file and line.
  Status add_file(const std::string& path, CorpusFormat format);

  // Lower-cased word types in first-occurrence order and their occurrence counts.
  const std::vector<std::u32string>& types() const { return types_; }
  const std::vector<uint64_t>& counts() const { return counts_; }
  // Sentences holding at least one word.
  const std::vector<Sentence>& sentences() const { return sentences_; }
  // The text of those sentences, one per line (treebank sentences as their tokens joined by
  // spaces): the exact text the corpus was learned from, which every baseline trains on too.
  const std::string& text() const { return text_; }
  uint64_t num_tokens() const { return num_tokens_; }
  uint64_t num_empty_sentences() const { return num_empty_; }
  uint64_t num_characters() const { return num_chars_; }

 private:
  uint32_t intern(const std::u32string& word);

  std::vector<std::u32string> types_;
  std::vector<uint64_t> counts_;
  std::unordered_map<std::u32string, uint32_t> index_;
  std::vector<Sentence> sentences_;
  std::vector<FoldedWord> scratch_;
  std::string text_;
  uint64_t num_tokens_ = 0;
  uint64_t num_empty_ = 0;
  uint64_t num_chars_ = 0;
};

}  // namespace morpheus::train
