// The host runner's rt-app timer with origin_ns (host_runner.cpp): the grid counts from
// the run's start plus origin_ns, not from the thread's start, as in the simulator.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace schedlab
