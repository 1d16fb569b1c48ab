// SPDX-License-Identifier: MIT
// Model server client (socket pair + posix_spawn) and the server loop.
#include "tokenizer/model_client.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/subprocess.h"
namespace morpheus::tokenizer {
namespace {

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// Reads one line (without '\n') from `in`; false at EOF or error.
bool read_line(std::FILE* in, std::string* line) {
  line->clear();
  int c;
  while ((c = std::fgetc(in)) != EOF) {
    if (c == '\n') return true;
    line->push_back(static_cast<char>(c));
  }
  return !line->empty();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (true) {
    const size_t end = s.find(sep, begin);
    out.push_back(s.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return out;
    begin = end + 1;
  }
}

// "morpheus-server". segment() is const for the interface but drives the socket: one caller at a
// time (Tokenizer holds its lock around every call).
class ServerSegmenter : public Segmenter {
 public:
  ServerSegmenter(pid_t pid, int fd, std::FILE* in) : pid_(pid), fd_(fd), in_(in) {}
  ~ServerSegmenter() override {
    ::shutdown(fd_, SHUT_RDWR);
    std::fclose(in_);
    ::close(fd_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  StatusOr<Segmentation> segment(const std::vector<std::string>& runs) const override {
    MORPHEUS_RETURN_IF_ERROR(send_request(runs));
    return read_answers();
  }
  std::string name() const override { return "morpheus-server"; }

  // The server reads a whole request before it answers, so a request can be sent while this
  // process works on something else; the answers wait in the socket until receive().
  Status send(const std::vector<std::string>& runs) override { return send_request(runs); }
  StatusOr<Segmentation> receive() override { return read_answers(); }

  // Reads the READY/ERROR greeting.
  Status greeting() {
    std::string line;
    if (!read_line(in_, &line)) return ended();
    if (line == "READY") return ok_status();
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() == 4 && f[0] == "ERROR") {
      int code = static_cast<int>(StatusCode::kInternal);
      std::from_chars(f[1].data(), f[1].data() + f[1].size(), code);
      return Status(static_cast<StatusCode>(code), f[2], f[3]);
    }
    return internal_error("unexpected greeting from the model server: \"" + line + "\"");
  }

 private:
  Status send_request(const std::vector<std::string>& runs) const {
    std::string request = std::to_string(runs.size()) + "\n";
    for (const std::string& r : runs) request += r + "\n";
    MORPHEUS_RETURN_IF_ERROR(send_all(request));
    expected_ = runs.size();
    return ok_status();
  }

  StatusOr<Segmentation> read_answers() const {
    Segmentation out;
    out.reserve(expected_);
    std::string line;
    for (size_t i = 0; i < expected_; ++i) {
      if (!read_line(in_, &line)) return ended();
      std::vector<std::string> pieces;
      for (std::string& p : split(line, ' ')) {
        if (!p.empty()) pieces.push_back(std::move(p));
      }
      out.push_back(std::move(pieces));
    }
    expected_ = 0;
    return out;
  }

  Status ended() const {
    return internal_error("the model server (morpheus-model-server) ended unexpectedly",
                          "see its message above");
  }
  Status send_all(const std::string& data) const {
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ended();
      done += static_cast<size_t>(n);
    }
    return ok_status();
  }

  pid_t pid_;
  int fd_;
  std::FILE* in_;
  mutable size_t expected_ = 0;  // answers of the request in flight
};

// "morpheus-server": starts options.binary as the model server of the directory spec.path.
StatusOr<std::unique_ptr<Segmenter>> create_server(const SegmenterSpec& spec) {
  const std::string binary = spec.options.value("binary", std::string());
  const size_t cache = spec.options.value("cache", size_t{1} << 20);
  const int threads = spec.options.value("threads", 0);
  const std::string device = spec.options.value("device", std::string("cpu"));
  std::vector<std::string> argv = {
      binary, "--model", spec.path, "--cache", std::to_string(cache), "--device", device};
  if (threads > 0) argv.insert(argv.end(), {"--threads", std::to_string(threads)});
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return io_error(std::string("socketpair: ") + std::strerror(errno));
  }
  SpawnOptions options;
  options.dup2 = {{sv[1], 0}, {sv[1], 1}};
  StatusOr<pid_t> pid = spawn_process(argv, options);
  ::close(sv[1]);
  if (!pid.ok()) {
    ::close(sv[0]);
    Status error = pid.status();
    error.prepend("cannot start the model server");
    return error;
  }
  std::FILE* in = ::fdopen(::dup(sv[0]), "r");
  if (in == nullptr) {
    ::close(sv[0]);
    return io_error(std::string("fdopen: ") + std::strerror(errno));
  }
  auto server = std::make_unique<ServerSegmenter>(*pid, sv[0], in);
  MORPHEUS_RETURN_IF_ERROR(server->greeting());
  return std::unique_ptr<Segmenter>(std::move(server));
}

}  // namespace

SegmenterSpec model_server_factory(const std::string& binary, const ModelRequest& request) {
  static std::once_flag registered;
  std::call_once(registered, [] { register_segmenter("morpheus-server", create_server); });
  SegmenterSpec spec;
  spec.name = "morpheus-server";
  spec.options = {{"binary", binary},
                  {"cache", request.cache},
                  {"threads", request.threads},
                  {"device", request.device}};
  return spec;
}

Status serve_model(const std::function<StatusOr<Segmenter*>()>& load) {
  StatusOr<Segmenter*> model = load();
  if (!model.ok()) {
    const std::string line = "ERROR\t" + std::to_string(static_cast<int>(model.status().code())) +
                             "\t" + one_line(model.status().message()) + "\t" +
                             one_line(model.status().hint()) + "\n";
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
    return model.status();
  }
  std::fputs("READY\n", stdout);
  std::fflush(stdout);
  std::string line;
  std::vector<std::string> runs;
  std::string reply;
  while (read_line(stdin, &line)) {
    size_t n = 0;
    const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), n);
    if (ec != std::errc() || p != line.data() + line.size()) {
      return invalid_argument("model-server: expected a run count, got \"" + line + "\"");
    }
    runs.assign(n, std::string());
    for (size_t i = 0; i < n; ++i) {
      if (!read_line(stdin, &runs[i])) return invalid_argument("model-server: request cut short");
    }
    MORPHEUS_ASSIGN_OR_RETURN(auto pieces, (*model)->segment(runs));
    reply.clear();
    for (const std::vector<std::string>& ps : pieces) {
      for (size_t k = 0; k < ps.size(); ++k) {
        if (k > 0) reply += ' ';
        reply += ps[k];
      }
      reply += '\n';
    }
    std::fwrite(reply.data(), 1, reply.size(), stdout);
    std::fflush(stdout);
  }
  return ok_status();
}

}  // namespace morpheus::tokenizer
