// SPDX-License-Identifier: MIT
#include "pack/input.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

#if MORPHEUS_WITH_ZSTD
#include <zstd.h>
#endif

#include "core/file_util.h"
#include "core/hash.h"
#include "core/utf8.h"

namespace morpheus::pack {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

// The file's own bytes, checksummed as they are read.
class RawSource : public ByteSource {
 public:
  ~RawSource() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status open(const std::string& path) {
    path_ = path;
    MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return io_error("cannot open " + path + ": " + std::strerror(errno));
    return ok_status();
  }
  StatusOr<size_t> read(char* data, size_t capacity) override {
    while (true) {
      const ssize_t n = ::read(fd_, data, capacity);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("error reading " + path_ + ": " + std::strerror(errno));
      hash_ = fnv1a64(data, static_cast<size_t>(n), hash_);
      bytes_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  }
  std::string checksum() const override { return "fnv1a64:" + hex16(hash_); }
  uint64_t file_bytes() const override { return bytes_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t hash_ = kFnv1a64Offset;
  uint64_t bytes_ = 0;
};

// A decompressing source over the raw bytes of a file.
class FilterSource : public ByteSource {
 public:
  std::string checksum() const override { return raw_.checksum(); }
  uint64_t file_bytes() const override { return raw_.file_bytes(); }

 protected:
  // Refills the raw input when it is used up; false at the end of the file.
  StatusOr<bool> refill() {
    if (in_pos_ < in_size_) return true;
    MORPHEUS_ASSIGN_OR_RETURN(in_size_, raw_.read(in_.data(), in_.size()));
    in_pos_ = 0;
    return in_size_ > 0;
  }
  Status truncated(const std::string& kind) const {
    return data_loss(path_ + ": the " + kind + " stream ends early", "the file is truncated");
  }
  Status corrupt(const std::string& kind, const std::string& why) const {
    return data_loss(path_ + ": corrupt " + kind + " data: " + why, "the file is damaged");
  }

  std::string path_;
  RawSource raw_;
  std::vector<char> in_ = std::vector<char>(kChunkBytes);
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
};

class GzipSource : public FilterSource {
 public:
  ~GzipSource() override {
    if (ready_) inflateEnd(&zs_);
  }
  Status open(const std::string& path) {
    path_ = path;
    MORPHEUS_RETURN_IF_ERROR(raw_.open(path));
    zs_ = z_stream{};
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) return internal_error("zlib: inflateInit2 failed");
    ready_ = true;
    return ok_status();
  }
  StatusOr<size_t> read(char* data, size_t capacity) override {
    while (true) {
      MORPHEUS_ASSIGN_OR_RETURN(const bool more, refill());
      if (!more) {
        if (in_member_) return truncated("gzip");
        return size_t{0};
      }
      zs_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
      zs_.avail_in = static_cast<uInt>(in_size_ - in_pos_);
      zs_.next_out = reinterpret_cast<Bytef*>(data);
      zs_.avail_out = static_cast<uInt>(capacity);
      in_member_ = true;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      in_pos_ = in_size_ - zs_.avail_in;
      const size_t produced = capacity - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        in_member_ = false;  // another member may follow
        if (inflateReset(&zs_) != Z_OK) return internal_error("zlib: inflateReset failed");
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return corrupt("gzip", zs_.msg != nullptr ? zs_.msg : "inflate error");
      }
      if (produced > 0) return produced;
    }
  }

 private:
  z_stream zs_{};
  bool ready_ = false;
  bool in_member_ = false;
};

#if MORPHEUS_WITH_ZSTD
class ZstdSource : public FilterSource {
 public:
  ~ZstdSource() override { ZSTD_freeDStream(ds_); }
  Status open(const std::string& path) {
    path_ = path;
    MORPHEUS_RETURN_IF_ERROR(raw_.open(path));
    ds_ = ZSTD_createDStream();
    if (ds_ == nullptr) return internal_error("zstd: cannot create a stream");
    return ok_status();
  }
  StatusOr<size_t> read(char* data, size_t capacity) override {
    while (true) {
      MORPHEUS_ASSIGN_OR_RETURN(const bool more, refill());
      if (!more) {
        if (in_frame_) return truncated("zstd");
        return size_t{0};
      }
      ZSTD_inBuffer in{in_.data(), in_size_, in_pos_};
      ZSTD_outBuffer out{data, capacity, 0};
      const size_t rc = ZSTD_decompressStream(ds_, &out, &in);
      in_pos_ = in.pos;
      if (ZSTD_isError(rc) != 0) return corrupt("zstd", ZSTD_getErrorName(rc));
      in_frame_ = rc != 0;
      if (out.pos > 0) return out.pos;
    }
  }

 private:
  ZSTD_DStream* ds_ = nullptr;
  bool in_frame_ = false;
};
#endif

template <typename S>
StatusOr<std::unique_ptr<ByteSource>> open_as(const std::string& path) {
  auto source = std::make_unique<S>();
  MORPHEUS_RETURN_IF_ERROR(source->open(path));
  return std::unique_ptr<ByteSource>(std::move(source));
}

// A parser message with control and non-ASCII bytes as \xNN (the JSON parser quotes raw input).
std::string printable(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02X", u);
      out += hex;
    }
  }
  return out;
}

// SAX events of one JSONL line: the value under `key` of the top-level object.
class KeyHandler {
 public:
  using json = nlohmann::json;
  explicit KeyHandler(const std::string& key, std::string* text) : key_(key), text_(text) {}

  bool null() { return value("null"); }
  bool boolean(bool /*v*/) { return value("a boolean"); }
  bool number_integer(json::number_integer_t /*v*/) { return value("a number"); }
  bool number_unsigned(json::number_unsigned_t /*v*/) { return value("a number"); }
  bool number_float(json::number_float_t /*v*/, const json::string_t& /*s*/) {
    return value("a number");
  }
  bool string(json::string_t& v) {
    if (depth_ == 1 && matched_) *text_ = std::move(v);
    return value("a string");
  }
  bool binary(json::binary_t& /*v*/) { return value("binary"); }
  bool start_object(std::size_t /*n*/) {
    if (depth_ == 0) is_object_ = true;
    if (depth_ > 0) value("an object");
    ++depth_;
    return true;
  }
  bool key(json::string_t& k) {
    if (depth_ == 1) {
      matched_ = k == key_;
      if (keys_.size() < 5) keys_.push_back(k);
    }
    return true;
  }
  bool end_object() {
    --depth_;
    return true;
  }
  bool start_array(std::size_t /*n*/) {
    value("an array");
    ++depth_;
    return true;
  }
  bool end_array() {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last*/,
                   const nlohmann::detail::exception& e) {
    std::string what = e.what();
    const size_t close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
    error_ = "invalid JSON (at byte " + std::to_string(position) + "): " + printable(what);
    return false;
  }

  Status result(bool parsed) const {
    if (!error_.empty()) {
      return invalid_argument(error_,
                              "each line must be one JSON object (--skip-invalid skips "
                              "bad lines; --plain reads lines as text)");
    }
    if (!is_object_) {
      return invalid_argument("the line is not a JSON object",
                              "JSONL: one {\"" + key_ + "\": \"...\"} object per line");
    }
    if (!parsed) return invalid_argument("invalid JSON");
    if (found_.empty()) {
      std::string keys;
      for (const std::string& k : keys_) keys += (keys.empty() ? "" : ", ") + printable(k);
      return invalid_argument("no \"" + printable(key_) + "\" key in the JSON object" +
                                  (keys.empty() ? "" : " (keys: " + keys + ")"),
                              "name the text's key with --jsonl-key");
    }
    if (found_ != "a string") {
      return invalid_argument("\"" + printable(key_) + "\" is " + found_ + ", expected a string",
                              "the document's text must be a JSON string");
    }
    return ok_status();
  }

 private:
  bool value(const char* kind) {
    if (depth_ == 1 && matched_) {
      found_ = kind;
      matched_ = false;
    }
    return true;
  }

  const std::string& key_;
  std::string* text_;
  int depth_ = 0;
  bool matched_ = false;
  bool is_object_ = false;
  std::string found_;
  std::vector<std::string> keys_;
  std::string error_;
};

}  // namespace

bool zstd_supported() { return MORPHEUS_WITH_ZSTD != 0; }

StatusOr<std::unique_ptr<ByteSource>> open_source(const std::string& path) {
  if (ends_with(path, ".gz")) return open_as<GzipSource>(path);
  if (ends_with(path, ".zst")) {
#if MORPHEUS_WITH_ZSTD
    return open_as<ZstdSource>(path);
#else
    return failed_precondition(path + ": this build reads no .zst files (libzstd not found)",
                               "install libzstd-dev and rebuild, or decompress it first");
#endif
  }
  return open_as<RawSource>(path);
}

Status LineInput::open(const std::string& path) {
  path_ = path;
  MORPHEUS_ASSIGN_OR_RETURN(source_, open_source(path));
  buffer_.resize(kChunkBytes);
  begin_ = end_ = 0;
  eof_ = false;
  line_number_ = 0;
  status_ = ok_status();
  return ok_status();
}

bool LineInput::fill() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  StatusOr<size_t> n = source_->read(buffer_.data() + end_, buffer_.size() - end_);
  if (!n.ok()) {
    status_ = n.status();
    return false;
  }
  if (*n == 0) eof_ = true;
  end_ += *n;
  return true;
}

bool LineInput::next(std::string* line) {
  if (!source_ || !status_.ok()) return false;
  size_t scanned = begin_;
  while (true) {
    const void* nl = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (nl != nullptr) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nl) - buffer_.data());
      line->assign(buffer_.data() + begin_, at - begin_);
      begin_ = at + 1;
      ++line_number_;
      return true;
    }
    if (eof_) {
      if (begin_ == end_) return false;
      line->assign(buffer_.data() + begin_, end_ - begin_);
      begin_ = end_;
      ++line_number_;
      return true;
    }
    scanned = end_ - begin_;  // offset after the move fill() makes
    if (!fill()) return false;
  }
}

Status document_text(std::string_view line, const DocumentFormat& format, std::string* text) {
  text->clear();
  if (format.plain) {
    MORPHEUS_RETURN_IF_ERROR(utf8::validate(line));
    text->assign(line);
    return ok_status();
  }
  KeyHandler handler(format.jsonl_key, text);
  const bool parsed = nlohmann::json::sax_parse(line.begin(), line.end(), &handler);
  return handler.result(parsed);
}

}  // namespace morpheus::pack
