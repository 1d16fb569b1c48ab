// SPDX-License-Identifier: MIT
// The engine's weight file (`model.weights` in a tokenizer directory): a Morpheus model as flat
// little-endian float32 tensors, read through a read-only mmap (processes forked after the load,
// and every process mapping the same file, share its pages).
//
// Layout (format version 1; integers little-endian):
//   bytes  0–7   magic "MPHSENGW"
//   bytes  8–11  uint32 format version (1)
//   bytes 12–15  uint32 reserved, 0
//   bytes 16–23  uint64 JSON header offset (64)
//   bytes 24–31  uint64 JSON header size J
//   bytes 32–39  uint64 data offset (64-aligned, >= 64 + J; zero bytes in between)
//   bytes 40–47  uint64 data size (the file ends at data offset + data size)
//   bytes 48–55  uint64 FNV-1a 64 (core/hash.h) of the data section
//   bytes 56–63  uint64 FNV-1a 64 of bytes 0–55 followed by bytes 64 .. data offset
//   JSON header  {"format": "morpheus-engine-weights", "config": {model::ModelConfig,
//   engine/config.h},
//                 "tensors": [{"name", "dtype": "float32", "shape": [..], "offset", "bytes"}, ..]}
//                tensor offsets are relative to the data offset, each a multiple of 64
//   data         the tensors in the order of expected_tensors(config), row-major, each starting on
//                a 64-byte boundary, zero padding in between
// Every byte of the file is covered by one of the two checksums. The reader checks the magic, the
// version, the header bounds, both checksums, the config (ModelConfig::validate_architecture), that
// the tensors are exactly expected_tensors(config) with their shapes, and that each lies inside the
// data section without overlapping another; any failure is a DATA_LOSS Status naming the file and
// the fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/mapped_file.h"
#include "core/status.h"
#include "engine/config.h"

namespace morpheus::engine {

inline constexpr char kWeightMagic[] = "MPHSENGW";  // 8 bytes, no terminator in the file
inline constexpr uint32_t kWeightFormatVersion = 1;
inline constexpr size_t kWeightHeaderBytes = 64;
inline constexpr size_t kWeightAlignment = 64;
// The hint of every load error.
inline constexpr char kWeightFileHint[] = "re-run morpheus export";

// A float32 tensor to write; data holds the product of shape values.
struct TensorInput {
  std::string name;
  std::vector<int64_t> shape;
  const float* data = nullptr;
};

// The file image of `config` and `tensors` (exactly expected_tensors(config), any order, shapes
// equal; else INVALID_ARGUMENT). Write it with write_weight_file, or corrupt it in tests.
StatusOr<std::string> weight_file_bytes(const model::ModelConfig& config,
                                        const std::vector<TensorInput>& tensors);
// Writes that image to `path` atomically (core/file_util.h).
Status write_weight_file(const std::string& path, const model::ModelConfig& config,
                         const std::vector<TensorInput>& tensors);

// A tensor of a loaded file: a view into the mapping.
struct TensorView {
  const float* data = nullptr;
  std::vector<int64_t> shape;
};

// A verified weight file, mapped read-only until destroyed.
class WeightFile {
 public:
  static StatusOr<std::unique_ptr<WeightFile>> open(const std::string& path);
  ~WeightFile();
  WeightFile(const WeightFile&) = delete;
  WeightFile& operator=(const WeightFile&) = delete;

  const model::ModelConfig& config() const { return config_; }
  // The tensor `name` of expected_tensors(config()); throws InternalError for another name.
  const TensorView& tensor(const std::string& name) const;
  const std::string& path() const { return path_; }
  size_t size_bytes() const { return mapping_->bytes().size(); }
  // The whole file as mapped (for the directory's checksum of it: no second read).
  std::string_view bytes() const { return mapping_->bytes(); }

 private:
  WeightFile() = default;
  Status parse_header(const std::string& json_text);

  std::string path_;
  const unsigned char* base() const {
    return reinterpret_cast<const unsigned char*>(mapping_->bytes().data());
  }

  std::shared_ptr<const MappedFile> mapping_;
  size_t data_offset_ = 0;
  model::ModelConfig config_;
  std::unordered_map<std::string, TensorView> tensors_;
};

}  // namespace morpheus::engine
