// Workloads that would make the simulator spin or grow without end (issue 18, finding 8):
// a loop of forks or of yields that takes no time is "makes no progress" (exit 2, as any
// zero-time loop), and a fork tree stops at the cap on tasks alive at once.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli.h"
#include "cli_harness.h"
#include "harness.h"
#include "temp_dir.h"
#include "util/error.h"

namespace schedlab {
namespace {

using test::CliResult;

CliResult run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli_main(args, out, err);
  return {code, out.str(), err.str()};
}

// The one line a failed run printed, checked to be one line.
std::string one_line(const CliResult& r) {
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  return r.err;
}

TEST(NoProgress, AForkLoopThatTakesNoTimeIsAnInputError) {
  const test::TempDir dir;
  const std::string f = dir.write("fork.json", R"({"tasks": {"b": {"loop": -1, "fork": "b"}}})");
  const CliResult r = run_cli({"run", f});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(one_line(r), "schedlab: " + f +
                             ": task b makes no progress at 0 ns: its program loops without "
                             "consuming time\n");
}

TEST(NoProgress, AYieldOnlyLoopIsAnInputErrorNotABrokenInvariant) {
  const test::TempDir dir;
  const std::string f = dir.write(
      "yield.json", R"({"machine": {"cpus": 1}, "tasks": {"y": {"loop": -1, "yield": 0}}})");
  const CliResult r = run_cli({"run", f, "--check-invariants"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(one_line(r), "schedlab: " + f +
                             ": task y makes no progress at 0 ns: its program loops without "
                             "consuming time\n");
  // Two yielders on one CPU hand it back and forth at one instant: no progress either.
  const std::string two = dir.write(
      "yield2.json",
      R"({"machine": {"cpus": 1}, "tasks": {"y": {"instance": 2, "loop": -1, "yield": 0}}})");
  const CliResult r2 = run_cli({"run", two});
  EXPECT_EQ(r2.code, 2);
  EXPECT_NE(r2.err.find("makes no progress at 0 ns"), std::string::npos) << r2.err;
}

// A yield beside a task that runs lets time pass: not an error.
TEST(NoProgress, YieldingBesideRealWorkRunsToTheEnd) {
  const test::RunOutput out = test::run_text(R"({"machine": {"cpus": 1}, "global": {"duration": 1},
      "tasks": {"y": {"loop": -1, "yield": 0}, "w": {"loop": -1, "run": 1000}}})");
  EXPECT_EQ(out.metrics.duration_ns, 1'000'000'000);
  EXPECT_GT(out.task("w").cpu_time_ns, 900'000'000);
}

// 10 us of work per fork on 64 CPUs: the tree reaches the cap (lowered here) and stops
// with the task that hit it, exit 2, instead of growing to bad_alloc (exit 3).
TEST(TaskCap, AForkTreeStopsAtTheCapWithTheTaskThatHitIt) {
  const test::TempDir dir;
  const std::string f = dir.write(
      "tree.json",
      R"({"machine": {"cpus": 64}, "tasks": {"b": {"loop": -1, "run": 10, "fork": "b"}}})");
  const CliResult r = run_cli({"run", f, "--max-tasks", "1000"});
  EXPECT_EQ(r.code, 2);
  const std::string line = one_line(r);
  EXPECT_EQ(line.rfind("schedlab: " + f + ": more than 1000 tasks alive at once at 0.0", 0), 0u)
      << line;
  EXPECT_NE(line.find(" forks b-1000 (--max-tasks raises the limit)\n"), std::string::npos) << line;
}

// The cap counts the tasks that start too: 5 instances under a cap of 4.
TEST(TaskCap, StaticInstancesCountToo) {
  ScenarioOverrides o;
  const Scenario s =
      scenario_from_text(R"({"tasks": {"t": {"instance": 5, "loop": 1, "run": 10}}})", "s.json");
  test::Recorder sink;
  SimulationOptions options;
  options.max_live_tasks = 4;
  try {
    simulate(s, sink, options);
    FAIL() << "no error";
  } catch (const WorkloadError& e) {
    EXPECT_EQ(std::string(e.what()),
              "more than 4 tasks alive at once at 0.000000 s, when task t-4 starts "
              "(--max-tasks raises the limit)");
  }
  options.max_live_tasks = 5;
  EXPECT_NO_THROW(simulate(s, sink, options));
}

}  // namespace
}  // namespace schedlab
