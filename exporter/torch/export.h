// SPDX-License-Identifier: MIT
// `morpheus export`: a checkpoint -> a Morpheus tokenizer directory, read by encode/decode/
// segment (tokenizer/tokenizer.h) and embed/neighbors (infer/tokenizer_model.h). The directory
// writer is exporter/tokenizer_writer.h; the model is its letter-run segmenter. Format 4:
//   morpheus.json    {"format_version","kind":"morpheus-tokenizer","vocab_size","threshold",
//                     "segmenter":{"name":"morpheus-model"},
//                     "max_word_len","turkish_case","files":{relative path: checksum},
//                     "first_special_id","special_tokens":[...],"user_symbols":[...],"stream",
//                     "self_test":[{"text","ids"}],"special_self_test":{...},
//                     "model_self_test":[{"run","pieces"}], ...}
//   pieces.json      {"pieces":[...],"counts":[...]}: piece i has id 259 + i (PieceCodec layout);
//                    the special tokens, then the user symbols, follow the last piece
//   segments.bin     the model's pieces of every exported letter run (tokenizer/tokenizer.h)
//   model/           inference checkpoint (model/checkpoint.h)
//   char_vocab.json  the model's character vocabulary (tokenizer/char_vocab.h)
//   words.tsv        the word types (word<TAB>count) the vocabulary was distilled from
//   root_snap/       the root snap's lexicons (with --root-snap)
//   README.md        the model card (exporter/model_card.h), from morpheus.json's "provenance"
// segments.bin and model_self_test hold pieces after the root snap (stage 4 of the tokenizer).
// Directories exported before the config had its own name hold it as tokenizer.json; they still
// load (tokenizer::tokenizer_config_path), and an export into one replaces the whole directory.
#pragma once

#include <c10/core/Device.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "engine/embedding_layout.h"
#include "exporter/tokenizer_writer.h"
#include "tokenizer/directory_format.h"

namespace morpheus::exporter {

struct ExportOptions {
  // What the tokenizer's writer takes (exporter/tokenizer_writer.h: words, text, out,
  // vocab_size, special tokens, user symbols, min_count, the stream, the root snap's lexicons,
  // card_eval); its provenance is filled here.
  exporter::WriterOptions writer;
  std::string checkpoint;  // inference or training checkpoint dir with char_vocab.json
  double threshold = 0;    // boundary probability threshold in (0, 1); 0: the model's own
  // Where the model segments the word types. The table of a CUDA export can differ from a CPU
  // export's where a gap's probability is within float rounding of the threshold; the model
  // self-test uses runs far from it, so the directory loads on any device.
  c10::Device device = c10::Device(c10::kCPU);
  // The word vectors' layout (engine/embedding_layout.h), morpheus.json "embedding".
  engine::EmbeddingPooling embedding = engine::EmbeddingPooling::kRootInflection;
  double inflection_weight = engine::EmbeddingLayout::kDefaultInflectionWeight;
};

using ExportSummary = exporter::WriterSummary;

// Loads the checkpoint, segments the word types with its model, distils the piece vocabulary
// (weighted by counts) and writes the tokenizer directory (exporter/tokenizer_writer.h). Errors
// name the file and line.
Status export_tokenizer(const ExportOptions& options, ExportSummary* summary = nullptr);

// Adds what an older export lacks to a tokenizer directory: the engine's weight file
// (model.weights, engine/directory.h, from its model/ checkpoint), the prebuilt vocabulary
// pieces.bin and, with the root snap, the prebuilt lexicon root_snap/lexicon.bin (from the
// checked pieces.json, roots.txt and suffixes.txt); records
// their checksums in the config and checks that the engine passes the directory's model
// self-test (else the directory is left as it was: DATA_LOSS, re-export). The segment table is
// kept: it came from the same weights, and the engine decides a gap as LibTorch does except
// within float rounding of the threshold. The FNV-1a checksums of an older export are replaced
// by the faster ones export writes (each file checked first). A directory that has everything
// is left alone, but for the files transformers reads (tokenizer/hf_files.h), written when missing
// or out of date.
Status upgrade_tokenizer(const std::string& dir);

}  // namespace morpheus::exporter
