// SPDX-License-Identifier: MIT
#include "pack/format.h"

#include <limits>

namespace morpheus::pack {

const char* format_name(Format format) {
  switch (format) {
    case Format::kMegatron:
      return "megatron";
    case Format::kLlmc:
      return "llmc";
    case Format::kNpy:
      return "npy";
  }
  return "?";
}

StatusOr<Format> parse_format(const std::string& name) {
  for (const Format f : {Format::kMegatron, Format::kLlmc, Format::kNpy}) {
    if (name == format_name(f)) return f;
  }
  return invalid_argument("unknown pack format \"" + name + "\"", "use megatron, llmc or npy");
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kUint16:
      return "uint16";
    case DType::kInt32:
      return "int32";
    case DType::kUint32:
      return "uint32";
  }
  return "?";
}

StatusOr<DType> parse_dtype(const std::string& name) {
  for (const DType d : {DType::kUint16, DType::kInt32, DType::kUint32}) {
    if (name == dtype_name(d)) return d;
  }
  return data_loss("unknown token type \"" + name + "\"", "expected uint16, int32 or uint32");
}

size_t dtype_bytes(DType dtype) { return dtype == DType::kUint16 ? 2 : 4; }

int64_t dtype_max(DType dtype) {
  switch (dtype) {
    case DType::kUint16:
      return std::numeric_limits<uint16_t>::max();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kUint32:
      return std::numeric_limits<uint32_t>::max();
  }
  return 0;
}

DType dtype_for(Format format, int64_t vocab_size) {
  if (vocab_size < kUint16VocabLimit) return DType::kUint16;
  return format == Format::kLlmc ? DType::kUint32 : DType::kInt32;
}

std::vector<std::string> format_files(Format format, const std::string& prefix) {
  switch (format) {
    case Format::kMegatron:
      return {prefix + ".bin", prefix + ".idx"};
    case Format::kLlmc:
      return {prefix + ".bin"};
    case Format::kNpy:
      return {prefix + ".npy", prefix + ".idx.npy"};
  }
  return {};
}

const char* npy_descr(DType dtype) {
  switch (dtype) {
    case DType::kUint16:
      return "<u2";
    case DType::kInt32:
      return "<i4";
    case DType::kUint32:
      return "<u4";
  }
  return "?";
}

std::string npy_header(const std::string& descr, uint64_t count) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(count) + ",), }";
  // magic (6) + version (2) + header length (2) + dict + spaces + '\n' = kNpyHeaderBytes.
  const size_t room = kNpyHeaderBytes - 10;
  dict.resize(room - 1, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(room & 0xFF);
  header += static_cast<char>(room >> 8);
  return header + dict;
}

}  // namespace morpheus::pack
