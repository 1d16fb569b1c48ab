// SPDX-License-Identifier: MIT
// Line-oriented encode/decode/segment loops shared by `morpheus cbpe` and `morpheus-spm`.
#include "tools/codec_io.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/file_util.h"
#include "core/progress.h"
#include "tools/cli.h"

namespace morpheus::tools {
namespace {

std::string where(const std::string& input, size_t line_no) {
  return (input == "-" ? std::string("<stdin>") : input) + ":" + std::to_string(line_no) + ": ";
}

}  // namespace

Status encode_lines(const std::string& input, const std::string& output, bool allow_invalid,
                    const EncodeLineFn& encode) {
  return encode_lines(input, output, allow_invalid, encode, BlockOptions{});
}

Status decode_lines(const std::string& input, const std::string& output,
                    const DecodeLineFn& decode) {
  std::vector<int32_t> ids;
  return transform_lines(
      input, output, true, BlockOptions{}, [&](std::string_view line, std::string* out) -> Status {
        ids.clear();
        const char* p = line.data();
        const char* end = line.data() + line.size();
        while (p < end) {
          if (*p == ' ' || *p == '\r') {
            ++p;
            continue;
          }
          int32_t id = 0;
          const auto [next, ec] = std::from_chars(p, end, id);
          if (ec != std::errc() || (next < end && *next != ' ' && *next != '\r')) {
            return invalid_argument(
                "expected space-separated ids, got \"" + std::string(line) + "\"",
                "decode reads the output of encode");
          }
          ids.push_back(id);
          p = next;
        }
        std::string text;
        MORPHEUS_RETURN_IF_ERROR(decode(ids, &text));
        *out += text;
        *out += '\n';
        return ok_status();
      });
}

Status segment_lines(const std::string& input, const std::string& output,
                     const SegmentWordFn& segment) {
  return segment_lines(input, output, segment, BlockOptions{});
}

Status parse_shard(const std::string& spec, BlockOptions* options) {
  const size_t slash = spec.find('/');
  size_t index = 0;
  size_t count = 0;
  const char* b = spec.data();
  const char* e = spec.data() + spec.size();
  bool ok = slash != std::string::npos;
  if (ok) {
    const auto r1 = std::from_chars(b, b + slash, index);
    const auto r2 = std::from_chars(b + slash + 1, e, count);
    ok = r1.ec == std::errc() && r1.ptr == b + slash && r2.ec == std::errc() && r2.ptr == e &&
         count > 0 && index < count;
  }
  if (!ok) {
    return invalid_argument("bad --shard \"" + spec + "\"",
                            "give i/n with 0 <= i < n, e.g. --shard 0/4 ... --shard 3/4");
  }
  options->shard_index = index;
  options->shard_count = count;
  return ok_status();
}

namespace {

// The next block of kept lines (at most block_lines) and their 1-based numbers.
struct LineBlock {
  std::vector<std::string> lines;
  std::vector<size_t> numbers;
};

void read_block(LineReader& reader, const BlockOptions& options, size_t* line_no,
                LineBlock* block) {
  const size_t block_size = std::max<size_t>(1, options.block_lines);
  const size_t shards = std::max<size_t>(1, options.shard_count);
  block->lines.clear();
  block->numbers.clear();
  std::string line;
  while (block->lines.size() < block_size && reader.next(&line)) {
    ++*line_no;
    if ((*line_no - 1) % shards != options.shard_index) continue;
    block->lines.push_back(std::move(line));
    block->numbers.push_back(*line_no);
  }
}

// Starts the prefetch of `block` (the whole prefetch when there is no prefetch_wait).
Status begin_prefetch(const std::string& input, const BlockOptions& options,
                      const LineBlock& block) {
  if (block.lines.empty() || !options.prefetch) return ok_status();
  const Status s = options.prefetch(block.lines);
  if (s.ok()) return s;
  return Status(s.code(), where(input, block.numbers[0]) + s.message(), s.hint());
}

Status end_prefetch(const std::string& input, const BlockOptions& options, const LineBlock& block) {
  if (block.lines.empty() || !options.prefetch || !options.prefetch_wait) return ok_status();
  const Status s = options.prefetch_wait();
  if (s.ok()) return s;
  return Status(s.code(), where(input, block.numbers[0]) + s.message(), s.hint());
}

// fn over every line of `block`, the output appended to *text in line order; with several
// workers each runs a contiguous slice into its own buffer. The first failing line (in line order)
// is the error.
Status run_block(const std::string& input, const LineBlock& block, size_t workers, const LineFn& fn,
                 std::string* text) {
  const size_t n = block.lines.size();
  const size_t parts = std::max<size_t>(1, std::min(workers, n));
  std::vector<std::string> outs(parts);
  std::vector<Status> errors(parts, ok_status());
  std::vector<size_t> failed(parts, n);
  const auto slice = [&](size_t part) {
    const size_t begin = n * part / parts, end = n * (part + 1) / parts;
    std::string& out = part == 0 ? *text : outs[part];
    for (size_t i = begin; i < end; ++i) {
      Status s = fn(block.lines[i], &out);
      if (!s.ok()) {
        errors[part] = std::move(s);
        failed[part] = i;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t part = 1; part < parts; ++part) threads.emplace_back(slice, part);
  slice(0);
  for (std::thread& t : threads) t.join();
  for (size_t part = 0; part < parts; ++part) {
    if (failed[part] < n) {
      const Status& s = errors[part];
      return Status(s.code(), where(input, block.numbers[failed[part]]) + s.message(), s.hint());
    }
    if (part > 0) *text += outs[part];
  }
  return ok_status();
}

}  // namespace

Status transform_lines(const std::string& input, const std::string& output, bool validate_utf8,
                       const BlockOptions& options, const LineFn& fn) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(input, validate_utf8));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(output));
  std::unique_ptr<ProgressBar> bar;
  if (!options.progress_label.empty()) {
    bar = std::make_unique<ProgressBar>(options.progress_label, 0,
                                        options.progress_note ? "words" : "lines");
  }
  size_t line_no = 0;
  LineBlock block;
  LineBlock next;
  read_block(reader, options, &line_no, &block);
  MORPHEUS_RETURN_IF_ERROR(begin_prefetch(input, options, block));
  MORPHEUS_RETURN_IF_ERROR(end_prefetch(input, options, block));
  std::string text;
  while (!block.lines.empty()) {
    // The next block's misses go to the model while this block is written.
    read_block(reader, options, &line_no, &next);
    text.clear();
    if (options.workers > 1) {
      // With workers, the next block's prefetch scans on its own thread beside them.
      Status prefetched = ok_status();
      std::thread prefetch([&] { prefetched = begin_prefetch(input, options, next); });
      const Status ran = run_block(input, block, options.workers, fn, &text);
      prefetch.join();
      MORPHEUS_RETURN_IF_ERROR(ran);
      MORPHEUS_RETURN_IF_ERROR(prefetched);
    } else {
      MORPHEUS_RETURN_IF_ERROR(begin_prefetch(input, options, next));
      MORPHEUS_RETURN_IF_ERROR(run_block(input, block, options.workers, fn, &text));
    }
    MORPHEUS_RETURN_IF_ERROR(out.write(text));
    if (bar && options.progress_note) {
      uint64_t words = 0;
      bar->set_note(options.progress_note(&words));
      bar->set(words);
    } else if (bar) {
      bar->add(block.lines.size());
    }
    MORPHEUS_RETURN_IF_ERROR(end_prefetch(input, options, next));
    std::swap(block, next);
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (bar) bar->finish();
  return out.close();
}

Status encode_lines(const std::string& input, const std::string& output, bool allow_invalid,
                    const EncodeLineFn& encode, const BlockOptions& options) {
  return transform_lines(input, output, !allow_invalid, options,
                         [&](std::string_view line, std::string* out) -> Status {
                           thread_local std::vector<int32_t> ids;
                           ids.clear();
                           MORPHEUS_RETURN_IF_ERROR(encode(line, &ids));
                           char buf[16];
                           for (size_t i = 0; i < ids.size(); ++i) {
                             if (i > 0) *out += ' ';
                             const auto r = std::to_chars(buf, buf + sizeof(buf), ids[i]);
                             out->append(buf, r.ptr);
                           }
                           *out += '\n';
                           return ok_status();
                         });
}

Status segment_lines(const std::string& input, const std::string& output,
                     const SegmentWordFn& segment, const BlockOptions& options) {
  return transform_lines(
      input, output, true, options, [&](std::string_view line, std::string* out) -> Status {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) return ok_status();
        MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces, segment(line));
        *out += line;
        *out += '\t';
        for (size_t i = 0; i < pieces.size(); ++i) {
          if (i > 0) *out += ' ';
          *out += pieces[i];
        }
        *out += '\n';
        return ok_status();
      });
}

}  // namespace morpheus::tools
