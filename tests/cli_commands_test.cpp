// The subcommands' shared error handling and outputs: a workload error names the
// scenario file whichever command ran it, and sweep's JSON is written by the JSON library.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "cli_harness.h"

namespace schedlab {
namespace {

using test::cli;
using test::CliResult;
using test::write_temp;

const char* kDeadlock = R"({"machine": {"cpus": 1}, "tasks": {
    "a": {"loop": 1, "lock": "m", "suspend": "never"},
    "b": {"loop": 1, "lock": "m", "unlock": "m"}}})";

// One line, "schedlab: FILE: deadlock at ...", exit code 2 (the time depends on the
// policy, and with --jobs 2 either policy's run may fail first).
void expect_deadlock_names(const CliResult& r, const std::string& file) {
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("schedlab: " + file + ": deadlock at ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CliErrors, RunOnADeadlockingScenarioNamesTheFile) {
  const std::string f = write_temp("cli_cmd_dead_run.json", kDeadlock);
  expect_deadlock_names(cli({"run", f}), f);
}

TEST(CliErrors, SweepOnADeadlockingScenarioNamesTheFile) {
  const std::string f = write_temp("cli_cmd_dead_sweep.json", kDeadlock);
  expect_deadlock_names(cli({"sweep", f, "--policy", "rr,bfs", "--jobs", "2"}), f);
}

TEST(CliErrors, BadOptionsAreOneLineAndExitCode2) {
  const std::string f = write_temp("cli_cmd_ok.json", R"({"tasks": {"t": {"loop": 1, "run": 1}}})");
  const CliResult shard = cli({"sweep", f, "--shard", "3/2"});
  EXPECT_EQ(shard.code, 2);
  EXPECT_EQ(shard.err, "schedlab: <input>: --shard 3/2: expected K/N with 1 <= K <= N\n");
  const CliResult set = cli({"run", f, "--set", "novalue"});
  EXPECT_EQ(set.code, 2);
  EXPECT_EQ(set.err, "schedlab: <input>: --set novalue: expected name=value\n");
  EXPECT_EQ(cli({"host"}).code, 2);  // a group needs one of its commands
}

// Axis values and mark names that need escaping come out as valid JSON, and ordinary
// values keep the layout of one run per line.
TEST(CliSweep, JsonResultsEscapeNames) {
  const std::string f = write_temp("cli_cmd_esc.json", R"({"machine": {"cpus": 1},
      "global": {"duration": 1}, "tasks": {"t": {"loop": 2, "run": 1000, "mark": "done"}}})");
  const std::string out =
      (std::filesystem::temp_directory_path() / "cli_cmd_esc_out.json").string();
  const CliResult r =
      cli({"sweep", f, "--policy", "rr", "--vary", R"(/tasks/t/mark=a"b,c\d)", "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["mark"], "a\"b");
  EXPECT_EQ(j[1]["mark"], "c\\d");
  EXPECT_EQ(j[0]["marks.a\"b.count"], 2);
  EXPECT_EQ(j[1]["marks.c\\d.count"], 2);
  EXPECT_EQ(j[0]["policy"], "rr");
  EXPECT_EQ(j[0]["repeat"], 0);
  EXPECT_NE(text.str().find("\n  {\"policy\": \"rr\", \"repeat\": 0, \"seed\": "),
            std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace schedlab
