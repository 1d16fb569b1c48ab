// SPDX-License-Identifier: MIT
// TokenWriter: writes the documents of a pack, in order, in one of the formats of format.h. Every
// file goes through an OutputFile (a temporary name until commit), so a writer that fails or is
// destroyed before commit leaves nothing under a final name. Memory is a write buffer per file:
// per-document data (Megatron's lengths, npy's offsets) goes to the index file as it comes and
// what is derived from it is computed from the file at finish.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "pack/format.h"

namespace morpheus::pack {

class TokenWriter {
 public:
  virtual ~TokenWriter() = default;
  // Appends one document. An id outside [0, dtype_max] is INTERNAL (the token type is chosen
  // from the vocabulary size, so it cannot happen): nothing is written.
  virtual Status add(const int32_t* ids, size_t count) = 0;
  Status add(const std::vector<int32_t>& ids) { return add(ids.data(), ids.size()); }
  // Writes what depends on the whole pack (headers, index arrays) and fsyncs every file, still
  // under its temporary name.
  virtual Status finish() = 0;
  // Renames every file to its final name (after finish).
  virtual Status commit() = 0;
  // The final names and sizes in bytes of the files (sizes valid after finish).
  virtual std::vector<std::pair<std::string, uint64_t>> files() const = 0;
  uint64_t documents() const { return documents_; }
  uint64_t tokens() const { return tokens_; }

 protected:
  uint64_t documents_ = 0;
  uint64_t tokens_ = 0;
};

// A writer of `format` with `dtype` tokens at `prefix` (its files: format_files).
StatusOr<std::unique_ptr<TokenWriter>> make_writer(Format format, DType dtype,
                                                   const std::string& prefix);

}  // namespace morpheus::pack
