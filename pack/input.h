// SPDX-License-Identifier: MIT
// The inputs of a pack: files read line by line, plain or compressed (by extension: .gz through
// zlib, gzip members one after another as gzip itself reads them; .zst through libzstd when the
// build has it), with the FNV-1a 64 checksum of the file's bytes as read (core/hash.h: the
// checksum file_checksum gives, without holding the file) — and the documents in those lines: a
// JSONL object's string under a key, or a whole line as plain text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace morpheus::pack {

// The bytes of a file, decompressed by its extension.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `capacity` bytes into `data`; 0 at the end.
  virtual StatusOr<size_t> read(char* data, size_t capacity) = 0;
  // "fnv1a64:<hex>" of the file's bytes read so far (all of them at the end), and their count.
  virtual std::string checksum() const = 0;
  virtual uint64_t file_bytes() const = 0;
};

// Opens `path` (a regular file; NOT_FOUND/INVALID_ARGUMENT naming it otherwise).
StatusOr<std::unique_ptr<ByteSource>> open_source(const std::string& path);
// Whether .zst inputs can be read (the build found libzstd).
bool zstd_supported();

// The lines of one input, without their "\n" (a "\r" before it is kept, as `morpheus encode`
// keeps it); a last line without "\n" is a line, an empty file has none.
class LineInput {
 public:
  Status open(const std::string& path);
  // Sets *line and returns true while lines remain; false at the end or on an error (status()).
  bool next(std::string* line);
  const Status& status() const { return status_; }
  uint64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  std::string checksum() const { return source_ ? source_->checksum() : std::string(); }
  uint64_t file_bytes() const { return source_ ? source_->file_bytes() : 0; }

 private:
  bool fill();

  std::string path_;
  std::unique_ptr<ByteSource> source_;
  std::vector<char> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
  Status status_;
};

// How a line becomes a document's text.
struct DocumentFormat {
  bool plain = false;              // the line itself (valid UTF-8)
  std::string jsonl_key = "text";  // else: the string under this key of the line's JSON object
};

// The text of the document on `line` into *text. INVALID_ARGUMENT for invalid JSON (with the
// parser's position), a line that is not a JSON object, a missing key, a value that is not a
// string, or invalid UTF-8 (plain lines; JSON rejects it itself, and lone surrogate escapes).
Status document_text(std::string_view line, const DocumentFormat& format, std::string* text);

}  // namespace morpheus::pack
