// SPDX-License-Identifier: MIT
// The CLI layer: exit codes of CommandRegistry::run (0 ok, 1 runtime error or exception, 2 usage
// error), which action and hook run, error text made printable, the global -v/-q flags, and
// Output / write_output (stdout for "-" or "", else a file that appears only on close).
#include "tools/cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/check.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "tests/support/test_support.h"

namespace morpheus::tools {
namespace {

int cli_run(CLI::App& app, CommandRegistry& registry, std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return registry.run(app, static_cast<int>(argv.size()), argv.data());
}

// Runs `args` against an app with one subcommand "run" whose action is `action`; returns the exit
// code and sets *err to what was written to stderr.
int cli_run_one(const std::function<Status()>& action, const std::vector<std::string>& args,
                std::string* err) {
  CLI::App app{"test"};
  CommandRegistry registry;
  registry.add(app.add_subcommand("run", "runs the action"), action);
  ::testing::internal::CaptureStderr();
  const int code = cli_run(app, registry, args);
  *err = ::testing::internal::GetCapturedStderr();
  return code;
}

bool cli_contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CommandRegistryTest, RunsOnlyTheParsedCommandAndExitsZero) {
  CLI::App app{"test"};
  CommandRegistry registry;
  std::vector<std::string> ran;
  registry.add(app.add_subcommand("a", "first"), [&] {
    ran.push_back("a");
    return ok_status();
  });
  registry.add(app.add_subcommand("b", "second"), [&] {
    ran.push_back("b");
    return ok_status();
  });
  EXPECT_EQ(cli_run(app, registry, {"b"}), 0);
  EXPECT_EQ(ran, (std::vector<std::string>{"b"}));
}

TEST(CommandRegistryTest, FailedStatusExitsOneWithMessageAndHint) {
  std::string err;
  const int code =
      cli_run_one([] { return invalid_argument("bad --n 0", "use --n >= 1"); }, {"run"}, &err);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(err, "error: bad --n 0\nhint: use --n >= 1\n");
  cli_run_one([] { return not_found("no such file"); }, {"run"}, &err);
  EXPECT_EQ(err, "error: no such file\n");  // no hint line without a hint
}

TEST(CommandRegistryTest, ExceptionsFromActionsExitOne) {
  std::string err;
  EXPECT_EQ(
      cli_run_one([]() -> Status { throw InternalError("index out of range"); }, {"run"}, &err), 1);
  EXPECT_TRUE(cli_contains(err, "error: internal error: index out of range")) << err;
  EXPECT_TRUE(cli_contains(err, "hint: this is a bug")) << err;
  EXPECT_EQ(cli_run_one([]() -> Status { throw std::bad_alloc(); }, {"run"}, &err), 1);
  EXPECT_TRUE(cli_contains(err, "error: out of memory")) << err;
  EXPECT_EQ(cli_run_one([]() -> Status { throw std::runtime_error("boom"); }, {"run"}, &err), 1);
  EXPECT_EQ(err, "error: boom\n");
}

TEST(CommandRegistryTest, ErrorTextIsWrittenAsOnePrintableLine) {
  // Control characters, DEL and invalid UTF-8 bytes become \xNN; valid UTF-8 (ğ) stays.
  std::string err;
  cli_run_one([] { return invalid_argument("line 1\nline\x01\t2 \xff ğ\x7f", "a\rb"); }, {"run"},
              &err);
  EXPECT_EQ(err, "error: line 1\\x0Aline\\x01\\x092 \\xFF ğ\\x7F\nhint: a\\x0Db\n");
  cli_run_one([]() -> Status { throw std::runtime_error("tab\there"); }, {"run"}, &err);
  EXPECT_EQ(err, "error: tab\\x09here\n");
}

TEST(CommandRegistryTest, UsageErrorsExitTwoWithoutRunningAnything) {
  CLI::App app{"test"};
  CommandRegistry registry;
  int n = 0, actions = 0, hooks = 0;
  auto* run = app.add_subcommand("run", "runs");
  run->add_option("--n", n, "a number")->required();
  registry.add(run, [&] {
    ++actions;
    return ok_status();
  });
  registry.set_before_action([&] { ++hooks; });
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli_run(app, registry, {"run", "--nope"}), 2);
  EXPECT_EQ(cli_run(app, registry, {"run"}), 2);              // required option missing
  EXPECT_EQ(cli_run(app, registry, {"run", "--n", "x"}), 2);  // not a number
  EXPECT_EQ(cli_run(app, registry, {}), 2);                   // no command: help on stderr
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(cli_contains(err, "runs")) << err;
  EXPECT_EQ(actions, 0);
  EXPECT_EQ(hooks, 0);
  EXPECT_EQ(cli_run(app, registry, {"run", "--n", "3"}), 0);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(actions, 1);
}

TEST(CommandRegistryTest, HelpExitsZeroOnStdout) {
  CLI::App app{"test"};
  CommandRegistry registry;
  bool ran = false;
  registry.add(app.add_subcommand("frobnicate", "frobnicates"), [&] {
    ran = true;
    return ok_status();
  });
  ::testing::internal::CaptureStdout();
  const int code = cli_run(app, registry, {"--help"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(cli_contains(out, "frobnicate")) << out;
  EXPECT_FALSE(ran);
}

TEST(CommandRegistryTest, BeforeActionHookRunsFirst) {
  CLI::App app{"test"};
  CommandRegistry registry;
  std::vector<std::string> order;
  registry.add(app.add_subcommand("run", "runs"), [&] {
    order.push_back("action");
    return ok_status();
  });
  registry.set_before_action([&] { order.push_back("hook"); });
  EXPECT_EQ(cli_run(app, registry, {"run"}), 0);
  EXPECT_EQ(order, (std::vector<std::string>{"hook", "action"}));
}

TEST(GlobalFlagsTest, VerboseAndQuietSetTheLogLevel) {
  const LogLevel saved = log_level();
  const std::vector<std::pair<std::string, LogLevel>> cases{{"-v", LogLevel::kDebug},
                                                            {"--verbose", LogLevel::kDebug},
                                                            {"-q", LogLevel::kWarning},
                                                            {"--quiet", LogLevel::kWarning}};
  for (const auto& [flag, level] : cases) {
    set_log_level(LogLevel::kInfo);
    CLI::App app{"test"};
    add_global_flags(app);
    CommandRegistry registry;
    registry.add(app.add_subcommand("run", "runs"), [] { return ok_status(); });
    EXPECT_EQ(cli_run(app, registry, {flag, "run"}), 0) << flag;
    EXPECT_EQ(log_level(), level) << flag;
  }
  set_log_level(saved);
}

// Names in `dir` (files and directories).
std::vector<std::string> cli_entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(OutputTest, FileAppearsOnlyOnCloseAndLeavesNoTemp) {
  const std::string dir = testing::make_temp_dir("cli_output");
  const std::string path = path_join(dir, "out.txt");
  ASSERT_TRUE(write_file_atomic(path, "old").ok());
  {
    Output out;
    ASSERT_TRUE(out.open(path).ok());
    ASSERT_TRUE(out.write("new ").ok());
    ASSERT_TRUE(out.write("content").ok());
    EXPECT_EQ(*read_file(path), "old");
    ASSERT_TRUE(out.close().ok());
    EXPECT_EQ(*read_file(path), "new content");
  }
  EXPECT_EQ(cli_entries(dir), (std::vector<std::string>{"out.txt"}));
}

TEST(OutputTest, WithoutCloseNothingIsLeft) {
  const std::string dir = testing::make_temp_dir("cli_output_abandoned");
  const std::string old_path = path_join(dir, "kept.txt");
  ASSERT_TRUE(write_file_atomic(old_path, "old").ok());
  {
    Output fresh;
    ASSERT_TRUE(fresh.open(path_join(dir, "new.txt")).ok());
    ASSERT_TRUE(fresh.write(std::string(100000, 'x')).ok());  // past the 64 KiB buffer
    Output replacing;
    ASSERT_TRUE(replacing.open(old_path).ok());
    ASSERT_TRUE(replacing.write("new").ok());
  }
  EXPECT_EQ(cli_entries(dir), (std::vector<std::string>{"kept.txt"}));
  EXPECT_EQ(*read_file(old_path), "old");
}

TEST(OutputTest, ManySmallAndLargeWritesArriveWhole) {
  const std::string path = path_join(testing::make_temp_dir("cli_output_large"), "big.txt");
  std::string expected;
  Output out;
  ASSERT_TRUE(out.open(path).ok());
  for (int i = 0; i < 30000; ++i) {
    const std::string piece = std::to_string(i) + ",";
    expected += piece;
    ASSERT_TRUE(out.write(piece).ok());
  }
  const std::string block(200000, 'z');
  expected += block;
  ASSERT_TRUE(out.write(block).ok());
  ASSERT_TRUE(out.close().ok());
  EXPECT_EQ(*read_file(path), expected);
}

TEST(OutputTest, DashAndEmptyPathWriteToStdout) {
  ::testing::internal::CaptureStdout();
  {
    Output dash;
    ASSERT_TRUE(dash.open("-").ok());
    ASSERT_TRUE(dash.write("one\n").ok());
    ASSERT_TRUE(dash.close().ok());
  }
  {
    Output empty;
    ASSERT_TRUE(empty.open("").ok());
    ASSERT_TRUE(empty.write("two\n").ok());
    ASSERT_TRUE(empty.close().ok());
  }
  ASSERT_TRUE(write_output("-", "three\n").ok());
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "one\ntwo\nthree\n");
  EXPECT_FALSE(file_exists("-"));
}

TEST(OutputTest, DirectoryOrMissingParentIsAnError) {
  const std::string dir = testing::make_temp_dir("cli_output_errors");
  Output on_dir;
  EXPECT_EQ(on_dir.open(dir).code(), StatusCode::kInvalidArgument);
  Output in_missing;
  const Status missing = in_missing.open(path_join(dir, "no/such/dir/out.txt"));
  EXPECT_EQ(missing.code(), StatusCode::kIoError);
  EXPECT_FALSE(missing.hint().empty());
}

TEST(OutputTest, WriteAfterCloseIsFailedPrecondition) {
  const std::string path = path_join(testing::make_temp_dir("cli_output_closed"), "o.txt");
  Output out;
  EXPECT_EQ(out.write("x").code(), StatusCode::kFailedPrecondition);  // never opened
  ASSERT_TRUE(out.open(path).ok());
  ASSERT_TRUE(out.close().ok());
  EXPECT_EQ(out.write("x").code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(out.close().ok());  // closing twice is harmless
  EXPECT_EQ(*read_file(path), "");
}

TEST(WriteOutputTest, ReplacesTheFileWithTheWholeContent) {
  const std::string dir = testing::make_temp_dir("cli_write_output");
  const std::string path = path_join(dir, "w.txt");
  ASSERT_TRUE(write_file_atomic(path, "a much longer old content").ok());
  ASSERT_TRUE(write_output(path, "short").ok());
  EXPECT_EQ(*read_file(path), "short");
  EXPECT_EQ(cli_entries(dir), (std::vector<std::string>{"w.txt"}));
  EXPECT_FALSE(write_output(path_join(dir, "missing/w.txt"), "x").ok());
}

}  // namespace
}  // namespace morpheus::tools
