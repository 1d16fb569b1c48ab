// SPDX-License-Identifier: MIT
// The one way this project starts child processes: posix_spawn with optional redirections and
// environment overrides, a wait that can report progress, and /bin/sh for command templates.
//   SpawnOptions to_file;
//   to_file.stdout_path = "counts.txt";
//   StatusOr<ExitStatus> done = run_shell("sort words.txt | uniq -c", to_file);
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace morpheus {

struct SpawnOptions {
  std::string stdin_path;         // empty: inherited
  std::string stdout_path;        // empty: inherited
  bool append_stdout = false;     // append to stdout_path instead of truncating it
  std::string stderr_path;        // empty: inherited (appended to when given)
  bool stderr_to_stdout = false;  // stderr goes where stdout goes (after its redirection)
  // (from, to) descriptor pairs dup2'ed in the child after the redirections above.
  std::vector<std::pair<int, int>> dup2;
  // "NAME=value" entries added to (or replacing) this process's environment.
  std::vector<std::string> env;
};

// How a child ended.
struct ExitStatus {
  bool exited = false;  // exited normally (else killed by `signal`)
  int code = -1;        // exit code when exited
  int signal = 0;       // terminating signal when killed
  bool ok() const { return exited && code == 0; }
  // "exited with status 3" / "was killed by signal 9".
  std::string describe() const;
};

// Decodes a waitpid() status.
ExitStatus exit_status_of(int wait_status);

bool is_executable(const std::string& path);

// Starts argv[0] (a path; not searched in PATH) with argv. NOT_FOUND when it is not executable,
// IO_ERROR when it cannot be started or a redirection cannot be opened.
StatusOr<pid_t> spawn_process(const std::vector<std::string>& argv,
                              const SpawnOptions& options = {});
// Waits for `pid`. With `tick`, polls every 100 ms and calls it (e.g. to move a progress bar).
StatusOr<ExitStatus> wait_process(pid_t pid, const std::function<void()>& tick = {});
// spawn_process + wait_process.
StatusOr<ExitStatus> run_process(const std::vector<std::string>& argv,
                                 const SpawnOptions& options = {},
                                 const std::function<void()>& tick = {});
// Runs `command` with /bin/sh -c.
StatusOr<ExitStatus> run_shell(const std::string& command, const SpawnOptions& options = {});

}  // namespace morpheus
