// SPDX-License-Identifier: MIT
#include "tools/cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <new>

#include "core/check.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "core/utf8.h"

namespace morpheus::tools {
namespace {

// `text` with control characters (NUL, newline, ...) and invalid UTF-8 bytes written as \xNN, so
// that an error quoting a bad input line stays one printable line.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const utf8::Decoded d = utf8::decode_one(text, pos);
    if (d.valid && d.code_point >= 0x20 && d.code_point != 0x7F) {
      out.append(text.substr(pos, d.length));
    } else {
      for (size_t k = 0; k < d.length; ++k) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned char>(text[pos + k]));
        out += buf;
      }
    }
    pos += d.length;
  }
  return out;
}

void print_status(const Status& status) {
  std::fprintf(stderr, "error: %s\n", printable(status.message()).c_str());
  if (!status.hint().empty()) {
    std::fprintf(stderr, "hint: %s\n", printable(status.hint()).c_str());
  }
}

}  // namespace

void CommandRegistry::add(CLI::App* command, std::function<Status()> action) {
  commands_.emplace_back(command, std::move(action));
}

int CommandRegistry::run(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  for (auto& [command, action] : commands_) {
    if (!command->parsed()) continue;
    try {
      if (before_action_) before_action_();
      const Status status = action();
      if (!status.ok()) {
        print_status(status);
        return 1;
      }
      return 0;
    } catch (const InternalError& e) {
      std::fprintf(stderr, "error: internal error: %s\nhint: this is a bug; please report it\n",
                   printable(e.what()).c_str());
      return 1;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "error: out of memory\nhint: use a smaller batch or input\n");
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "%s", app.help().c_str());
  return 2;
}

void add_global_flags(CLI::App& app) {
  app.add_flag_callback(
      "-v,--verbose", [] { set_log_level(LogLevel::kDebug); }, "Log debug messages");
  app.add_flag_callback(
      "-q,--quiet", [] { set_log_level(LogLevel::kWarning); },
      "Log warnings and errors only (no progress bars)");
}

Output::~Output() {
  if (file_ != nullptr && !is_stdout_) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

Status Output::open(const std::string& path) {
  path_ = path;
  if (path.empty() || path == "-") {
    file_ = stdout;
    is_stdout_ = true;
    return ok_status();
  }
  if (dir_exists(path)) return invalid_argument(path + " is a directory, expected a file path");
  temp_path_ = temp_path_for(path);
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (file_ == nullptr) {
    return io_error("cannot write " + path + ": " + std::strerror(errno),
                    "check that the output directory exists and is writable");
  }
  return ok_status();
}

Status Output::write(std::string_view data) {
  if (file_ == nullptr) return failed_precondition("write to a closed output");
  buffer_.append(data);
  if (buffer_.size() >= (1u << 16)) {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      return io_error("write failed on " + (is_stdout_ ? std::string("stdout") : path_) + ": " +
                      std::strerror(errno));
    }
    buffer_.clear();
  }
  return ok_status();
}

Status Output::close() {
  if (file_ == nullptr) return ok_status();
  const std::string name = is_stdout_ ? std::string("stdout") : path_;
  bool ok =
      buffer_.empty() || std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  buffer_.clear();
  ok = (std::fflush(file_) == 0) && ok;
  if (is_stdout_) {
    file_ = nullptr;
    return ok ? ok_status()
              : io_error("write failed on stdout: " + std::string(std::strerror(errno)));
  }
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok) {
    std::remove(temp_path_.c_str());
    return io_error("write failed on " + name, "is the disk full?");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    std::remove(temp_path_.c_str());
    return io_error("cannot rename into " + path_ + ": " + std::strerror(errno));
  }
  return ok_status();
}

Status write_output(const std::string& path, std::string_view content) {
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(path));
  MORPHEUS_RETURN_IF_ERROR(out.write(content));
  return out.close();
}

}  // namespace morpheus::tools
