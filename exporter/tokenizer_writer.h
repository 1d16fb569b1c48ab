// SPDX-License-Identifier: MIT
// The tokenizer's trainer: word types + a letter-run segmenter -> a Morpheus tokenizer directory
// (format 4, read by tokenizer/tokenizer.h). Torch-free: the segmenter is an interface, so the
// same writer exports the neural model (exporter/torch/export.h) and the plain BPE and Unigram
// controls (baselines/plain/plain_export.h), and every directory gets the same pre-tokenizer, case
// layer, vocabulary distillation, table and self-tests; only the cut of the letter runs differs.
//   morpheus.json    {"format_version","kind":"morpheus-tokenizer","vocab_size","segmenter",
//                     "turkish_case","files":{relative path: checksum},"first_special_id",
//                     "special_tokens":[...],"user_symbols":[...],"stream":{...},
//                     "self_test":[{"text","ids"}],
//                     "special_self_test":{...},"model_self_test":[{"run","pieces"}],
//                     "provenance":{...}, ... and the segmenter's own entries}
//   pieces.json      {"pieces":[...],"counts":[...]}: piece i has id 259 + i (PieceCodec layout);
//                    the special tokens, then the user symbols, follow the last piece
//   pieces.bin       the same pieces as a prebuilt image (PieceCodec::image), mapped at load
//   segments.bin     the segmenter's pieces (after the root snap) of every letter run of the types
//   words.tsv        the word types (word<TAB>count) the vocabulary was distilled from
//   root_snap/       the root snap's lexicons (with root_snap): roots.txt, suffixes.txt and
//                    their prebuilt image lexicon.bin (mapped at load)
//   README.md        the model card (exporter/model_card.h), from morpheus.json's "provenance"
//   + the segmenter's files (RunSegmenter::write_files), each checksummed in "files".
// The directory is written beside `out` and renamed into place (an older directory is replaced
// whole, so no file of it is left).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/segmenter.h"

namespace morpheus::exporter {

// What cuts the folded letter runs of a directory: at export, every run of the word types (the
// segment table); at encode time, through the files it writes, the runs the table lacks.
class RunSegmenter {
 public:
  virtual ~RunSegmenter() = default;
  // Pieces of each folded letter run, before the root snap, aligned with `runs`.
  virtual StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& runs) const = 0;
  // How far the cut of `run` is from changing (the model self-test keeps runs with a margin of
  // at least kSelfTestMargin); +inf for a rule that never flips.
  virtual float decision_margin(std::string_view /*run*/) const {
    return std::numeric_limits<float>::infinity();
  }
  // Runs longer than this many code points are cut in chunks (the self-test adds one); 0: none.
  virtual size_t max_chunk_chars() const { return 0; }
  // The letters that come first in the vocabulary (so no letter falls back to bytes).
  virtual std::vector<std::string> letters() const = 0;
  // Pieces that fill what the counted pieces leave of the budget, in this order (a trained
  // vocabulary's pieces that the word types never produced); none by default.
  virtual std::vector<std::string> spare_pieces() const { return {}; }
  // Writes the files the runtime needs into the directory `dir`; returns their relative paths
  // (checksummed in morpheus.json).
  virtual StatusOr<std::vector<std::string>> write_files(const std::string& dir) const = 0;
  // Its entries of morpheus.json, at least {"segmenter": {"name": ...}}.
  virtual nlohmann::json config() const = 0;
};

// The logit distance from the threshold a model self-test run must keep.
constexpr float kSelfTestMargin = 0.05f;

// The id stream's layout (tokenizer/piece_codec.h, PieceCodecOptions; morpheus.json "stream"):
// word-initial pieces carry the space before a word, whole-morpheme merges join adjacent
// segmenter pieces of a word; each takes at most its share of the piece budget (the ids left
// after bytes, case tokens, special tokens and user symbols). Defaults: the shipped layout.
struct StreamOptions {
  bool word_initial = true;  // with the implicit space at the start of a line
  double word_initial_share = 0.25;
  double merge_share = 0.1;  // 0: no merges (the stream cuts every segmenter boundary)
};

// morpheus.json's "stream" entry of `stream`: the layout the codec reads (tokenizer/tokenizer.h:
// word_initial, line_start_prefix, merge_pieces) and the two shares.
nlohmann::json stream_config(const StreamOptions& stream);

struct WriterOptions {
  std::string words;  // word<TAB>count file (words.tsv of `morpheus prepare`)
  // Running text (e.g. the training corpus), optional: the runs the apostrophe convention keeps
  // whole (proper names before an apostrophe, "'da"-style suffix chains; tokenizer/piece_codec.h)
  // count as candidate pieces, once per occurrence.
  std::string text;
  std::string out;            // tokenizer directory (replaced atomically)
  size_t vocab_size = 50000;  // total ids incl. 256 bytes, 3 case tokens, specials, symbols
  std::vector<std::string> special_tokens = tokenizer::default_special_tokens();
  std::vector<std::string> user_symbols;
  uint64_t min_count = 2;  // pieces seen less often (weighted) are not kept
  StreamOptions stream;
  // Root snap (morph/root_snap.h) on every segmentation: the table's here, the runtime's at
  // encode time; the two lexicons are copied into the directory (root_snap/).
  bool root_snap = false;
  std::string root_lexicon;    // first field per line: roots
  std::string suffix_lexicon;  // first field per line: suffix chains
  std::string card_eval;       // an evaluation report (Markdown) for the model card, optional
  nlohmann::json provenance;   // the config's "provenance" (exporter/model_card.h)
};

struct WriterSummary {
  size_t word_types = 0;   // distinct words read
  size_t letter_runs = 0;  // distinct folded letter runs segmented
  size_t pieces = 0;       // pieces in the vocabulary
  double seconds = 0;
};

// The writer's settings of `options` as a provenance's "export_options" entries: words, text,
// vocab_size, special_tokens, user_symbols, min_count, stream (stream_config).
nlohmann::json writer_settings(const WriterOptions& options);

// Ids before the pieces and after them (bytes, case tokens, special tokens, user symbols).
size_t reserved_ids(const WriterOptions& options);
// The options a writer refuses: a vocabulary with no room for pieces, bad special tokens or user
// symbols, an unreadable card report.
Status check_writer_options(const WriterOptions& options);

// Writes the prebuilt images of the directory `dir` from its text files, atomically: pieces.bin
// from pieces.json and, with `root_snap`, root_snap/lexicon.bin from roots.txt and suffixes.txt;
// returns their relative paths (to checksum in morpheus.json).
StatusOr<std::vector<std::string>> write_directory_images(const std::string& dir, bool root_snap);

// Segments the word types with `segmenter` (and the root snap), distils the piece vocabulary
// (weighted by counts) and writes the tokenizer directory. Errors name the file and line.
Status write_tokenizer_dir(const WriterOptions& options, const RunSegmenter& segmenter,
                           WriterSummary* summary = nullptr);

}  // namespace morpheus::exporter
