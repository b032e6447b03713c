// The command line end to end: exit codes, one-line errors, the --json schema.
#include "cli/cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_harness.h"

namespace schedlab {
namespace {

using test::cli;
using test::CliResult;
using test::write_temp;

TEST(Cli, RunPrintsTheDocumentedJsonSchema) {
  const std::string f =
      write_temp("cli_ok.json", R"({"machine": {"cpus": 2}, "global": {"duration": 1},
      "tasks": {"a": {"loop": 2, "run": 1000, "mark": "done"}, "b": {"instance": 2, "loop": 1, "run": 500}}})");
  const CliResult r = cli({"run", f, "--json", "--check-invariants"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key :
       {"policy", "seed", "cpus", "duration_ns", "tasks", "per_cpu", "marks", "summary"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["tasks"].size(), 3u);
  EXPECT_EQ(j["tasks"][1]["name"], "b-0");  // instances are suffixed
  EXPECT_EQ(j["tasks"][0]["cpu_time_ns"], 2'000'000);
  EXPECT_EQ(j["marks"]["done"]["count"], 2);
  EXPECT_EQ(j["duration_ns"], 2'000'000);  // all tasks exited at 2 ms
  for (const char* key : {"count", "p50", "p90", "p99", "max"})
    EXPECT_TRUE(j["tasks"][0]["wakeup_latency_ns"].contains(key));
}

TEST(Cli, BadInputIsOneLineAndExitCode2) {
  const std::string f = write_temp("cli_bad.json", R"({"tasks": {"t": {"sleep": -1}}})");
  const CliResult r = cli({"run", f});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "schedlab: " + f + ": tasks.t.sleep: negative duration -1\n");
}

TEST(Cli, UnknownPolicyAndParameterAreErrors) {
  const std::string f = write_temp("cli_p.json", R"({"tasks": {"t": {"loop": 1, "run": 1}}})");
  EXPECT_EQ(cli({"run", f, "--policy", "nope"}).code, 2);
  // A file naming no scheduler runs under the host's model; rr only when asked for.
  const CliResult r = cli({"run", f, "--policy", "rr", "--param", "slice=3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown parameter for policy 'rr' (it has: slice_ns)"), std::string::npos)
      << r.err;
  EXPECT_EQ(cli({"run", f, "--policy", "rr", "--param", "slice_ns=-3"}).code, 2);
  EXPECT_EQ(cli({"check", f, "--policy", "rr", "--param", "slice_ns=5000000"}).code, 0);
}

TEST(Cli, DeadlockNamesEachBlockedTask) {
  const std::string f = write_temp("cli_dead.json", R"({"machine": {"cpus": 1}, "tasks": {
      "a": {"loop": 1, "lock": "m", "suspend": "never"},
      "b": {"loop": 1, "lock": "m", "unlock": "m"}}})");
  const CliResult r = cli({"run", f});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a is suspended on 'never'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("b waits for mutex 'm' (held by a)"), std::string::npos) << r.err;
}

TEST(Cli, TraceAndEventsFilesAreWritten) {
  const std::string f = write_temp("cli_tr.json", R"({"machine": {"cpus": 2}, "tasks": {
      "a": {"loop": 3, "run": 1000, "sleep": 1000}}})");
  const auto dir = std::filesystem::temp_directory_path();
  const std::string trace = (dir / "cli_trace.json").string(),
                    events = (dir / "cli_events.csv").string();
  ASSERT_EQ(cli({"run", f, "--trace", trace, "--events", events}).code, 0);
  std::ifstream t(trace);
  const auto j = nlohmann::json::parse(t);
  int running = 0;
  for (const auto& e : j["traceEvents"]) running += e["name"] == "running";
  EXPECT_EQ(running, 3);  // three bursts of task a
  std::ifstream csv(events);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "time_ns,event,cpu,tid,task,other_tid,other_task,info");
}

TEST(Cli, MissingFileAndUnknownCommand) {
  EXPECT_EQ(cli({"run", "/nonexistent/x.json"}).code, 2);
  EXPECT_EQ(cli({"frobnicate"}).code, 2);
  EXPECT_EQ(cli({"policies"}).code, 0);
}

}  // namespace
}  // namespace schedlab
