// SPDX-License-Identifier: MIT
// The weight file: writer (file image) and mmap reader with every check of the header comment.
#include "engine/weight_file.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/arith.h"
#include "core/check.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/mapped_file.h"

namespace morpheus::engine {
namespace {

constexpr char kFormatName[] = "morpheus-engine-weights";

bool host_is_little_endian() {
  const uint32_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

void put_u32(std::string* out, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) (*out)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_u64(std::string* out, size_t at, uint64_t v) {
  for (size_t i = 0; i < 8; ++i) (*out)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t get_le(const unsigned char* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

size_t align_up(size_t n) { return round_up(n, kWeightAlignment); }

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// Header checksum: bytes 0–55, then bytes 64 .. data offset.
uint64_t header_checksum(const unsigned char* file, size_t data_offset) {
  const uint64_t h = fnv1a64(file, 56);
  return fnv1a64(file + kWeightHeaderBytes, data_offset - kWeightHeaderBytes, h);
}

// The tensors of `tensors` in the order of `specs`, or INVALID_ARGUMENT.
StatusOr<std::vector<const TensorInput*>> order_tensors(const std::vector<TensorSpec>& specs,
                                                        const std::vector<TensorInput>& tensors) {
  std::map<std::string, const TensorInput*> by_name;
  for (const TensorInput& t : tensors) {
    if (!by_name.emplace(t.name, &t).second) {
      return invalid_argument("tensor '" + t.name + "' is given twice");
    }
  }
  std::vector<const TensorInput*> ordered;
  for (const TensorSpec& spec : specs) {
    const auto it = by_name.find(spec.name);
    if (it == by_name.end()) return invalid_argument("tensor '" + spec.name + "' is missing");
    if (it->second->shape != spec.shape || it->second->data == nullptr) {
      return invalid_argument("tensor '" + spec.name + "' has shape " +
                              shape_string(it->second->shape) + ", the config needs " +
                              shape_string(spec.shape));
    }
    ordered.push_back(it->second);
    by_name.erase(it);
  }
  if (!by_name.empty()) {
    return invalid_argument("tensor '" + by_name.begin()->first + "' is not part of the model");
  }
  return ordered;
}

Status file_error(const std::string& path, const std::string& what) {
  return data_loss(path + ": " + what, kWeightFileHint);
}

// The fixed header's offsets and sizes against the file size; *json_size and *data_offset set.
Status check_fixed_header(const std::string& path, const unsigned char* p, size_t size,
                          size_t* json_size, size_t* data_offset) {
  if (size < kWeightHeaderBytes) {
    return file_error(path, "truncated: " + std::to_string(size) +
                                " bytes, the fixed header alone is " +
                                std::to_string(kWeightHeaderBytes));
  }
  if (std::memcmp(p, kWeightMagic, 8) != 0) {
    return file_error(path, "not a Morpheus engine weight file (bad magic)");
  }
  const uint64_t version = get_le(p + 8, 4);
  if (version != kWeightFormatVersion) {
    return file_error(path, "format version " + std::to_string(version) + ", this build reads " +
                                std::to_string(kWeightFormatVersion));
  }
  const uint64_t json_offset = get_le(p + 16, 8), jsize = get_le(p + 24, 8);
  const uint64_t doff = get_le(p + 32, 8), dsize = get_le(p + 40, 8);
  if (json_offset != kWeightHeaderBytes || jsize > size || doff > size ||
      doff < kWeightHeaderBytes + jsize || doff % kWeightAlignment != 0) {
    return file_error(path, "corrupt header: JSON at " + std::to_string(json_offset) + " (" +
                                std::to_string(jsize) + " bytes), data at " + std::to_string(doff) +
                                ", file of " + std::to_string(size) + " bytes");
  }
  if (dsize != size - doff) {
    return file_error(path, "truncated or extended: the header gives " + std::to_string(dsize) +
                                " bytes of data at offset " + std::to_string(doff) +
                                ", the file holds " + std::to_string(size - doff));
  }
  *json_size = static_cast<size_t>(jsize);
  *data_offset = static_cast<size_t>(doff);
  return ok_status();
}

Status check_checksums(const std::string& path, const unsigned char* p, size_t size,
                       size_t data_offset) {
  if (header_checksum(p, data_offset) != get_le(p + 56, 8)) {
    return file_error(path, "header checksum mismatch (the file is corrupt)");
  }
  if (fnv1a64(p + data_offset, size - data_offset) != get_le(p + 48, 8)) {
    return file_error(path, "data checksum mismatch (the file is corrupt)");
  }
  return ok_status();
}

}  // namespace

StatusOr<std::string> weight_file_bytes(const model::ModelConfig& config,
                                        const std::vector<TensorInput>& tensors) {
  MORPHEUS_RETURN_IF_ERROR(config.validate_architecture());
  if (!host_is_little_endian()) {
    return Status(StatusCode::kUnimplemented,
                  "weight files are written on little-endian hosts only");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<const TensorInput*> ordered,
                            order_tensors(expected_tensors(config), tensors));
  nlohmann::json header = {{"format", kFormatName}, {"config", config_to_json(config)}};
  nlohmann::json list = nlohmann::json::array();
  size_t data_size = 0;
  for (const TensorInput* t : ordered) {
    const size_t bytes = static_cast<size_t>(numel_of(t->shape)) * sizeof(float);
    data_size = align_up(data_size);
    list.push_back({{"name", t->name},
                    {"dtype", "float32"},
                    {"shape", t->shape},
                    {"offset", data_size},
                    {"bytes", bytes}});
    data_size += bytes;
  }
  header["tensors"] = std::move(list);
  const std::string json_text = header.dump();
  const size_t data_offset = align_up(kWeightHeaderBytes + json_text.size());
  std::string out(data_offset + data_size, '\0');
  std::memcpy(&out[0], kWeightMagic, 8);
  put_u32(&out, 8, kWeightFormatVersion);
  put_u64(&out, 16, kWeightHeaderBytes);
  put_u64(&out, 24, json_text.size());
  put_u64(&out, 32, data_offset);
  put_u64(&out, 40, data_size);
  std::memcpy(&out[kWeightHeaderBytes], json_text.data(), json_text.size());
  for (size_t i = 0; i < ordered.size(); ++i) {
    const size_t offset = header["tensors"][i]["offset"].get<size_t>();
    const size_t bytes = header["tensors"][i]["bytes"].get<size_t>();
    std::memcpy(&out[data_offset + offset], ordered[i]->data, bytes);
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(out.data());
  put_u64(&out, 48, fnv1a64(bytes + data_offset, data_size));
  put_u64(&out, 56, header_checksum(bytes, data_offset));
  return out;
}

Status write_weight_file(const std::string& path, const model::ModelConfig& config,
                         const std::vector<TensorInput>& tensors) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string bytes, weight_file_bytes(config, tensors));
  return write_file_atomic(path, bytes);
}

StatusOr<std::unique_ptr<WeightFile>> WeightFile::open(const std::string& path) {
  if (!host_is_little_endian()) {
    return Status(StatusCode::kUnimplemented, "weight files are read on little-endian hosts only");
  }
  StatusOr<std::shared_ptr<const MappedFile>> mapped = MappedFile::open(path);
  if (!mapped.ok()) {
    return Status(mapped.status().code(), mapped.status().message(), kWeightFileHint);
  }
  const std::string_view bytes = (*mapped)->bytes();
  const auto* base = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t json_size = 0, data_offset = 0;
  MORPHEUS_RETURN_IF_ERROR(check_fixed_header(path, base, bytes.size(), &json_size, &data_offset));
  MORPHEUS_RETURN_IF_ERROR(check_checksums(path, base, bytes.size(), data_offset));
  std::unique_ptr<WeightFile> file(new WeightFile());
  file->path_ = path;
  file->data_offset_ = data_offset;
  file->mapping_ = std::move(*mapped);
  MORPHEUS_RETURN_IF_ERROR(file->parse_header(
      std::string(reinterpret_cast<const char*>(base + kWeightHeaderBytes), json_size)));
  return file;
}

WeightFile::~WeightFile() = default;

Status WeightFile::parse_header(const std::string& json_text) {
  const nlohmann::json header = nlohmann::json::parse(json_text, nullptr, false);
  const bool known = header.is_object() && header.contains("format") &&
                     header["format"] == kFormatName && header.contains("config") &&
                     header.contains("tensors") && header["tensors"].is_array();
  if (!known) {
    return file_error(path_, "the JSON header is not a " + std::string(kFormatName) + " header");
  }
  StatusOr<model::ModelConfig> config = config_from_json(header["config"], "config");
  if (!config.ok()) return file_error(path_, config.status().message());
  config_ = *config;
  std::map<std::string, std::vector<int64_t>> expected;
  for (TensorSpec& spec : expected_tensors(config_)) expected.emplace(spec.name, spec.shape);
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end) relative to the data offset
  const size_t data_size = size_bytes() - data_offset_;
  for (const nlohmann::json& t : header["tensors"]) {
    std::string name;
    TensorView view;
    size_t offset = 0, bytes = 0;
    try {
      name = t.at("name").get<std::string>();
      view.shape = t.at("shape").get<std::vector<int64_t>>();
      offset = t.at("offset").get<size_t>();
      bytes = t.at("bytes").get<size_t>();
      if (t.at("dtype").get<std::string>() != "float32") {
        return file_error(path_, "tensor '" + name + "' is not float32");
      }
    } catch (const nlohmann::json::exception& e) {
      return file_error(path_, std::string("bad tensor entry in the JSON header: ") + e.what());
    }
    const auto it = expected.find(name);
    if (it == expected.end()) {
      return file_error(path_, tensors_.count(name) != 0
                                   ? "tensor '" + name + "' is listed twice"
                                   : "unexpected tensor '" + name + "' (not part of the model)");
    }
    if (view.shape != it->second) {
      return file_error(path_, "tensor '" + name + "' has shape " + shape_string(view.shape) +
                                   ", the config needs " + shape_string(it->second));
    }
    const size_t need = static_cast<size_t>(numel_of(view.shape)) * sizeof(float);
    if (bytes != need || offset % kWeightAlignment != 0 || offset > data_size ||
        bytes > data_size - offset) {
      return file_error(path_, "tensor '" + name + "' (" + std::to_string(bytes) +
                                   " bytes at data offset " + std::to_string(offset) +
                                   ") lies outside the data section of " +
                                   std::to_string(data_size) + " bytes or is misaligned");
    }
    view.data = reinterpret_cast<const float*>(base() + data_offset_ + offset);
    ranges.emplace_back(offset, offset + bytes);
    tensors_.emplace(name, std::move(view));
    expected.erase(it);
  }
  if (!expected.empty()) {
    return file_error(path_, "tensor '" + expected.begin()->first + "' is missing");
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) return file_error(path_, "tensors overlap");
  }
  return ok_status();
}

const TensorView& WeightFile::tensor(const std::string& name) const {
  const auto it = tensors_.find(name);
  MORPHEUS_CHECK(it != tensors_.end(), "no tensor '", name, "' in ", path_);
  return it->second;
}

}  // namespace morpheus::engine
