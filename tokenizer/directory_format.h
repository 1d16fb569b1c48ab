// SPDX-License-Identifier: MIT
// The tokenizer directory's format, owned here for every reader and writer: the file names
// (each spelled once), the config file's schema (kind, format version, the stream layout, the
// threshold, the segmenter entry), the checksums of its files and their checked reads, and the
// rules for special tokens and user symbols. The Tokenizer class (tokenizer.h) loads a directory
// through these functions, exporter/ writes one with them, the engine (engine/directory.h) reads
// its model files by these names; this header includes neither side.
//
// A directory (format 4; formats 2 and 3 still load):
//   morpheus.json      kind, format_version, files {relative path: checksum}, the case and
//                      stream options, threshold, segmenter, self-tests, provenance
//   pieces.json        the piece vocabulary ("pieces", counts); pieces.bin its prebuilt image
//   segments.bin       the segment table (tokenizer/segment_table.h)
//   words.tsv          the exported word types
//   char_vocab.json    the model's character vocabulary
//   model.weights      the torch-free engine's weights (engine/weight_file.h)
//   model/             the LibTorch checkpoint
//   README.md          the model card
//   root_snap/         the root snap's lexicons (exports with --root-snap) and their image
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/mapped_file.h"
#include "core/status.h"
#include "tokenizer/piece_codec.h"
#include "tokenizer/segmenter.h"

namespace morpheus::tokenizer {

// Format 4 adds the id stream's layout ("stream": word-initial pieces, the implicit space at the
// start of a line, whole-morpheme merges; tokenizer/piece_codec.h); formats 2 and 3 encode as
// they always did (spaces are ids of their own, no merges).
constexpr int kTokenizerFormatVersion = 4;
// The oldest format this build reads (no special tokens, no user symbols).
constexpr int kTokenizerOldestFormatVersion = 2;
constexpr const char* kTokenizerKind = "morpheus-tokenizer";
// The directory's config file (format version, checksums, self-tests, provenance). Directories
// exported before it had its own name hold it as tokenizer.json (the Hugging Face file name, with
// another schema); they still load.
constexpr const char* kTokenizerConfigFile = "morpheus.json";
constexpr const char* kOldTokenizerConfigFile = "tokenizer.json";
// The other files (see above).
constexpr const char* kPiecesFile = "pieces.json";
// The vocabulary as a prebuilt image (PieceCodec::image), mapped at load instead of parsing
// pieces.json; a directory without it (an older export) parses pieces.json.
constexpr const char* kPiecesImageFile = "pieces.bin";
constexpr const char* kSegmentTableFile = "segments.bin";
constexpr const char* kWordsFile = "words.tsv";
constexpr const char* kCharVocabFile = "char_vocab.json";
constexpr const char* kWeightsFile = "model.weights";
constexpr const char* kCheckpointDir = "model";
constexpr const char* kModelCardFile = "README.md";
// The lexicons of the root snap, copied into the directory by `morpheus export --root-snap`.
constexpr const char* kRootSnapRoots = "root_snap/roots.txt";
constexpr const char* kRootSnapSuffixes = "root_snap/suffixes.txt";
// Both lexicons as one prebuilt image (morph::RootLexicon::image), mapped at load instead of
// parsing the two text files; a directory without it (an older export) parses them.
constexpr const char* kRootSnapImage = "root_snap/lexicon.bin";

// The config file of the tokenizer directory `dir`, for every reader: dir/morpheus.json when
// present, else dir/tokenizer.json when present (an older export), else dir/morpheus.json (so
// an error about a missing config names the current file).
std::string tokenizer_config_path(const std::string& dir);
// The config must name its kind and a format version this build reads: DATA_LOSS or
// INVALID_ARGUMENT (with the re-export hint) naming the config file of `dir`.
Status check_tokenizer_config(const std::string& dir, const nlohmann::json& config);
// The piece codec's options the config records: the case and apostrophe rules and, from format 4
// on, the stream layout (older directories: spaces are ids, no merges); vocabulary back-off on.
PieceCodecOptions config_codec_options(const nlohmann::json& config);
// The boundary threshold of the directory (its "threshold"), or 0 when it stores none: the
// model's own threshold (the one of its training config, in model.weights and the checkpoint)
// then decides. The one place every model loader reads it.
double directory_threshold(const nlohmann::json& config);

// What cuts the letter runs the table lacks: the "segmenter" entry of morpheus.json names it.
// "morpheus-model" (and a directory without the entry) is the neural model, created through the
// caller's SegmenterSpec; any other name is a registered segmenter created from the directory's
// own files (e.g. "bpe", "unigram": baselines/plain/plain_segmenters.h).
constexpr const char* kModelSegmenter = "morpheus-model";
std::string directory_segmenter(const nlohmann::json& config);
// The morpheus.json of the directory spec.path: spec.directory_config, or else read from there.
StatusOr<nlohmann::json> spec_directory_config(const SegmenterSpec& spec);

// Reads `relative` (a file of the tokenizer directory `dir`) into *content and checks it against
// its checksum in `config` (the directory's morpheus.json): DATA_LOSS naming the file when it
// differs or has no checksum. verify_tokenizer_file: the check alone; verify_tokenizer_bytes:
// the check of bytes already read or mapped; map_tokenizer_file: the file mapped, then checked.
Status read_tokenizer_file(const std::string& dir, const nlohmann::json& config,
                           const std::string& relative, std::string* content);
Status verify_tokenizer_file(const std::string& dir, const nlohmann::json& config,
                             const std::string& relative);
Status verify_tokenizer_bytes(const std::string& dir, const nlohmann::json& config,
                              const std::string& relative, std::string_view bytes);
StatusOr<std::shared_ptr<const MappedFile>> map_tokenizer_file(const std::string& dir,
                                                               const nlohmann::json& config,
                                                               const std::string& relative);
// Whether `config` (a directory's morpheus.json) lists `relative` among its checksummed files.
bool lists_file(const nlohmann::json& config, const std::string& relative);
// The checksum morpheus.json stores for a file of the directory (core/hash.h's
// fast_checksum_tag: every load verifies every file it reads; older exports' FNV-1a tags are
// still verified).
StatusOr<std::string> tokenizer_file_checksum(const std::string& path);
std::string tokenizer_checksum(std::string_view bytes);
// The "pieces" string array of the directory's pieces.json (checksummed; the counts beside it
// are not parsed).
StatusOr<std::vector<std::string>> read_pieces_file(const std::string& dir,
                                                    const nlohmann::json& config);

// The special tokens export writes by default.
std::vector<std::string> default_special_tokens();
// Special tokens and user symbols must be non-empty valid UTF-8, distinct from each other and
// free of white space; INVALID_ARGUMENT naming the first that is not.
Status check_special_tokens(const std::vector<std::string>& special_tokens,
                            const std::vector<std::string>& user_symbols);

}  // namespace morpheus::tokenizer
