// SPDX-License-Identifier: MIT
// pack_corpus: documents of JSONL or plain-text inputs → the tokenizer's ids → token files
// (writer.h) and PREFIX.json (manifest.h). What `morpheus pack` runs.
//
// Each document is encoded whole by Tokenizer::encode (its newlines included), with <s>/</s> on
// request: its ids are those of `morpheus encode [--add-bos] [--add-eos]` of its text, and for a
// document without a newline exactly what `morpheus encode` prints for that line. An empty
// document of a megatron or npy pack stays empty (a zero-length sequence, no <s> or </s>: the
// token stream never holds a lone </s>; Megatron-LM's preprocess_data.py stores no sequence for
// it); in an llmc file, which has no index, it is its </s> or <s> alone. Documents are
// read in blocks (block_docs documents or block_bytes of text, whichever comes first): the
// letter runs of a block the tokenizer's table and cache file lack go to the model in one call
// (Tokenizer::prefetch_begin/prefetch_end; the next block's while this one is encoded), then
// `workers` threads encode contiguous slices of the block and the writer appends its documents
// in input order. Memory is two blocks and the writers' buffers, whatever the corpus size.
//
// Shards: document k (counted from 1 over all inputs, one per line, invalid ones included)
// belongs to shard (k - 1) mod shard_count, as `morpheus encode --shard` counts lines; a shard
// writes its documents only (merge.h re-interleaves shards into the unsharded pack).
//
// Files: the token files are written under temporary names (<name>.tmp.<pid>) and renamed when
// complete; the previous PREFIX.json is removed just before, and the new one is written last.
// A killed pack leaves only temporary names (removed by the next run writing the same files) and
// any previous pack untouched; a rerun starts its shard over.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"
#include "pack/format.h"
#include "pack/manifest.h"
#include "tokenizer/tokenizer.h"

namespace morpheus::pack {

struct PackOptions {
  std::vector<std::string> inputs;
  std::string out;  // PREFIX
  Format format = Format::kMegatron;
  ContentOptions content;
  size_t workers = 1;
  size_t shard_index = 0;
  size_t shard_count = 1;
  size_t block_docs = 2048;
  size_t block_bytes = size_t{64} << 20;
  bool progress = true;  // a progress bar on a terminal's stderr
};

// Packs options.inputs with `tok` (loaded with its model segmenter: new words go to the model).
// Bad input (invalid JSON, a missing key, a text that is not a string, invalid UTF-8) fails with
// INVALID_ARGUMENT naming the file and line, or with content.skip_invalid is skipped and counted.
// Returns the manifest written. An llmc file llm.c's DataLoader would refuse (uint32 tokens, or
// fewer tokens than its default batch) is written with a warning.
StatusOr<Manifest> pack_corpus(const tokenizer::Tokenizer& tok, const PackOptions& options);

}  // namespace morpheus::pack
