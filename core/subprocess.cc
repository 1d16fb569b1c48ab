// SPDX-License-Identifier: MIT
#include "core/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace morpheus {
namespace {

// This process's environment with `overrides` ("NAME=value") added or replacing entries.
std::vector<std::string> merged_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : overrides) replaced |= o.substr(0, o.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void add_redirections(const SpawnOptions& options, posix_spawn_file_actions_t* actions) {
  if (!options.stdin_path.empty()) {
    posix_spawn_file_actions_addopen(actions, STDIN_FILENO, options.stdin_path.c_str(), O_RDONLY,
                                     0);
  }
  if (!options.stdout_path.empty()) {
    const int mode = O_WRONLY | O_CREAT | (options.append_stdout ? O_APPEND : O_TRUNC);
    posix_spawn_file_actions_addopen(actions, STDOUT_FILENO, options.stdout_path.c_str(), mode,
                                     0644);
  }
  if (options.stderr_to_stdout) {
    posix_spawn_file_actions_adddup2(actions, STDOUT_FILENO, STDERR_FILENO);
  } else if (!options.stderr_path.empty()) {
    posix_spawn_file_actions_addopen(actions, STDERR_FILENO, options.stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  for (const auto& [from, to] : options.dup2) posix_spawn_file_actions_adddup2(actions, from, to);
}

Status check_redirection(const std::string& path, int flags) {
  if (path.empty()) return ok_status();
  const int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    return io_error("cannot open " + path + " for a child process: " + std::strerror(errno),
                    "check that its directory exists and is writable");
  }
  ::close(fd);
  return ok_status();
}

}  // namespace

std::string ExitStatus::describe() const {
  return exited ? "exited with status " + std::to_string(code)
                : "was killed by signal " + std::to_string(signal);
}

ExitStatus exit_status_of(int wait_status) {
  ExitStatus out;
  out.exited = WIFEXITED(wait_status);
  if (out.exited) out.code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) out.signal = WTERMSIG(wait_status);
  return out;
}

bool is_executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

StatusOr<pid_t> spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) return invalid_argument("spawn_process: no program given");
  if (!is_executable(argv[0])) {
    return not_found("cannot run '" + argv[0] + "': no such executable",
                     "install it or give its full path");
  }
  // Child-side open failures are invisible to posix_spawn; check the files here first.
  MORPHEUS_RETURN_IF_ERROR(check_redirection(options.stdin_path, O_RDONLY));
  MORPHEUS_RETURN_IF_ERROR(check_redirection(options.stdout_path, O_WRONLY | O_CREAT));
  MORPHEUS_RETURN_IF_ERROR(check_redirection(options.stderr_path, O_WRONLY | O_CREAT));
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(options.env);
  std::vector<char*> c_argv = c_strings(args);
  std::vector<char*> c_env = c_strings(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  add_redirections(options, &actions);
  pid_t pid = 0;
  const int rc =
      ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return io_error("cannot start '" + argv[0] + "': " + std::strerror(rc));
  return pid;
}

StatusOr<ExitStatus> wait_process(pid_t pid, const std::function<void()>& tick) {
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, tick ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return io_error("waiting for process " + std::to_string(pid) + ": " + std::strerror(errno));
    }
    if (done == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      tick();
    }
  }
  return exit_status_of(status);
}

StatusOr<ExitStatus> run_process(const std::vector<std::string>& argv, const SpawnOptions& options,
                                 const std::function<void()>& tick) {
  MORPHEUS_ASSIGN_OR_RETURN(const pid_t pid, spawn_process(argv, options));
  return wait_process(pid, tick);
}

StatusOr<ExitStatus> run_shell(const std::string& command, const SpawnOptions& options) {
  return run_process({"/bin/sh", "-c", command}, options);
}

}  // namespace morpheus
