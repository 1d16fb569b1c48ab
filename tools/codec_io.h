// SPDX-License-Identifier: MIT
// The line-oriented I/O every tokenizer command shares:
//   encode:  text lines in -> one line of space-separated ids per input line
//   decode:  id lines in   -> the original text lines
//   segment: one word per line in -> "word<TAB>piece piece ..." out
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::tools {

using EncodeLineFn = std::function<Status(std::string_view line, std::vector<int32_t>* ids)>;
using DecodeLineFn = std::function<Status(const std::vector<int32_t>& ids, std::string* text)>;
using SegmentWordFn = std::function<StatusOr<std::vector<std::string>>(std::string_view word)>;

// Each runs over `input` ("-" = stdin) and writes `output` ("-" = stdout, else atomically).
// Errors name the input and line number. With allow_invalid, lines are not UTF-8 validated.
Status encode_lines(const std::string& input, const std::string& output, bool allow_invalid,
                    const EncodeLineFn& encode);
Status decode_lines(const std::string& input, const std::string& output,
                    const DecodeLineFn& decode);
Status segment_lines(const std::string& input, const std::string& output,
                     const SegmentWordFn& segment);

// Streaming for large corpora: lines are read in blocks; `prefetch` (optional) sees each block
// before its lines are processed (e.g. to run a model once on all their words; an error stops
// the loop, prefixed with the input and the block's first line); only the lines
// of shard `shard_index` of `shard_count` are kept (line n, 1-based, belongs to shard
// (n − 1) mod shard_count); a progress bar counts lines when `progress_label` is set.
struct BlockOptions {
  size_t block_lines = 4096;
  std::function<Status(const std::vector<std::string>& lines)> prefetch;
  // When set, prefetch only starts the work of a block and prefetch_wait finishes it: the next
  // block's prefetch runs while a block's lines are processed (e.g. a model co-process segments
  // the next block's misses meanwhile).
  std::function<Status()> prefetch_wait;
  size_t shard_index = 0;
  size_t shard_count = 1;
  // Threads that run fn on the lines of a block (contiguous slices, output kept in line order);
  // fn must then be safe to call from several threads at once, and prefetch safe to run beside
  // it (with workers > 1 the next block's prefetch runs on its own thread meanwhile).
  size_t workers = 1;
  std::string progress_label;
  // With a progress bar: after each block, the words done so far (the bar counts words instead
  // of lines) and a note for the bar (e.g. the share of table hits).
  std::function<std::string(uint64_t* words)> progress_note;
};
// Parses "i/n" (0 <= i < n) into options->shard_index/shard_count.
Status parse_shard(const std::string& spec, BlockOptions* options);

// Writes fn's output for every kept line of `input`, block by block. Errors from fn are prefixed
// with the input and line number. With validate_utf8, invalid lines fail with their byte offset.
using LineFn = std::function<Status(std::string_view line, std::string* out)>;
Status transform_lines(const std::string& input, const std::string& output, bool validate_utf8,
                       const BlockOptions& options, const LineFn& fn);
// encode_lines/segment_lines with blocks, prefetch and shards (same output format).
Status encode_lines(const std::string& input, const std::string& output, bool allow_invalid,
                    const EncodeLineFn& encode, const BlockOptions& options);
Status segment_lines(const std::string& input, const std::string& output,
                     const SegmentWordFn& segment, const BlockOptions& options);

}  // namespace morpheus::tools
