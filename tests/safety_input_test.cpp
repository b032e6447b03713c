// Hostile input through the CLI (issue 18, findings 9 to 12): files that are not regular
// files or too large, JSON nested too deep, numbers read leniently, outputs that cannot
// be written, sweeps too large and task names that collide. Each is one line naming the
// file or option and the reason, exit code 2 (never a hang, a crash or exit 3).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/cli.h"
#include "cli_harness.h"
#include "json/jtree.h"
#include "scenario/scenario.h"
#include "temp_dir.h"
#include "util/error.h"

namespace schedlab {
namespace {

using test::cli;
using test::CliResult;

// Exit code 2 and exactly `line` on stderr.
void expect_input_error(const CliResult& r, const std::string& line) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "schedlab: " + line + "\n");
}

const char* kScenario = R"({"machine": {"cpus": 2}, "global": {"duration": 1},
    "tasks": {"t": {"loop": 2, "run": 1000, "cpus": [0]}}})";

// Runs the CLI in a child process, killed after `seconds`; its exit code, or -1 if it had
// to be killed (a hang).
int exit_code_within(const std::vector<std::string>& args, int seconds) {
  const pid_t child = fork();
  if (child == 0) {
    std::ostringstream out, err;
    _exit(cli_main(args, out, err));
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(HostileInput, ADeviceIsNotReadAsAScenario) {
  expect_input_error(cli({"check", "/dev/zero"}),
                     "/dev/zero: not a regular file (a character device)");
  const test::TempDir dir;
  const std::string f =
      dir.write("m.json", R"({"machine": "/dev/zero", "tasks": {"t": {"run": 1}}})");
  expect_input_error(cli({"check", f}), "/dev/zero: not a regular file (a character device)");
  expect_input_error(cli({"check", dir.path().string()}),
                     dir.path().string() + ": not a regular file (a directory)");
  expect_input_error(cli({"analyze", "/dev/zero"}),
                     "/dev/zero: not a regular file (a character device)");
}

// A file name longer than the system allows (found by the simulate fuzzer: the lookup of
// a machine file threw from std::filesystem and the CLI called it an internal error).
TEST(HostileInput, AFileNameTooLongIsAnInputError) {
  const test::TempDir dir;
  const std::string name = std::string(300, 'm') + ".json";
  const std::string f =
      dir.write("long.json", R"({"machine": ")" + name + R"(", "tasks": {"t": {"run": 1}}})");
  expect_input_error(cli({"check", f}),
                     dir.path().string() + "/" + name + ": cannot open file: File name too long");
  expect_input_error(cli({"run", f}),
                     dir.path().string() + "/" + name + ": cannot open file: File name too long");
}

TEST(HostileInput, AFifoIsRefusedAtOnce) {
  const test::TempDir dir;
  const std::string fifo = dir.file("fifo.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_input_error(cli({"check", fifo}), fifo + ": not a regular file (a FIFO)");
  EXPECT_EQ(exit_code_within({"run", fifo}, 20), 2);  // not a hang
  EXPECT_EQ(exit_code_within({"analyze", fifo}, 20), 2);
}

TEST(HostileInput, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::string deep = std::string(400'000, '[') + std::string(400'000, ']');
  try {
    parse_json(deep, "deep.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "deep.json: malformed JSON: arrays and objects nested deeper than 256 levels");
  }
  const std::string ok = std::string(255, '[') + std::string(255, ']');
  EXPECT_NO_THROW(parse_json(ok, "ok.json"));
  const test::TempDir dir;
  const std::string f = dir.write("deep.json", deep);
  expect_input_error(cli({"check", f}),
                     f + ": malformed JSON: arrays and objects nested deeper than 256 levels");
  // A --set pointer builds objects as deep as it has levels.
  std::string pointer;
  for (int i = 0; i < 300; ++i) pointer += "/a";
  const std::string s = dir.write("s.json", kScenario);
  expect_input_error(cli({"check", s, "--set", pointer + "=1"}),
                     s + ": --set " + pointer + ": more than 256 levels");
}

TEST(HostileInput, AnInputLargerThanTheLimitIsRefusedAndTheLimitCanBeRaised) {
  const test::TempDir dir;
  const std::string big = dir.write("big.json", std::string(2 << 20, ' ') + kScenario);
  expect_input_error(cli({"check", big, "--max-input", "1M"}),
                     big + ": " + std::to_string((2 << 20) + std::string(kScenario).size()) +
                         " bytes is more than the input limit of 1048576 bytes (--max-input "
                         "raises it)");
  EXPECT_EQ(cli({"check", big, "--max-input", "3M"}).code, 0);
  EXPECT_EQ(cli({"--max-input", "3M", "check", big}).code, 0);
  EXPECT_EQ(cli({"check", big}).code, 0);  // the default, 64 MiB
  expect_input_error(cli({"check", big, "--max-input", "12X"}),
                     "<input>: --max-input 12X: expected a positive byte count such as 500000, "
                     "64M or 1G");
}

TEST(HostileInput, AnArrayIndexTooLargeForAnIntegerIsNoSuchElement) {
  const test::TempDir dir;
  const std::string f = dir.write("s.json", kScenario);
  expect_input_error(cli({"check", f, "--set", "/tasks/t/cpus/99999999999999999999=1"}),
                     f + ": --set /tasks/t/cpus/99999999999999999999: no element "
                         "'99999999999999999999' in an array of 1");
}

TEST(HostileInput, NumbersAreReadStrictly) {
  const test::TempDir dir;
  const std::string f = dir.write("s.json", kScenario);
  expect_input_error(cli({"run", f, "--seed", "-1"}),
                     "--seed: '-1' is not a decimal integer in 0..9223372036854775807");
  expect_input_error(cli({"run", f, "--seed", "99999999999999999999"}),
                     "--seed: '99999999999999999999' is not a decimal integer in "
                     "0..9223372036854775807");
  expect_input_error(cli({"run", f, "--cpus", "0x10"}),
                     "--cpus: '0x10' is not a decimal integer in 1..4096");
  const CliResult octal = cli({"run", f, "--seed", "010", "--json"});  // decimal, not 8
  ASSERT_EQ(octal.code, 0) << octal.err;
  EXPECT_EQ(nlohmann::json::parse(octal.out)["seed"], 10);
  expect_input_error(cli({"sweep", f, "--shard", "1/2x"}),
                     "<input>: --shard 1/2x: expected K/N with 1 <= K <= N");
  expect_input_error(cli({"sweep", f, "--shard", " 1/2"}),
                     "<input>: --shard  1/2: expected K/N with 1 <= K <= N");
  expect_input_error(cli({"record", "--timeout", "nan", "--", "true"}),
                     "--timeout: 'nan' is not a number of seconds in (0, 1.1259e+06]");
  expect_input_error(cli({"run", f, "--duration", "inf"}),
                     "--duration: 'inf' is not a number of seconds in (0, 1.1259e+06]");
  expect_input_error(cli({"sweep", f, "--zoom", "1x..2"}),
                     "<input>: --zoom 1x..2: expected lo..hi");
}

TEST(HostileInput, TheSweepRunCountIsCappedBeforeAnythingIsExpanded) {
  const test::TempDir dir;
  const std::string f = dir.write("s.json", kScenario);
  expect_input_error(
      cli({"sweep", f, "--policy", "rr,bfs", "--vary", "/tasks/t/run=1..100000", "--vary",
           "/tasks/t/loop=1..100000"}),
      "<input>: --vary: 20000000000 runs (10000000000 points = 100000 x 100000, 2 schedulers, 1 "
      "repeats) is more than the limit of 100000");
}

struct NameCase {
  const char* tasks;
  const char* error;  // after "bad.json: "
};

TEST(HostileInput, DuplicateAndCollidingTaskNamesAreRefusedWithBothPlaces) {
  const NameCase cases[] = {
      {R"({"a": {"run": 1}, "b": {"run": 1}, "a": {"run": 2}})",
       "tasks.a: two tasks named 'a' (members 1 and 3 of tasks)"},
      {R"({"b": {"instance": 2, "run": 1}, "b-1": {"run": 1}})",
       "tasks.b-1: the name of instance 1 of tasks.b (member 1 of tasks), which has 2 instances"},
      {R"({"a": {"loop": 1, "run": 1, "fork": "b"}, "b": {"instance": 0, "run": 1},
           "b-0": {"run": 1}})",
       "tasks.b-0: the name of copy 0 that a fork of tasks.b (member 2 of tasks) makes"},
  };
  for (const NameCase& c : cases) {
    try {
      scenario_from_text(std::string(R"({"tasks": )") + c.tasks + "}", "bad.json");
      ADD_FAILURE() << "accepted " << c.tasks;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("bad.json: ") + c.error);
    }
  }
  // Names that only look alike are fine: "b-01" is no copy's name, nor is "b-1" when b has
  // one instance and is never forked.
  EXPECT_NO_THROW(scenario_from_text(
      R"({"tasks": {"b": {"instance": 2, "run": 1}, "b-01": {"run": 1}, "c": {"run": 1},
          "c-1": {"run": 1}}})",
      "ok.json"));
  // A generated task that takes an rt-app task's name.
  try {
    scenario_from_text(R"({"tasks": {"hackbench": {"run": 1}},
                           "workload": {"generator": "hackbench", "groups": 1}})",
                       "gen.json");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "gen.json: workload: makes a task named 'hackbench', as tasks.hackbench (member 1 "
              "of tasks) does")
        << e.what();
  }
}

// /dev/full: every write fails with ENOSPC. The run's own outputs and stdout report it.
TEST(WriteErrors, AFullDeviceIsAnErrorForEveryOutput) {
  const test::TempDir dir;
  const std::string f = dir.write("s.json", kScenario);
  const std::string full = ": cannot write: No space left on device";
  expect_input_error(cli({"run", f, "--events", "/dev/full"}), "/dev/full" + full);
  expect_input_error(cli({"run", f, "--trace", "/dev/full"}), "/dev/full" + full);
  expect_input_error(cli({"run", f, "--ftrace", "/dev/full"}), "/dev/full" + full);
  expect_input_error(cli({"sweep", f, "--out", "/dev/full"}), "/dev/full" + full);
  // A plot is named by its format (its .gp script is written beside it, in the folder).
  const std::string plot = dir.file("p.svg");
  ASSERT_EQ(symlink("/dev/full", plot.c_str()), 0);
  expect_input_error(cli({"sweep", f, "--plot", plot}), plot + full);
  expect_input_error(cli({"run", f, "--report", "/dev/full"}), "/dev/full" + full);
  const std::string csv = dir.file("r.csv");
  ASSERT_EQ(cli({"sweep", f, "--out", csv}).code, 0);
  expect_input_error(cli({"merge", csv, "--out", "/dev/full"}), "/dev/full" + full);
}

TEST(WriteErrors, StdoutToAFullDeviceIsAnError) {
  const test::TempDir dir;
  const std::string f = dir.write("s.json", kScenario);
  const std::string command =
      std::string(SCHEDLAB_BINARY) + " run " + f + " --json > /dev/full 2> " + dir.file("err.txt");
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_EQ(test::read_all(dir.file("err.txt")),
            "schedlab: <stdout>: cannot write: No space left on device\n");
}

// --rtapp-log: the folder is the user's, the file names schedlab's: not written through a
// symlink planted at one of them, and each write checked.
TEST(WriteErrors, RtAppLogsAreNotWrittenThroughASymlink) {
  const test::TempDir dir;
  const std::string f = dir.write("t.json", R"({"machine": {"cpus": 1}, "global": {"duration": 1},
      "tasks": {"t": {"loop": -1, "run": 100, "timer": {"ref": "tick", "period": 10000}}}})");
  const std::string logs = dir.file("logs");
  ASSERT_EQ(cli({"run", f, "--rtapp-log", logs}).code, 0);
  const std::string log = logs + "/rt-app-t-0.log";
  ASSERT_GT(test::read_all(log).size(), 0u);
  ASSERT_EQ(unlink(log.c_str()), 0);
  const std::string victim = dir.write("victim.txt", "untouched");
  ASSERT_EQ(symlink(victim.c_str(), log.c_str()), 0);
  const CliResult r = cli({"run", f, "--rtapp-log", logs});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(log + ": "), std::string::npos) << r.err;
  EXPECT_EQ(test::read_all(victim), "untouched");
}

TEST(WriteErrors, AnOutputFolderThatCannotBeMadeIsAnInputError) {
  expect_input_error(cli({"reproduce", "E1", "--quick", "--out", "/dev/null/x", "--scenarios",
                          std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios"}),
                     "/dev/null/x: --out: cannot create the output folder: Not a directory");
}

}  // namespace
}  // namespace schedlab
