// The host runner's rt-app rules (host_runner.cpp), as in the simulator: a timer with
// origin_ns counts its grid from the run's start plus origin_ns, not from the thread's
// start; a phase without scheduling keys keeps the thread's settings.
#include <gtest/gtest.h>
#include <unistd.h>

#include "host/host_runner.h"
#include "temp_dir.h"

namespace schedlab {
namespace {

// Its origin 30 ms after the run's start and a 10 ms period: the first boundary is 40 ms
// after the start, exactly (the timer event carries it), and the thread sleeps to it.
TEST(HostTimer, OriginNsCountsFromTheRunsStart) {
  const test::TempDir dir;
  HostRunOptions o;
  o.cache_dir = dir.path().string();
  o.duration_ns = 20 * kNsPerSec;  // a bound only: the run ends when its loop does
  const char* json = R"({"tasks": {
      "t": {"loop": 1, "timer": {"ref": "tick", "period": 10000, "origin_ns": 30000000},
            "mark": "after"}}})";
  const HostRunResult r = run_on_host(scenario_from_text(json, "s.json"), o);
  ASSERT_FALSE(r.timed_out);
  Time boundary = -1, after = -1;
  for (const HostEvent& e : r.record.events) {
    if (e.type == EventType::kTimer) boundary = e.value;
    if (e.type == EventType::kMark) after = e.time_ns;
  }
  EXPECT_EQ(boundary, r.start_ns + 40 * kNsPerMs);
  EXPECT_GE(after, r.start_ns + 40 * kNsPerMs);
}

// A SCHED_DEADLINE first phase, then one with no keys: the thread stays a deadline task
// (rt-app's set_thread_param() of no sched_data), so its one job, open since the first
// phase, ends at its exit: one job event. Back at SCHED_OTHER the job would be dropped
// unended (none).
TEST(HostPhases, APhaseWithoutSettingsKeepsTheDeadlinePolicy) {
  if (geteuid() != 0) GTEST_SKIP() << "SCHED_DEADLINE needs root";
  const test::TempDir dir;
  HostRunOptions o;
  o.cache_dir = dir.path().string();
  o.duration_ns = 20 * kNsPerSec;  // a bound only
  const char* json = R"({"tasks": {"t": {"loop": 1, "phases": {
      "p1": {"policy": "SCHED_DEADLINE", "dl-runtime": 5000, "dl-period": 100000, "run": 500},
      "p2": {"run": 500}}}}})";
  const HostRunResult r = run_on_host(scenario_from_text(json, "s.json"), o);
  ASSERT_FALSE(r.timed_out);
  int jobs = 0;
  for (const HostEvent& e : r.record.events) jobs += e.type == EventType::kDlJob;
  EXPECT_EQ(jobs, 1);
}

}  // namespace
}  // namespace schedlab
