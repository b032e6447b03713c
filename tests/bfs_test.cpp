// BFS (0.318 source): shares, deadline order, the expired-deadline rule, idle CPUs and
// IDLEPRIO, against schedules computed by hand. On one CPU rr_interval is 6 ms and the
// deadline offsets are prio_ratios x 6 ms in jiffies: nice -5 24, nice 0 39, nice 5 63,
// nice 10 101.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

ScenarioOverrides bfs() {
  ScenarioOverrides o;
  o.policy = "bfs";
  return o;
}

Lines head(const RunOutput& r, size_t n) {
  Lines all = r.switch_ins();
  if (all.size() > n) all.resize(n);
  return all;
}

// Nice 0 (A) and nice 10 (B), 6 ms slices. A slice is renewed with deadline now + 39, B's
// with now + 101, so after each B slice A runs until its renewed deadline passes B's:
// 11 slices (66 ms) against 1 (6 ms). From t=0: A 0-66, B 66-72, then 72 ms cycles; in
// 10 s that is A 66 + 137 x 66 + 64 = 9172 ms and B 6 + 137 x 6 = 828 ms.
TEST(Bfs, NiceTenGetsOneSlicePerDeadlineGap) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 10},
      "tasks": {"A": {"loop": -1, "run": 100000}, "B": {"loop": -1, "run": 100000, "priority": 10}}})",
                               bfs());
  EXPECT_EQ(head(r, 4), (Lines{"0 0 A", "66 0 B", "72 0 A", "138 0 B"}));
  EXPECT_EQ(r.task("A").cpu_time_ns, 9'172'000'000);
  EXPECT_EQ(r.task("B").cpu_time_ns, 828'000'000);
}

// Deadlines at t=0: C (nice -5) 24, A (nice 0) 39, B (nice 5) 63. C runs while its renewed
// deadline (now + 24) stays earliest: 0-18; A 18-24 (renewed to 63); C 24-42 (deadlines
// 42, 54, 60... until 66); then A and B tie at 63 and B, queued since t=0, is first.
TEST(Bfs, TheEarliestDeadlineRuns) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"A": {"loop": -1, "run": 100000}, "B": {"loop": -1, "run": 100000, "priority": 5},
                "C": {"loop": -1, "run": 100000, "priority": -5}}})",
                               bfs());
  EXPECT_EQ(head(r, 4), (Lines{"0 0 C", "18 0 A", "24 0 C", "42 0 B"}));
}

// A (nice 5, deadline 63) and B (nice 0, deadline 39) sleep at once, wake at 100 and
// 150 ms behind an RT task that runs 20-220 ms. When it ends both deadlines are long
// past: the first expired task in queue order, A, is taken, not the earlier B.
TEST(Bfs, AnExpiredDeadlineIsTakenFirstInQueueOrder) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"A": {"loop": 1, "priority": 5, "sleep": 100000, "run": 5000},
                "B": {"loop": 1, "sleep": 150000, "run": 5000},
                "R": {"loop": 1, "delay": 20000, "policy": "SCHED_FIFO", "priority": 10,
                      "run": 200000}}})",
                               bfs());
  const Lines all = r.switch_ins();
  const Lines tail(all.end() - 3, all.end());
  EXPECT_EQ(tail, (Lines{"220 0 A", "225 0 B", "230 0 idle"}));
}

// Two CPUs: rr_interval 6 ms x 3/2 = 9 ms, nice-0 deadline offset 58 jiffies. H is pinned
// to CPU 0; S starts pinned there too, so it first runs when H's slice ends at 9 ms (its
// deadline 58 beats H's renewed 67), runs 2 ms, becomes free, and sleeps 10 ms with CPU 0
// as its last CPU. At 21 ms CPU 0 is busy with H and CPU 1 idle: BFS wakes CPU 1, which
// takes S at once.
TEST(Bfs, AWokenTaskRunsOnAnIdleCpuAtOnce) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"H": {"cpus": [0], "loop": -1, "run": 100000},
                "S": {"loop": 1, "phases": {"a": {"cpus": [0], "run": 2000},
                                            "b": {"sleep": 10000, "run": 3000}}}}})",
                               bfs());
  EXPECT_EQ(head(r, 5), (Lines{"0 0 H", "9 0 S", "11 0 H", "21 1 S", "24 1 idle"}));
}

TEST(Bfs, IdleprioRunsOnlyWhenNothingElseCan) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"I": {"loop": 1, "policy": "SCHED_IDLE", "run": 10000},
                "H": {"loop": 1, "run": 50000}}})",
                               bfs());
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 H", "50 0 I", "60 0 idle"}));
}

}  // namespace
}  // namespace schedlab::test
