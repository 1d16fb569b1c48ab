// SPDX-License-Identifier: MIT
// The rule-based hybrid Turkish tokenizer of Bayram et al. ("Tokens with Meaning"), on its
// released lexicons (hybrid_lexicon.h), in two modes:
//
// kReference — the released Python implementation id for id, quirks included
// (its tokenizer and detokenizer): split on U+0020 only (each space is id 2,
// whitespace-only parts are dropped), a new segment at every uppercase code point, Turkish
// lower-casing, id 0 <uppercase> before each segment that began upper case, table-priority greedy
// matching (longest root, else longest suffix, else longest BPE unit, else id 1 <unknown> for one
// code point). The decoder picks allomorphs from the previous alphabetic piece and the first form
// of the next id, capitalizes form[0] after <uppercase> (Python str.capitalize), renders id 1 as
// "▁u▁" and ids outside the lexicon as "▁". It is lossy (e.g. "Kitabı" → "Kitapı").
//
// kLossless — decode(encode(s)) == s for every byte string (valid UTF-8 or not), with the same
// ids for the lexical units and 272 extra ids after the lexicon (N = num_ids(), 32,768):
//   * Words are split and matched as in the reference, but whitespace-only parts are tokenized
//     too (\n and \t are roots 3 and 4), and the literal strings "<uppercase>"/"<unknown>" are not
//     matched as ids 0/1.
//   * Case: a segment starts at each upper-case code point U whose Turkish lower case L restores
//     it (to_upper(L) == U: İ↔i, I↔ı, Ş↔ş, Σ↔σ, ...). Only U is lower-cased; id 0 before the token
//     then means "upper-case the first code point of the next lexical piece". Upper-case code
//     points that do not restore (ǅ, K Kelvin, ...) stay as they are.
//   * Bytes: a code point that no table matches (and any invalid byte) is written as its UTF-8
//     bytes, ids N + b (b = 0..255). An upper-case code point whose lower case matches nothing is
//     written as bytes of the original, with no id 0.
//   * Allomorphs: the decoder predicts each multi-form id's surface with the reference rules
//     (previous lexical piece in lower case, first form of the next id; at the end of the text
//     lık/cık/mak follow harmony instead of defaulting to the back form). When the form actually
//     written differs, the encoder puts id N + 256 + k ("use form k", k = 0..15, form order of
//     the file) right before the id. Markers and form ids are skipped when looking for the next
//     id; byte ids are not (their "first form" is empty).
//   Vocabulary size in this mode: N + 272.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "baselines/hybrid/hybrid_lexicon.h"
#include "core/status.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer::hybrid {

enum class HybridMode { kReference, kLossless };

inline constexpr int32_t kNumByteIds = 256;
inline constexpr int32_t kNumFormIds = 16;

// Classes of a decoded piece that the allomorph rules look at (reference §4.1).
struct PieceInfo {
  bool alpha = false;         // non-empty and every code point a letter (Python str.isalpha)
  bool front = false;         // front vowel harmony (or one of the saat/itaat exceptions)
  int8_t h4 = 3;              // four-way harmony index: a/ı/â 0, e/i 1, o/u 2, else 3
  bool hard = false;          // ends in f s t k ç ş h p
  bool ends_vowel = false;    // last code point in a e ı i o ö u ü â
  bool starts_vowel = false;  // first code point in a e ı i o ö u ü â
  bool whitespace = false;    // exactly " ", "\n" or "\t"
};
// The classes of `piece` (UTF-8).
PieceInfo piece_info(std::string_view piece);

class HybridTokenizer : public WordSegmenter {
 public:
  HybridTokenizer(std::shared_ptr<const HybridLexicon> lexicon, HybridMode mode);
  // Loads the lexicon directory (see HybridLexicon::load for the errors).
  static StatusOr<HybridTokenizer> load(const std::string& lexicon_dir, HybridMode mode);

  HybridMode mode() const { return mode_; }
  const HybridLexicon& lexicon() const { return *lexicon_; }
  // Number of ids this mode can produce: the lexicon's, plus 272 in lossless mode.
  int32_t vocab_size() const;
  // Lossless-mode extra ids.
  int32_t byte_id(uint8_t b) const { return lexicon_->num_ids() + b; }
  int32_t form_id(int k) const { return lexicon_->num_ids() + kNumByteIds + k; }

  // Ids of `text` (one line or a whole document; "\n" inside is an ordinary character). Any byte
  // string is accepted: in reference mode an invalid byte is one <unknown>.
  std::vector<int32_t> encode(std::string_view text) const;
  void encode(std::string_view text, std::vector<int32_t>* ids) const;

  // Text of `ids`. Reference mode reproduces the reference decoder, including its failure where
  // Python raises KeyError (a lookahead id outside the lexicon): INVALID_ARGUMENT naming the
  // position. Lossless mode: INVALID_ARGUMENT for ids >= vocab_size(), a form id beyond the forms
  // of its id, or a marker/form id not followed by a lexical id.
  StatusOr<std::string> decode(const std::vector<int32_t>& ids) const;

  // WordSegmenter: the surface pieces of `word` as the encoder cut it (one piece per lexical token
  // or unmatched code point; <uppercase> joins the piece it marks). Their concatenation is `word`.
  std::vector<std::string> cut(std::string_view word) const override;
  std::string name() const override;

 private:
  struct Scratch;
  // Raw token stream: form number (>= 0) or one of the negative codes in the .cc.
  void encode_raw(std::string_view text, Scratch& sc, bool want_spans) const;
  void encode_part(std::string_view text, size_t begin, size_t end, Scratch& sc,
                   bool want_spans) const;
  void finish_ids(const Scratch& sc, std::vector<int32_t>* ids) const;
  // Form index of multi-form id `x` by the decoder's rules; `next` is the following id or -1.
  StatusOr<int> choose_form(int32_t x, const PieceInfo& prev, int32_t next) const;
  StatusOr<std::string> decode_reference(const std::vector<int32_t>& ids) const;
  StatusOr<std::string> decode_lossless(const std::vector<int32_t>& ids) const;

  std::shared_ptr<const HybridLexicon> lexicon_;
  HybridMode mode_;
  std::vector<PieceInfo> form_info_;  // per form number
  std::vector<int32_t> form_id_;      // per form number
  std::vector<uint16_t> form_index_;  // per form number
  int32_t space_form_ = 0;            // form number of " " (id 2)
};

}  // namespace morpheus::tokenizer::hybrid
