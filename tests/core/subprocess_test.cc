// SPDX-License-Identifier: MIT
// Tests for core/subprocess.h: exit codes and signals, redirections, environment overrides and
// clear errors for programs or files that are missing.
#include "core/subprocess.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "tests/support/test_support.h"

namespace morpheus {
namespace {

TEST(SubprocessTest, ReportsTheExitCode) {
  StatusOr<ExitStatus> ok = run_shell("exit 0");
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_TRUE(ok->ok());
  StatusOr<ExitStatus> three = run_shell("exit 3");
  ASSERT_TRUE(three.ok());
  EXPECT_FALSE(three->ok());
  EXPECT_EQ(three->code, 3);
  EXPECT_EQ(three->describe(), "exited with status 3");
}

TEST(SubprocessTest, ReportsTheKillingSignal) {
  StatusOr<ExitStatus> killed = run_shell("kill -9 $$");
  ASSERT_TRUE(killed.ok());
  EXPECT_FALSE(killed->exited);
  EXPECT_EQ(killed->signal, 9);
  EXPECT_EQ(killed->describe(), "was killed by signal 9");
}

TEST(SubprocessTest, RedirectsStdinStdoutAndStderr) {
  const std::string dir = testing::make_temp_dir("subprocess");
  const std::string in = path_join(dir, "in.txt");
  const std::string out = path_join(dir, "out.txt");
  ASSERT_TRUE(write_file_atomic(in, "b\na\n").ok());
  SpawnOptions options;
  options.stdin_path = in;
  options.stdout_path = out;
  options.stderr_to_stdout = true;
  ASSERT_TRUE(run_shell("sort; echo oops >&2", options).ok());
  EXPECT_EQ(*read_file(out), "a\nb\noops\n");
  options.append_stdout = true;
  ASSERT_TRUE(run_shell("echo more", options).ok());
  EXPECT_EQ(*read_file(out), "a\nb\noops\nmore\n");
}

TEST(SubprocessTest, OverridesTheEnvironment) {
  const std::string dir = testing::make_temp_dir("subprocess_env");
  SpawnOptions options;
  options.stdout_path = path_join(dir, "env.txt");
  options.env = {"MORPHEUS_TEST_VALUE=42", "HOME=/nowhere"};
  ASSERT_TRUE(run_shell("echo $MORPHEUS_TEST_VALUE $HOME", options).ok());
  EXPECT_EQ(*read_file(options.stdout_path), "42 /nowhere\n");
}

TEST(SubprocessTest, MissingProgramOrInputIsAClearError) {
  StatusOr<ExitStatus> missing = run_process({"/no/such/program", "x"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/no/such/program"), std::string::npos);
  SpawnOptions options;
  options.stdin_path = "/no/such/input.txt";
  StatusOr<ExitStatus> no_input = run_shell("cat", options);
  ASSERT_FALSE(no_input.ok());
  EXPECT_NE(no_input.status().message().find("/no/such/input.txt"), std::string::npos);
  EXPECT_FALSE(run_process({}).ok());
}

TEST(SubprocessTest, TickIsCalledWhileTheChildRuns) {
  int ticks = 0;
  StatusOr<ExitStatus> done = run_process({"/bin/sleep", "0.35"}, {}, [&ticks] { ++ticks; });
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->ok());
  EXPECT_GE(ticks, 2);
}

}  // namespace
}  // namespace morpheus
