// SPDX-License-Identifier: MIT
#include "core/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>
#include <vector>

#include "core/utf8.h"

namespace morpheus {
namespace {

std::string errno_text() { return std::strerror(errno); }

std::string temp_name_for(const std::string& path) {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(getpid()));
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), ".tmp.%d.%08x", static_cast<int>(getpid()),
                static_cast<unsigned>(rng() & 0xFFFFFFFFu));
  return path + suffix;
}

std::string parent_dir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string path_join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

Status check_readable_file(const std::string& path) {
  if (path == "-") return ok_status();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return not_found("cannot open " + path + ": " + errno_text(), "check the path");
  }
  if (S_ISDIR(st.st_mode)) {
    return invalid_argument(path + " is a directory, expected a file");
  }
  if (::access(path.c_str(), R_OK) != 0) {
    return io_error("cannot read " + path + ": " + errno_text(), "check the file permissions");
  }
  return ok_status();
}

StatusOr<std::string> read_file(const std::string& path) {
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return io_error("cannot open " + path + ": " + errno_text());
  std::string content;
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) content.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  if (f != stdin) std::fclose(f);
  if (failed) return io_error("error reading " + path);
  return content;
}

Status make_dirs(const std::string& path) {
  if (path.empty() || dir_exists(path)) return ok_status();
  const std::string parent = parent_dir(path);
  if (parent != path && parent != "." && parent != "/") {
    MORPHEUS_RETURN_IF_ERROR(make_dirs(parent));
  }
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return io_error("cannot create directory " + path + ": " + errno_text(),
                    "check that the parent directory is writable");
  }
  if (!dir_exists(path)) return invalid_argument(path + " exists and is not a directory");
  return ok_status();
}

AtomicFileWriter::~AtomicFileWriter() { abort(); }

namespace {

// The pid of a temp name <target>.tmp.<pid>, <target>.tmp-<pid> or <target>.tmp.<pid>.<8 hex>
// (the last ".tmp" of `name`), with <target> non-empty and equal to `target` unless that is
// empty; 0 when `name` is not such a name.
long long temp_name_pid(const std::string& name, const std::string& target) {
  const size_t at = name.rfind(".tmp");
  if (at == std::string::npos || at == 0) return 0;
  if (!target.empty() && name.compare(0, at, target) != 0) return 0;
  if (!target.empty() && at != target.size()) return 0;
  size_t end = at + 4;
  if (end >= name.size() || (name[end] != '.' && name[end] != '-')) return 0;
  ++end;
  const size_t digits = end;
  long long pid = 0;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9' && pid < (1LL << 40)) {
    pid = pid * 10 + (name[end] - '0');
    ++end;
  }
  if (end == digits) return 0;
  if (end < name.size()) {  // only the 8 hex digits of temp_name_for may follow
    const std::string tail = name.substr(end);
    if (tail.size() != 9 || tail[0] != '.' ||
        tail.find_first_not_of("0123456789abcdef", 1) != std::string::npos) {
      return 0;
    }
  }
  return pid;
}

// Removes the entries of `dir` that are temp names (of `target`, or of anything when `target`
// is empty) of processes that no longer run.
size_t remove_dead_temps(const std::string& dir_path, const std::string& target) {
  DIR* dir = ::opendir(dir_path.c_str());
  if (dir == nullptr) return 0;
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    const long long pid = temp_name_pid(name, target);
    if (pid <= 0 || pid == static_cast<long long>(::getpid())) continue;
    // ESRCH: no such process. EPERM means it runs under another user: keep it.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    stale.push_back(path_join(dir_path, name));
  }
  ::closedir(dir);
  size_t removed = 0;
  for (const std::string& victim : stale) {
    std::error_code ec;
    if (std::filesystem::remove_all(victim, ec) > 0 && !ec) ++removed;
  }
  return removed;
}

}  // namespace

size_t remove_stale_temps(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty()) return 0;
  return remove_dead_temps(parent_dir(path), name);
}

size_t remove_stale_temps_in(const std::string& dir) { return remove_dead_temps(dir, ""); }

std::string temp_path_for(const std::string& target) {
  remove_stale_temps(target);
  return target + ".tmp." + std::to_string(getpid());
}

Status AtomicFileWriter::open(const std::string& path) {
  abort();
  if (dir_exists(path)) return invalid_argument(path + " is a directory, expected a file path");
  remove_stale_temps(path);
  path_ = path;
  temp_path_ = temp_name_for(path);
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (file_ == nullptr) {
    return io_error("cannot write " + path + ": " + errno_text(),
                    "check that the output directory exists and is writable");
  }
  return ok_status();
}

Status AtomicFileWriter::write(std::string_view data) {
  if (file_ == nullptr) return failed_precondition("write to a closed file " + path_);
  if (!data.empty() && std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
    return io_error("write failed on " + path_ + ": " + errno_text(), "is the disk full?");
  }
  return ok_status();
}

Status AtomicFileWriter::commit() {
  if (file_ == nullptr) return failed_precondition("commit of a closed file " + path_);
  bool ok = std::fflush(file_) == 0;
  ok = ok && ::fsync(fileno(file_)) == 0;
  const std::string err = ok ? "" : errno_text();
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok) {
    std::remove(temp_path_.c_str());
    return io_error("write failed on " + path_ + ": " + err, "is the disk full?");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const std::string why = errno_text();
    std::remove(temp_path_.c_str());
    return io_error("cannot rename into " + path_ + ": " + why);
  }
  return ok_status();
}

void AtomicFileWriter::abort() {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
    std::remove(temp_path_.c_str());
  }
}

Status write_file_atomic(const std::string& path, std::string_view content) {
  AtomicFileWriter writer;
  MORPHEUS_RETURN_IF_ERROR(writer.open(path));
  MORPHEUS_RETURN_IF_ERROR(writer.write(content));
  return writer.commit();
}

LineReader::~LineReader() {
  if (owns_ && file_ != nullptr) std::fclose(file_);
  std::free(buffer_);
}

Status LineReader::open(const std::string& path, bool validate_utf8) {
  path_ = path;
  validate_ = validate_utf8;
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  if (path == "-") {
    file_ = stdin;
    owns_ = false;
  } else {
    file_ = std::fopen(path.c_str(), "rb");
    owns_ = true;
    if (file_ == nullptr) return io_error("cannot open " + path + ": " + errno_text());
  }
  return ok_status();
}

bool LineReader::next(std::string* line) {
  if (file_ == nullptr || !status_.ok()) return false;
  line->clear();
  // POSIX getline: one buffered scan per line (NUL bytes included), not one call per byte.
  const ssize_t got = ::getline(&buffer_, &capacity_, file_);
  if (got < 0) {
    if (std::ferror(file_) != 0) {
      status_ = io_error("error reading " + path_ + " after line " + std::to_string(line_number_));
    }
    return false;
  }
  size_t length = static_cast<size_t>(got);
  last_had_newline_ = length > 0 && buffer_[length - 1] == '\n';
  if (last_had_newline_) --length;
  line->assign(buffer_, length);
  ++line_number_;
  if (validate_) {
    const size_t bad = utf8::find_invalid(*line);
    if (bad != std::string::npos) {
      status_ = invalid_argument(path_ + ": line " + std::to_string(line_number_) +
                                     ": invalid UTF-8 at byte " + std::to_string(bad) + " (" +
                                     utf8::describe_bytes(*line, bad) + ")",
                                 "convert the file to UTF-8 (e.g. iconv -t UTF-8)");
      return false;
    }
  }
  return true;
}

}  // namespace morpheus
