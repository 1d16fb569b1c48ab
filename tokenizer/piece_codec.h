// SPDX-License-Identifier: MIT
// PieceCodec: a generic lossless text <-> id codec over a piece vocabulary and a pluggable word
// Segmenter (tokenizer/segmenter.h; CBPE plugs its BPE-on-morphs segmenter in, the Morpheus
// tokenizer its stages 3 and 4, tokenizer/tokenizer.h).
//   "Evlerde 3 kedi" -> <cap> ev ler de <0x20> <0x33> <0x20> kedi     (pieces "ev","ler","de")
//   with word-initial pieces (format 4): <cap> " ev" ler de <0x20> <0x33> " kedi"
// decode(encode(s)) == s for every valid UTF-8 string (and for any bytes with allow_invalid).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/flat_string_map.h"
#include "core/status.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

// [begin, end) of a text: where one id stands, in bytes (PieceCodec::encode) or in characters
// (Tokenizer::encode's Offsets::chars).
struct TextSpan {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const TextSpan& o) const { return begin == o.begin && end == o.end; }
};

struct PieceCodecOptions {
  bool turkish_case = true;         // I<->ı, İ<->i when folding and restoring case
  size_t cache_capacity = 1 << 20;  // cached distinct letter runs; 0 disables the cache
  // A segmenter piece that is not in the vocabulary is split, inside the piece, into the fewest
  // ids (vocabulary pieces; a code point outside every piece costs its UTF-8 bytes), ties going
  // to the longest first piece. Off: one unit per code point.
  bool vocabulary_backoff = false;
  // Turkish apostrophe convention (tokenizer/pretokenizer.h, apostrophe_role): in "Ankara'da",
  // "1990'larda", the proper name before the apostrophe is not segmented, and the apostrophe with
  // the suffix chain after it ("'da", "'larda") is one run, not segmented either: each is one
  // piece when in the vocabulary, else the fewest vocabulary pieces inside it
  // (Ankara|'da, 1990|'lar|da). Off: every letter run is segmented, the apostrophe its own span.
  bool turkish_apostrophe = false;
  // Word-initial pieces (the stream layout of format 4): a single space before a letter run
  // travels inside the run's first id, the vocabulary piece " " + piece (SentencePiece's U+2581,
  // written as the space itself), so "ev kedi" is ev + " kedi", not ev + " " + kedi; before
  // digits or punctuation, inside the piece " " + the whole span (" ,", " 2026"). A space whose
  // word-initial piece is not in the vocabulary (or whose first unit is bytes) stays its own id.
  bool word_initial = false;
  // With word_initial: a letter run at the start of the text or of a line (after "\n") takes the
  // word-initial piece too, its space implicit (decode drops the space there), so the first word
  // of a line gets the same ids as after a space; a real space at the start of a line stays its
  // own id, so the round trip holds.
  bool line_start_prefix = false;
  // Whole-morpheme merges: adjacent segmenter pieces of one run whose concatenation is a
  // vocabulary piece become that piece (the fewest ids, ties to the longest first piece), so every
  // cut of the ids is a cut of the segmenter; a segmenter piece is never split while it is in the
  // vocabulary. segment_word() still shows the segmenter's pieces.
  bool merge_pieces = false;
};

// Id layout (documented contract; ids are stable for a given piece list):
//   [0, 256)          byte tokens <0x00>..<0xFF>: raw bytes of the ORIGINAL text
//   256  <cap>        the next piece is written with its first code point upper-cased
//   257  <upper>      the next piece is written with all its code points upper-cased
//   258  <upper_word> every following word piece (a piece whose first code point is a letter or
//                     a mark) is upper-cased, up to the next byte token, case token, non-word
//                     piece, word-initial piece (but the first) or the end: the whole letter run
//   [259, 259 + P)    piece i of the vocabulary (kFirstPieceId + i), written as stored
//
// Encoding scheme: the text is cut by pretokenize() (tokenizer/pretokenizer.h).
//   * Letter runs are case-folded code point by code point (core/unicode.h, one to one), the
//     folded run is split by the segmenter, and each piece becomes its piece id. A piece that is
//     not in the vocabulary is split into code points, each its piece id or its bytes (or, with
//     vocabulary_backoff, into the fewest vocabulary pieces inside it).
//     With turkish_apostrophe, a proper name before an apostrophe and the apostrophe with the
//     suffix chain after it skip the segmenter (see PieceCodecOptions).
//     Case: a run of >= 2 units, all in the vocabulary and all upper case, is <upper_word> +
//     pieces. Otherwise case comes back per piece: nothing (all lower), <cap> (first upper, rest
//     lower), <upper> (all upper), or, for any other pattern or a character whose case does not
//     round-trip (e.g. Kelvin sign K), the ORIGINAL bytes of that piece as byte tokens (lossless
//     fallback).
//   * Every other span (digits, whitespace, apostrophes, punctuation, emoji, other marks) is one
//     piece id when the whole span is in the vocabulary, else per code point its piece id or its
//     UTF-8 bytes (with vocabulary_backoff: the fewest vocabulary pieces, "467.22" -> 467 . 22).
//     Invalid bytes (allow_invalid) are byte tokens.
//   * With word_initial (format 4): a span " " (one space, not at the start of a line) before a
//     letter run is folded into the run's first id when the vocabulary has the word-initial
//     piece " " + first unit: [<cap>|<upper>] " kedi"; before a digit or other span, when it has
//     " " + the span (" ,"). With line_start_prefix a run or span at the start of a line takes
//     the word-initial piece with an implicit space.
//     "Ev kedi\nKedi" -> <cap> ev " kedi" <0x0A> <cap> " kedi"   (decode drops the last space)
// Without word_initial there are no word-start marker tokens. encode() can return a word-start
// flag per id (1 on the first id of every pretokenizer span, and on a word-initial id, 0
// elsewhere).
// Offsets (encode's `offsets`): the bytes [begin, end) of the text each id stands for, in one
// pass with the ids. A piece id covers its piece, a byte token its byte; a case token is empty
// at the start of what it modifies (<cap>/<upper>: its piece, <upper_word>: the letter run); a
// word-initial id covers its space and its piece (the piece alone when the space is implicit).
// Without case tokens the offsets tile the text: contiguous, from 0 to text.size().
// Decoding concatenates piece strings (case-adjusted after <cap>/<upper>, a word-initial piece's
// case applied after its space) and raw bytes; with line_start_prefix a word-initial piece at the
// start of the decoded text or after "\n" drops its space.
class PieceCodec {
 public:
  static constexpr int32_t kNumBytes = 256;
  static constexpr int32_t kCapId = 256;
  static constexpr int32_t kUpperId = 257;
  static constexpr int32_t kUpperWordId = 258;
  static constexpr int32_t kFirstPieceId = 259;

  // `pieces`: distinct non-empty strings of valid UTF-8; duplicates or empty pieces are
  // INVALID_ARGUMENT naming the index. `segmenter` (shared, may be null: whole letter runs are
  // looked up) gets one lower-cased (Turkish case-folded) letter run per call. Pieces that do not
  // concatenate back to the run or that cut a code point make the whole run one unit; a segmenter
  // error fails that encode/segment_word call (nothing of the run is cached, so the next call
  // asks the segmenter again).
  static StatusOr<PieceCodec> create(std::vector<std::string> pieces,
                                     std::shared_ptr<const Segmenter> segmenter,
                                     PieceCodecOptions options = {});

  // The vocabulary as an image: the piece -> id map (core/flat_string_map.h), a tokenizer
  // directory's pieces.bin. from_image reads such an image in place (no parse, no hashing);
  // `keep` owns its bytes (a mapped file) for the codec's life. Its pieces must have ids
  // kFirstPieceId.. once each and pass create()'s checks; INVALID_ARGUMENT otherwise.
  std::string image() const { return piece_ids_.image(); }
  static StatusOr<PieceCodec> from_image(std::string_view image, std::shared_ptr<const void> keep,
                                         std::shared_ptr<const Segmenter> segmenter,
                                         PieceCodecOptions options = {});

  PieceCodec(PieceCodec&&) noexcept;
  PieceCodec& operator=(PieceCodec&&) noexcept;
  ~PieceCodec();

  // Appends the ids of `text` to *ids (and, when word_starts is given, one flag per id; when
  // offsets is given, one byte span per id, counted from the start of `text`). Invalid UTF-8 is
  // INVALID_ARGUMENT naming the byte offset, unless allow_invalid (then each bad byte is a byte
  // token). A segmenter error is returned (the ids appended so far are then partial). Thread-safe.
  Status encode(std::string_view text, std::vector<int32_t>* ids,
                std::vector<uint8_t>* word_starts = nullptr, bool allow_invalid = false,
                std::vector<TextSpan>* offsets = nullptr) const;
  StatusOr<std::vector<int32_t>> encode(std::string_view text) const;

  // The text of `ids`. An id outside [0, vocab_size()) or a case token not followed by a piece
  // is INVALID_ARGUMENT naming its position.
  Status decode(const std::vector<int32_t>& ids, std::string* text) const;
  StatusOr<std::string> decode(const std::vector<int32_t>& ids) const;

  // Pieces of one word in its original case, e.g. "Evlerde" -> {"Ev", "ler", "de"}: the
  // segmenter's pieces of each letter run, whatever the vocabulary holds (encode() may split a
  // piece it lacks, or merge whole pieces), so the morphemes shown do not depend on the id
  // budget. Non-letter spans, and the proper name and suffix chain of the apostrophe convention,
  // are single pieces; the pieces concatenate to `word`. Invalid UTF-8 is INVALID_ARGUMENT.
  StatusOr<std::vector<std::string>> segment_word(std::string_view word) const;

  int32_t vocab_size() const { return kFirstPieceId + static_cast<int32_t>(pieces_.size()); }
  const std::vector<std::string>& pieces() const { return pieces_; }
  const PieceCodecOptions& options() const { return options_; }
  // "<0x41>", "<cap>", "<upper>", "<upper_word>" or the piece string. `id` must be in range.
  std::string id_to_string(int32_t id) const;
  // Id of a piece string, or -1.
  int32_t piece_id(std::string_view piece) const;
  // Letter runs encode() and segment_word() have handled since creation (all threads).
  uint64_t letter_runs() const;
  // The word-initial piece id of piece id `id` (" " + its piece), or -1 (none, or not
  // word_initial).
  int32_t word_initial_id(int32_t id) const;
  // Whether piece id `id` is a word-initial piece (a space, then a character that is not one).
  bool is_word_initial(int32_t id) const;

 private:
  // One unit of a folded letter run: a piece id (or -1 = emit the original bytes) and its length
  // in code points.
  struct Unit {
    int32_t id;
    uint32_t length;
  };
  struct Cache;
  // How a letter run's first id may carry a space: none, the span `space` before it, or the
  // implicit space at the start of a line.
  struct Lead {
    enum Kind : uint8_t { kNone, kSpace, kImplicit } kind = kNone;
    TextSpan space;  // kSpace: the space's bytes
  };

  PieceCodec(std::vector<std::string> pieces, std::shared_ptr<const Segmenter> segmenter,
             PieceCodecOptions options);
  // Checks every piece (non-empty, valid UTF-8) and derives word_piece_, max_piece_cps_ and
  // ascii_ids_; with `build_map`, fills piece_ids_ (a duplicate is an error).
  Status index_pieces(bool build_map);
  // The segmenter's checked pieces of a folded run (the run whole when they do not tile it).
  Status segmenter_parts(const std::string& folded, std::vector<std::string>* parts) const;
  // The encode path's units of a folded run: segmenter pieces, their ids, backoff and merges.
  Status fold_units(const std::string& folded, const std::u32string& folded_cps,
                    std::vector<Unit>* units) const;
  // Units of one segmenter piece (code points `cps`): its id, else its backoff or code points.
  void part_units(const std::string& part, const std::u32string& cps,
                  std::vector<Unit>* units) const;
  // The encode path's units of a folded run (the run cache; `whole`: whole_units), into *units.
  Status letter_units(const std::string& folded, const std::u32string& folded_cps, bool whole,
                      const std::vector<Unit>** units) const;
  // Units of the segmenter pieces `parts` (concatenating to the run) with whole-morpheme merges.
  void merge_units(const std::vector<std::string>& parts, const std::u32string& folded_cps,
                   std::vector<Unit>* units) const;
  // Units of `cps` (one segmenter piece not in the vocabulary), appended to *units.
  void backoff_units(const std::u32string& cps, std::vector<Unit>* units) const;
  // Units of a run that is not segmented: its piece id, else backoff_units.
  void whole_units(const std::string& folded, const std::u32string& folded_cps,
                   std::vector<Unit>* units) const;
  // Whether spans[k] (a letter run) is kept whole by the apostrophe convention.
  bool keeps_whole(const std::vector<Span>& spans, size_t k) const;
  // Whether spans[k] is an apostrophe that joins the suffix chain after it into one run.
  bool joins_suffix_chain(const std::vector<Span>& spans, size_t k) const;
  // The ids of text[begin, end) (a letter run; `whole`: keeps_whole() of the run, or any other
  // span), appended to *ids, with their offsets when `offsets` is not null.
  Status encode_letters(std::string_view text, TextSpan run, bool whole, Lead lead,
                        std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const;
  // The lead of spans[k] (a letter run); *deferred: spans[k - 1] is a space held back for it.
  Lead lead_of(std::string_view text, const std::vector<Span>& spans, size_t k,
               bool deferred) const;
  // Whether spans[k] is a single space that a word-initial piece of the next run may carry.
  bool defers_space(std::string_view text, const std::vector<Span>& spans, size_t k) const;
  // The ids of a span that is not a letter run; with a lead, its word-initial piece " " + span
  // when the vocabulary has it.
  void encode_other(std::string_view text, TextSpan span, Lead lead, std::vector<int32_t>* ids,
                    std::vector<TextSpan>* offsets) const;

  std::vector<std::string> pieces_;
  FlatStringMap<int32_t> piece_ids_;
  std::array<int32_t, 128> ascii_ids_{};  // piece_id of each one-byte string, or -1
  std::vector<uint8_t> word_piece_;       // per piece: first code point is a letter or a mark
                                          // (after the space of a word-initial piece)
  std::vector<uint8_t> initial_piece_;    // per piece: a word-initial piece (word_initial only)
  std::vector<int32_t> initial_of_;       // per piece: its word-initial piece id, or -1
  size_t max_piece_cps_ = 1;              // longest piece in code points
  std::shared_ptr<const Segmenter> segmenter_;
  PieceCodecOptions options_;
  std::unique_ptr<Cache> cache_;
  std::shared_ptr<const void> keep_;  // the image piece_ids_ reads (from_image), or null
};

}  // namespace morpheus::tokenizer
