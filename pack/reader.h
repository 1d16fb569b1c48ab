// SPDX-License-Identifier: MIT
// PackReader: the documents of a pack, in order, read back from its token files (what `morpheus
// pack merge` streams from each part). Memory is one read buffer per file. The files are checked
// against the manifest as they are read (headers, counts, sizes): DATA_LOSS naming the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "pack/manifest.h"

namespace morpheus::pack {

class PackReader {
 public:
  virtual ~PackReader() = default;
  // The next document's ids into *ids (replacing them); false after the last one.
  virtual StatusOr<bool> next(std::vector<int32_t>* ids) = 0;
};

// A reader of the pack at `prefix` described by `manifest` (read_manifest(prefix); the reader
// keeps a copy).
StatusOr<std::unique_ptr<PackReader>> open_pack_reader(const std::string& prefix,
                                                       const Manifest& manifest);

}  // namespace morpheus::pack
