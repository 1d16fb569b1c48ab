// SPDX-License-Identifier: MIT
#include "pack/writer.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

#include "pack/output_file.h"

namespace morpheus::pack {
namespace {

// `value` as `bytes` little-endian bytes (zeros past the eighth).
void append_le(uint64_t value, size_t bytes, std::string* out) {
  for (size_t i = 0; i < bytes; ++i) {
    out->push_back(i < 8 ? static_cast<char>((value >> (8 * i)) & 0xFF) : '\0');
  }
}

std::string le(uint64_t value, size_t bytes) {
  std::string out;
  append_le(value, bytes, &out);
  return out;
}

// `count` ids as little-endian tokens of `dtype` in *out (replacing its content).
Status pack_tokens(const int32_t* ids, size_t count, DType dtype, std::string* out) {
  const size_t width = dtype_bytes(dtype);
  const int64_t max = dtype_max(dtype);
  out->resize(count * width);
  auto* p = reinterpret_cast<unsigned char*>(out->data());
  for (size_t i = 0; i < count; ++i) {
    const int64_t id = ids[i];
    if (id < 0 || id > max) {
      return internal_error("token id " + std::to_string(id) + " does not fit " + dtype_name(dtype),
                            "the token type is chosen from the vocabulary size: report this");
    }
    const auto v = static_cast<uint32_t>(id);
    for (size_t b = 0; b < width; ++b) p[i * width + b] = static_cast<unsigned char>(v >> (8 * b));
  }
  return ok_status();
}

class MegatronWriter : public TokenWriter {
 public:
  explicit MegatronWriter(DType dtype) : dtype_(dtype) {}

  Status open(const std::string& prefix) {
    MORPHEUS_RETURN_IF_ERROR(bin_.open(prefix + ".bin"));
    MORPHEUS_RETURN_IF_ERROR(idx_.open(prefix + ".idx"));
    std::string header(kMegatronMagic, 9);
    append_le(1, 8, &header);
    header.push_back(
        static_cast<char>(dtype_ == DType::kUint16 ? kMegatronCodeUint16 : kMegatronCodeInt32));
    append_le(0, 16, &header);  // the two counts, written at finish
    return idx_.write(header);
  }

  Status add(const int32_t* ids, size_t count) override {
    if (count > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return invalid_argument("a document of " + std::to_string(count) + " tokens",
                              "Megatron's sequence lengths are int32");
    }
    MORPHEUS_RETURN_IF_ERROR(pack_tokens(ids, count, dtype_, &buffer_));
    MORPHEUS_RETURN_IF_ERROR(bin_.write(buffer_));
    MORPHEUS_RETURN_IF_ERROR(idx_.write(le(count, 4)));
    ++documents_;
    tokens_ += count;
    return ok_status();
  }

  Status finish() override {
    const uint64_t n = documents_;
    MORPHEUS_RETURN_IF_ERROR(idx_.write_at(18, le(n, 8) + le(n + 1, 8)));
    // Pointers: the running byte offset of each sequence, from the lengths written above.
    constexpr size_t kChunk = 1 << 16;
    std::vector<uint32_t> lengths;
    uint64_t pointer = 0;
    for (uint64_t begin = 0; begin < n; begin += kChunk) {
      const size_t m = static_cast<size_t>(std::min<uint64_t>(kChunk, n - begin));
      std::string raw(m * 4, '\0');
      MORPHEUS_RETURN_IF_ERROR(
          idx_.read_at(kMegatronIdxHeaderBytes + begin * 4, raw.data(), raw.size()));
      std::string out;
      out.reserve(m * 8);
      for (size_t i = 0; i < m; ++i) {
        append_le(pointer, 8, &out);
        uint64_t length = 0;
        for (size_t b = 0; b < 4; ++b) {
          length |= uint64_t{static_cast<unsigned char>(raw[i * 4 + b])} << (8 * b);
        }
        pointer += length * dtype_bytes(dtype_);
      }
      MORPHEUS_RETURN_IF_ERROR(idx_.write(out));
    }
    std::string indices;
    for (uint64_t d = 0; d <= n; ++d) {
      append_le(d, 8, &indices);
      if (indices.size() >= (size_t{1} << 20) || d == n) {
        MORPHEUS_RETURN_IF_ERROR(idx_.write(indices));
        indices.clear();
      }
    }
    files_ = {{bin_.path(), bin_.size()}, {idx_.path(), idx_.size()}};
    MORPHEUS_RETURN_IF_ERROR(bin_.finish());
    return idx_.finish();
  }

  Status commit() override {
    MORPHEUS_RETURN_IF_ERROR(bin_.commit());
    return idx_.commit();
  }

  std::vector<std::pair<std::string, uint64_t>> files() const override { return files_; }

 private:
  DType dtype_;
  OutputFile bin_;
  OutputFile idx_;
  std::string buffer_;
  std::vector<std::pair<std::string, uint64_t>> files_;
};

class LlmcWriter : public TokenWriter {
 public:
  explicit LlmcWriter(DType dtype) : dtype_(dtype) {}

  Status open(const std::string& prefix) {
    MORPHEUS_RETURN_IF_ERROR(bin_.open(prefix + ".bin"));
    return bin_.write(header(0));
  }

  Status add(const int32_t* ids, size_t count) override {
    MORPHEUS_RETURN_IF_ERROR(pack_tokens(ids, count, dtype_, &buffer_));
    MORPHEUS_RETURN_IF_ERROR(bin_.write(buffer_));
    ++documents_;
    tokens_ += count;
    return ok_status();
  }

  Status finish() override {
    if (tokens_ > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return invalid_argument(std::to_string(tokens_) +
                                  " tokens do not fit one llm.c file (its header counts "
                                  "them in an int32)",
                              "pack the corpus in shards (--shard i/n), each under 2^31 tokens");
    }
    MORPHEUS_RETURN_IF_ERROR(bin_.write_at(0, header(tokens_)));
    files_ = {{bin_.path(), bin_.size()}};
    return bin_.finish();
  }

  Status commit() override { return bin_.commit(); }

  std::vector<std::pair<std::string, uint64_t>> files() const override { return files_; }

 private:
  std::string header(uint64_t tokens) const {
    const bool narrow = dtype_ == DType::kUint16;
    std::string h;
    append_le(static_cast<uint32_t>(narrow ? kLlmcMagicUint16 : kLlmcMagicUint32), 4, &h);
    append_le(static_cast<uint32_t>(narrow ? kLlmcVersionUint16 : kLlmcVersionUint32), 4, &h);
    append_le(tokens, 4, &h);
    h.resize(kLlmcHeaderInts * 4, '\0');
    return h;
  }

  DType dtype_;
  OutputFile bin_;
  std::string buffer_;
  std::vector<std::pair<std::string, uint64_t>> files_;
};

class NpyWriter : public TokenWriter {
 public:
  explicit NpyWriter(DType dtype) : dtype_(dtype) {}

  Status open(const std::string& prefix) {
    MORPHEUS_RETURN_IF_ERROR(data_.open(prefix + ".npy"));
    MORPHEUS_RETURN_IF_ERROR(idx_.open(prefix + ".idx.npy"));
    MORPHEUS_RETURN_IF_ERROR(data_.write(npy_header(npy_descr(dtype_), 0)));
    return idx_.write(npy_header("<i8", 0) + le(0, 8));
  }

  Status add(const int32_t* ids, size_t count) override {
    MORPHEUS_RETURN_IF_ERROR(pack_tokens(ids, count, dtype_, &buffer_));
    MORPHEUS_RETURN_IF_ERROR(data_.write(buffer_));
    ++documents_;
    tokens_ += count;
    return idx_.write(le(tokens_, 8));
  }

  Status finish() override {
    MORPHEUS_RETURN_IF_ERROR(data_.write_at(0, npy_header(npy_descr(dtype_), tokens_)));
    MORPHEUS_RETURN_IF_ERROR(idx_.write_at(0, npy_header("<i8", documents_ + 1)));
    files_ = {{data_.path(), data_.size()}, {idx_.path(), idx_.size()}};
    MORPHEUS_RETURN_IF_ERROR(data_.finish());
    return idx_.finish();
  }

  Status commit() override {
    MORPHEUS_RETURN_IF_ERROR(data_.commit());
    return idx_.commit();
  }

  std::vector<std::pair<std::string, uint64_t>> files() const override { return files_; }

 private:
  DType dtype_;
  OutputFile data_;
  OutputFile idx_;
  std::string buffer_;
  std::vector<std::pair<std::string, uint64_t>> files_;
};

template <typename W>
StatusOr<std::unique_ptr<TokenWriter>> open_writer(DType dtype, const std::string& prefix) {
  auto writer = std::make_unique<W>(dtype);
  MORPHEUS_RETURN_IF_ERROR(writer->open(prefix));
  return std::unique_ptr<TokenWriter>(std::move(writer));
}

}  // namespace

StatusOr<std::unique_ptr<TokenWriter>> make_writer(Format format, DType dtype,
                                                   const std::string& prefix) {
  if (format == Format::kLlmc && dtype == DType::kInt32) {
    return invalid_argument("llm.c files hold uint16 or uint32 tokens, not int32");
  }
  if (format != Format::kLlmc && dtype == DType::kUint32) {
    return invalid_argument(std::string(format_name(format)) +
                            " packs hold uint16 or int32 tokens");
  }
  switch (format) {
    case Format::kMegatron:
      return open_writer<MegatronWriter>(dtype, prefix);
    case Format::kLlmc:
      return open_writer<LlmcWriter>(dtype, prefix);
    case Format::kNpy:
      return open_writer<NpyWriter>(dtype, prefix);
  }
  return internal_error("unknown pack format");
}

}  // namespace morpheus::pack
