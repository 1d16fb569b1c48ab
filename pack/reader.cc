// SPDX-License-Identifier: MIT
#include "pack/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "pack/format.h"

namespace morpheus::pack {
namespace {

// A file read front to back in buffered chunks, from a given offset.
class SequentialFile {
 public:
  ~SequentialFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status open(const std::string& path, uint64_t offset) {
    path_ = path;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return io_error("cannot open " + path + ": " + std::strerror(errno));
    offset_ = offset;
    return ok_status();
  }
  // Exactly `size` bytes into `data`; DATA_LOSS when the file ends first.
  Status read(void* data, size_t size) {
    char* out = static_cast<char*>(data);
    while (size > 0) {
      if (pos_ == end_) MORPHEUS_RETURN_IF_ERROR(fill());
      const size_t n = std::min(size, end_ - pos_);
      std::memcpy(out, buffer_.data() + pos_, n);
      pos_ += n;
      out += n;
      size -= n;
    }
    return ok_status();
  }
  uint64_t read_le(size_t bytes, Status* status) {
    unsigned char raw[8] = {};
    *status = read(raw, bytes);
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= uint64_t{raw[i]} << (8 * i);
    return v;
  }
  const std::string& path() const { return path_; }

 private:
  Status fill() {
    while (true) {
      const ssize_t n = ::pread(fd_, buffer_.data(), buffer_.size(), static_cast<off_t>(offset_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("error reading " + path_ + ": " + std::strerror(errno));
      if (n == 0) return data_loss(path_ + " ends early", "the pack is damaged: re-create it");
      offset_ += static_cast<uint64_t>(n);
      pos_ = 0;
      end_ = static_cast<size_t>(n);
      return ok_status();
    }
  }

  std::string path_;
  int fd_ = -1;
  uint64_t offset_ = 0;
  std::vector<char> buffer_ = std::vector<char>(size_t{1} << 20);
  size_t pos_ = 0;
  size_t end_ = 0;
};

Status bad(const std::string& path, const std::string& what) {
  return data_loss(path + ": " + what, "the pack is damaged or not of this format: re-create it");
}

// `count` tokens of `dtype` from `file` into *ids.
Status read_tokens(SequentialFile& file, DType dtype, uint64_t count, std::vector<int32_t>* ids) {
  const size_t width = dtype_bytes(dtype);
  std::vector<unsigned char> raw(static_cast<size_t>(count) * width);
  MORPHEUS_RETURN_IF_ERROR(file.read(raw.data(), raw.size()));
  ids->resize(static_cast<size_t>(count));
  for (size_t i = 0; i < ids->size(); ++i) {
    uint32_t v = 0;
    for (size_t b = 0; b < width; ++b) v |= uint32_t{raw[i * width + b]} << (8 * b);
    (*ids)[i] = static_cast<int32_t>(v);
  }
  return ok_status();
}

class MegatronReader : public PackReader {
 public:
  explicit MegatronReader(const Manifest& m) : m_(m) {}
  Status open(const std::string& prefix) {
    MORPHEUS_RETURN_IF_ERROR(bin_.open(prefix + ".bin", 0));
    MORPHEUS_RETURN_IF_ERROR(idx_.open(prefix + ".idx", 0));
    char magic[9];
    MORPHEUS_RETURN_IF_ERROR(idx_.read(magic, 9));
    if (std::string_view(magic, 9) != std::string_view(kMegatronMagic, 9)) {
      return bad(idx_.path(), "no MMIDIDX header");
    }
    Status s;
    const uint64_t version = idx_.read_le(8, &s);
    const uint64_t code = s.ok() ? idx_.read_le(1, &s) : 0;
    const uint64_t sequences = s.ok() ? idx_.read_le(8, &s) : 0;
    const uint64_t documents = s.ok() ? idx_.read_le(8, &s) : 0;
    MORPHEUS_RETURN_IF_ERROR(s);
    const uint64_t want = m_.dtype == DType::kUint16 ? kMegatronCodeUint16 : kMegatronCodeInt32;
    if (version != 1 || code != want || sequences != m_.documents ||
        documents != m_.documents + 1) {
      return bad(idx_.path(), "its header disagrees with the manifest");
    }
    return ok_status();
  }
  StatusOr<bool> next(std::vector<int32_t>* ids) override {
    if (done_ == m_.documents) return false;
    Status s;
    const uint64_t length = idx_.read_le(4, &s);
    MORPHEUS_RETURN_IF_ERROR(s);
    MORPHEUS_RETURN_IF_ERROR(read_tokens(bin_, m_.dtype, length, ids));
    ++done_;
    return true;
  }

 private:
  const Manifest m_;  // a copy: the caller's may move
  SequentialFile bin_;
  SequentialFile idx_;
  uint64_t done_ = 0;
};

class LlmcReader : public PackReader {
 public:
  explicit LlmcReader(const Manifest& m) : m_(m) {}
  Status open(const std::string& prefix) {
    MORPHEUS_RETURN_IF_ERROR(bin_.open(prefix + ".bin", 0));
    Status s;
    const uint64_t magic = bin_.read_le(4, &s);
    const uint64_t version = s.ok() ? bin_.read_le(4, &s) : 0;
    const uint64_t tokens = s.ok() ? bin_.read_le(4, &s) : 0;
    MORPHEUS_RETURN_IF_ERROR(s);
    const bool narrow = m_.dtype == DType::kUint16;
    if (magic != static_cast<uint64_t>(narrow ? kLlmcMagicUint16 : kLlmcMagicUint32) ||
        version != static_cast<uint64_t>(narrow ? kLlmcVersionUint16 : kLlmcVersionUint32) ||
        tokens != m_.tokens) {
      return bad(bin_.path(), "its header disagrees with the manifest");
    }
    std::vector<char> rest((kLlmcHeaderInts - 3) * 4);
    return bin_.read(rest.data(), rest.size());
  }
  // A document ends after its </s> (--append-eos), else before the next <s>.
  StatusOr<bool> next(std::vector<int32_t>* ids) override {
    ids->clear();
    if (left_ == 0 && !has_peek_) return false;
    const bool by_eos = m_.options.append_eos;
    while (true) {
      if (!has_peek_) {
        if (left_ == 0) break;
        Status s;
        peek_ = static_cast<int32_t>(bin_.read_le(dtype_bytes(m_.dtype), &s));
        MORPHEUS_RETURN_IF_ERROR(s);
        --left_;
        has_peek_ = true;
      }
      if (!by_eos && peek_ == m_.bos_id && !ids->empty()) break;
      ids->push_back(peek_);
      has_peek_ = false;
      if (by_eos && ids->back() == m_.eos_id) break;
    }
    return true;
  }

 private:
  const Manifest m_;  // a copy: the caller's may move
  SequentialFile bin_;
  uint64_t left_ = m_.tokens;
  int32_t peek_ = 0;
  bool has_peek_ = false;
};

// The count in the shape of an npy header of a 1-D array of `descr` items.
Status npy_count(SequentialFile& file, const std::string& descr, uint64_t* count) {
  char pre[10];
  MORPHEUS_RETURN_IF_ERROR(file.read(pre, 10));
  if (std::string_view(pre, 6) != "\x93NUMPY" || pre[6] != 1) {
    return bad(file.path(), "not an npy 1.0 file");
  }
  const size_t length = static_cast<unsigned char>(pre[8]) |
                        (static_cast<size_t>(static_cast<unsigned char>(pre[9])) << 8);
  std::string dict(length, '\0');
  MORPHEUS_RETURN_IF_ERROR(file.read(dict.data(), length));
  const size_t shape = dict.find("'shape': (");
  if (dict.find("'descr': '" + descr + "'") == std::string::npos || shape == std::string::npos ||
      dict.find("'fortran_order': False") == std::string::npos) {
    return bad(file.path(), "expected a 1-D " + descr + " array");
  }
  *count = std::strtoull(dict.c_str() + shape + 10, nullptr, 10);
  return ok_status();
}

class NpyReader : public PackReader {
 public:
  explicit NpyReader(const Manifest& m) : m_(m) {}
  Status open(const std::string& prefix) {
    MORPHEUS_RETURN_IF_ERROR(data_.open(prefix + ".npy", 0));
    MORPHEUS_RETURN_IF_ERROR(idx_.open(prefix + ".idx.npy", 0));
    uint64_t tokens = 0;
    uint64_t offsets = 0;
    MORPHEUS_RETURN_IF_ERROR(npy_count(data_, npy_descr(m_.dtype), &tokens));
    MORPHEUS_RETURN_IF_ERROR(npy_count(idx_, "<i8", &offsets));
    Status s;
    begin_ = idx_.read_le(8, &s);
    MORPHEUS_RETURN_IF_ERROR(s);
    if (tokens != m_.tokens || offsets != m_.documents + 1 || begin_ != 0) {
      return bad(data_.path(), "its shape disagrees with the manifest");
    }
    return ok_status();
  }
  StatusOr<bool> next(std::vector<int32_t>* ids) override {
    if (done_ == m_.documents) return false;
    Status s;
    const uint64_t end = idx_.read_le(8, &s);
    MORPHEUS_RETURN_IF_ERROR(s);
    if (end < begin_ || end > m_.tokens) return bad(idx_.path(), "offsets out of order");
    MORPHEUS_RETURN_IF_ERROR(read_tokens(data_, m_.dtype, end - begin_, ids));
    begin_ = end;
    ++done_;
    return true;
  }

 private:
  const Manifest m_;  // a copy: the caller's may move
  SequentialFile data_;
  SequentialFile idx_;
  uint64_t begin_ = 0;
  uint64_t done_ = 0;
};

template <typename R>
StatusOr<std::unique_ptr<PackReader>> open_as(const std::string& prefix, const Manifest& m) {
  auto reader = std::make_unique<R>(m);
  MORPHEUS_RETURN_IF_ERROR(reader->open(prefix));
  return std::unique_ptr<PackReader>(std::move(reader));
}

}  // namespace

StatusOr<std::unique_ptr<PackReader>> open_pack_reader(const std::string& prefix,
                                                       const Manifest& manifest) {
  switch (manifest.format) {
    case Format::kMegatron:
      return open_as<MegatronReader>(prefix, manifest);
    case Format::kLlmc:
      return open_as<LlmcReader>(prefix, manifest);
    case Format::kNpy:
      return open_as<NpyReader>(prefix, manifest);
  }
  return internal_error("unknown pack format");
}

}  // namespace morpheus::pack
