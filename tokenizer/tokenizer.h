// SPDX-License-Identifier: MIT
// Tokenizer: the Morpheus tokenizer, a directory written by `morpheus export` (its files, format
// versions and checks: directory_format.h), and the stages a text goes through, in the order they
// run:
//
//   0. user symbols  occurrences of the user symbols (--user-symbols) are cut out of the text,
//                    leftmost first, the longest at a position, and become their ids (one
//                    piece each in segment); the text between them goes through stages 1-5 on
//                    its own.
//   1. pre-tokenize  lossless spans (pretokenizer.h). Only letter runs go through stages 2-4;
//                    digits, spaces, punctuation and other scripts become ids directly (5). With
//                    the apostrophe convention a proper name before an apostrophe and the suffix
//                    chain after it ("Ankara'da") skip stages 3-4.
//   2. case          the letter run folded to lower case with Turkish rules (case_fold.h); its case
//                    comes back as <cap>/<upper>/<upper_word> tokens or byte fallback in stage 5.
//   3. segmenters    the first source that knows the folded run gives its pieces: the segment
//                    table (segments.bin: every word type of the export), the cache file
//                    (--cache-file, segment_cache.h), the model (a Segmenter made by name through
//                    the factory of segmenter.h on the first miss: "morpheus-engine", the
//                    torch-free engine, or "morpheus-model", LibTorch on a GPU; or, for a
//                    directory whose morpheus.json names its own segmenter, that one:
//                    directory_segmenter).
//   4. root snap     for exports with --root-snap: the model's pieces re-cut at the dictionary
//                    root (morph/root_snap.h; root_snap/ of the directory, loaded with the model).
//                    The segment table and the cache file hold pieces that already went through
//                    this stage (export and the cache file store its output), so every run gets
//                    it exactly once, whichever source answered.
//   5. ids           each piece its vocabulary id (pieces.json), a piece outside the vocabulary
//                    the fewest vocabulary pieces inside it, case tokens, byte fallback.
//
// Id layout: the piece codec's ids first (piece_codec.h: [0, 256) bytes, 256-258 the case tokens
// <cap> <upper> <upper_word>, then the P pieces of pieces.json from 259), then the special tokens
// [259 + P, 259 + P + S) in the order of --special-tokens (default <pad> <s> </s> <mask>), then
// the user symbols [259 + P + S, vocab_size()). Special tokens are never produced by encoding text
// ("<s>" in a text is encoded as its characters); encode adds <s> and </s> on request, padding
// uses <pad>. Roles by string: pad "<pad>" or "[PAD]", bos "<s>" or "[CLS]", eos "</s>" or
// "[SEP]", mask "<mask>" or "[MASK]"; the role ids are -1 when no such token was exported.
// Decoding drops special tokens unless asked to render them; user symbols are always text.
// Offsets: one span per id, in the same pass (PieceCodec offsets, stage 0 adds the symbols'),
// in bytes and in characters (code points, an invalid byte counting one as Python's
// surrogateescape does): byte tokens of one character each cover the whole character, case
// tokens and <s> </s> are empty.
//
// Stages 1, 2 and 5 are the piece codec's (piece_codec.h); it asks its segmenter, the
// RunResolver (run_resolver.h: stages 3 and 4), once per distinct run. Loading checks the format
// version and the checksums of pieces.json and segments.bin and re-encodes the self-test texts
// (they need the segment table only); format 3 also holds special_self_test: the ids of every
// special token, then the user symbols (a text of them, spaced) encoded with <s> and </s>; they
// must encode as stored and decode back with and without the special tokens. The model is created
// on the first run the table and the cache file lack; then its stored self-test runs must segment
// as at export (after the root snap).
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/flat_string_map.h"
#include "core/mapped_file.h"
#include "core/status.h"
#include "tokenizer/piece_codec.h"
#include "tokenizer/run_resolver.h"
#include "tokenizer/segment_table.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

class Tokenizer;
// The special_self_test entry of morpheus.json for `tok` (format 3, see above).
StatusOr<nlohmann::json> make_special_self_test(const Tokenizer& tok);

struct EncodeOptions {
  bool allow_invalid = false;  // invalid UTF-8 bytes become byte tokens instead of an error
  bool add_bos = false;        // <s> first (FAILED_PRECONDITION when there is none)
  bool add_eos = false;        // </s> last (likewise)
};

// Per id, where it stands in the text: bytes and characters [begin, end) (see the id layout).
struct Offsets {
  std::vector<TextSpan> bytes;
  std::vector<TextSpan> chars;
};

class Tokenizer {
 public:
  // Loads morpheus.json (tokenizer_config_path), pieces.json and segments.bin of `dir`, checking
  // the format version and the checksums of these files; with self_test, the self-test texts must
  // encode to their stored ids. `model` names the model segmenter of stage 3 (its path is set to
  // `dir`); it is created on the first letter run the table and the cache file lack, and again
  // after a model call failed (an empty name: such runs fail with FAILED_PRECONDITION).
  static StatusOr<std::unique_ptr<Tokenizer>> load(const std::string& dir, bool self_test,
                                                   SegmenterSpec model);
  // The same with `config` in place of the directory's morpheus.json (which need not exist yet):
  // export builds the self-tests of a config before it writes the file, once.
  static StatusOr<std::unique_ptr<Tokenizer>> from_config(const std::string& dir,
                                                          nlohmann::json config, bool self_test,
                                                          SegmenterSpec model);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // The ids of `text` appended to *ids (PieceCodec::encode); invalid UTF-8 is INVALID_ARGUMENT
  // naming the byte offset unless allow_invalid (then byte tokens). Fails when the model was
  // needed by this call and could not be created or failed; every call has its own outcome (a
  // later call creates the model again, a failure never reaches another call). Thread-safe.
  Status encode(std::string_view text, std::vector<int32_t>* ids, bool allow_invalid) const;
  // The same with <s>/</s> on request and, when `offsets` is given, one span per id appended to
  // offsets->bytes and offsets->chars (counted from the start of `text`).
  Status encode(std::string_view text, const EncodeOptions& options, std::vector<int32_t>* ids,
                Offsets* offsets = nullptr) const;
  // The text of `ids`; a bad id is INVALID_ARGUMENT naming its position. Special tokens are
  // dropped, or written as their strings with keep_special.
  Status decode(const std::vector<int32_t>& ids, std::string* text,
                bool keep_special = false) const;
  // Pieces of one word (or of a chunk of running text) in its original case, as encode cuts it:
  // "Evlerde" -> {"Ev", "ler", "de"}, a user symbol one piece (stage 0); they concatenate to
  // `word`. Invalid UTF-8 is INVALID_ARGUMENT naming the byte offset.
  StatusOr<std::vector<std::string>> segment(std::string_view word) const;
  // "<0x41>", "<cap>", "<upper>", "<upper_word>", the piece string, the special token or the user
  // symbol; `id` must be in range.
  std::string id_to_piece(int32_t id) const;
  // Id of a special token, user symbol or piece string (in this order), or -1.
  int32_t piece_to_id(std::string_view piece) const;
  int32_t vocab_size() const {
    return codec_->vocab_size() + static_cast<int32_t>(symbols_.size());
  }
  // The special tokens and user symbols, in id order (see the id layout).
  const std::vector<std::string>& special_tokens() const { return special_tokens_; }
  const std::vector<std::string>& user_symbols() const { return user_symbols_; }
  bool is_special(int32_t id) const {
    return id >= codec_->vocab_size() &&
           id < codec_->vocab_size() + static_cast<int32_t>(special_tokens_.size());
  }
  // Role ids, -1 when the tokenizer has no such token.
  int32_t pad_id() const { return pad_id_; }
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  int32_t mask_id() const { return mask_id_; }

  // Segments, in one model call, the letter runs of `texts` that the table and the cache file
  // lack (creating the model on the first miss), so that encode/segment on them need no model
  // call. prefetch_begin hands the misses to the model (Segmenter::send), prefetch_end (or any
  // later model use) stores its answers (Segmenter::receive: the engine segments the whole
  // batch there, on its threads); prefetch_begin scans its texts without the lock, so it may
  // run while other threads encode.
  // Adaptive: once a scanned block had no miss, the scan (about 30 % of a run answered wholly by
  // the table and the cache file) is skipped for the following blocks until a run had to go to
  // the model unprefetched (then the next block is scanned again) or 15 blocks were skipped. So
  // a run whose text turns from known to new words pays one block of one-by-one model calls.
  Status prefetch(const std::vector<std::string>& texts) const;
  Status prefetch_begin(const std::vector<std::string>& texts) const;
  Status prefetch_end() const;

  // Looks letter runs outside the table up in the cache file `path` (created when absent) before
  // the model, and appends what the model segments (after the root snap) to it.
  Status attach_cache(const std::string& path);

  // The codec's options: the case and apostrophe rules and the stream layout (format 4).
  const PieceCodecOptions& codec_options() const { return codec_->options(); }
  const std::string& dir() const { return dir_; }
  const nlohmann::json& config() const { return *config_; }
  const SegmentTable& table() const { return runs_->table(); }
  // FNV-1a 64 of the config file (it names the checksums of every other file; from_config: of
  // the config's compact dump): the identity a cache file is tied to.
  uint64_t id() const { return id_; }
  // The model segmenter of stage 3 (created on first use, self-tested; owned by this tokenizer),
  // or its creation error. Its pieces are the model's, before the root snap. The pointer is
  // valid until a model call fails (the tokenizer then drops the model).
  StatusOr<Segmenter*> model() const;
  // Whether a model is created now (none before the first miss or after a failure).
  bool model_created() const;

  // Letter runs answered by the table / sent to the model since loading.
  uint64_t table_hits() const;
  uint64_t model_runs() const;
  // Letter runs encoded or segmented (words), the distinct ones (runs: each looked up once while
  // the codec's run cache holds it), and of those, how many the table and the cache file
  // answered; the rest went to the model.
  struct RunStats {
    uint64_t words = 0;
    uint64_t runs = 0;
    uint64_t table = 0;
    uint64_t cache = 0;
  };
  RunStats run_stats() const;

 private:
  Tokenizer();
  // load() and from_config(): the tokenizer of `dir` with `config` and identity `id`.
  static StatusOr<std::unique_ptr<Tokenizer>> create(const std::string& dir, nlohmann::json config,
                                                     uint64_t id, bool self_test,
                                                     SegmenterSpec model);
  // The self-test texts of morpheus.json must encode to their stored ids and decode back.
  Status self_test() const;
  // special_self_test of a format-3 config (see above).
  Status special_self_test() const;
  // Reads special_tokens/user_symbols of a format-3 config (after the codec is made).
  Status load_symbols();
  // Stage 0 of `text`: in text order, plain(TextSpan) for each non-empty part between user
  // symbols and symbol(id, TextSpan) for each user symbol (leftmost first, the longest at a
  // position); both return Status, the first error stops the split and is returned. Used by
  // encode and segment alike.
  template <typename Plain, typename Symbol>
  Status split_user_symbols(std::string_view text, Plain plain, Symbol symbol) const;
  // Encodes text[begin, end) (no user symbol inside) through the codec.
  Status encode_plain(std::string_view text, TextSpan part, bool allow_invalid,
                      std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const;

  std::string dir_;
  uint64_t id_ = 0;
  std::shared_ptr<const nlohmann::json> config_;  // shared with the RunResolver and the model
  std::shared_ptr<RunResolver> runs_;             // stages 3 and 4; the codec's segmenter
  std::unique_ptr<PieceCodec> codec_;
  std::vector<std::string> special_tokens_;
  std::vector<std::string> user_symbols_;
  std::vector<std::string> symbols_;  // special tokens then user symbols: id codec size + index
  FlatStringMap<int32_t> symbol_ids_;
  size_t longest_user_symbol_ = 0;       // bytes
  std::bitset<256> symbol_first_bytes_;  // first bytes of the user symbols
  int32_t pad_id_ = -1;
  int32_t bos_id_ = -1;
  int32_t eos_id_ = -1;
  int32_t mask_id_ = -1;
};

}  // namespace morpheus::tokenizer
