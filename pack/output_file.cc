// SPDX-License-Identifier: MIT
#include "pack/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/file_util.h"

namespace morpheus::pack {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

}  // namespace

OutputFile::~OutputFile() { abort(); }

Status OutputFile::fail(const std::string& what) {
  const std::string why = std::strerror(errno);
  abort();
  return io_error(what + " " + path_ + ": " + why,
                  "is the disk full or the directory read-only? Nothing was written under the "
                  "final name");
}

Status OutputFile::open(const std::string& path) {
  abort();
  path_ = path;
  if (dir_exists(path)) return invalid_argument(path + " is a directory, expected a file path");
  temp_path_ = temp_path_for(path);
  fd_ = ::open(temp_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return fail("cannot write");
  finished_ = false;
  size_ = 0;
  buffer_.clear();
  buffer_.reserve(kBufferBytes);
  return ok_status();
}

Status OutputFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return fail("write failed on");
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
  return ok_status();
}

Status OutputFile::write(const void* data, size_t size) {
  if (fd_ < 0 || finished_) return failed_precondition("write to a closed file " + path_);
  const char* p = static_cast<const char*>(data);
  if (buffer_.size() + size > kBufferBytes) MORPHEUS_RETURN_IF_ERROR(flush());
  if (size >= kBufferBytes) {
    buffer_.assign(p, p + size);
    MORPHEUS_RETURN_IF_ERROR(flush());
  } else {
    buffer_.insert(buffer_.end(), p, p + size);
  }
  size_ += size;
  return ok_status();
}

Status OutputFile::write_at(uint64_t offset, std::string_view data) {
  if (fd_ < 0 || finished_) return failed_precondition("write to a closed file " + path_);
  MORPHEUS_RETURN_IF_ERROR(flush());
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n =
        ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return fail("write failed on");
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status OutputFile::read_at(uint64_t offset, void* data, size_t size) {
  if (fd_ < 0 || finished_) return failed_precondition("read of a closed file " + path_);
  MORPHEUS_RETURN_IF_ERROR(flush());
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return fail("read back failed on");
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status OutputFile::finish() {
  if (fd_ < 0 || finished_) return failed_precondition("finish of a closed file " + path_);
  MORPHEUS_RETURN_IF_ERROR(flush());
  if (::fsync(fd_) != 0) return fail("write failed on");
  if (::close(fd_) != 0) {
    fd_ = -1;
    return fail("write failed on");
  }
  fd_ = -1;
  finished_ = true;
  return ok_status();
}

Status OutputFile::commit() {
  if (!finished_) return failed_precondition("commit of an unfinished file " + path_);
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) return fail("cannot rename into");
  finished_ = false;
  temp_path_.clear();
  return ok_status();
}

void OutputFile::abort() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }
  finished_ = false;
  buffer_.clear();
}

}  // namespace morpheus::pack
