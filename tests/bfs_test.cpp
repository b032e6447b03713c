// BFS (0.318 source): shares, deadline order, the expired-deadline rule, idle CPUs,
// locality, IDLEPRIO and SCHED_ISO, against schedules computed by hand. On one CPU rr_interval is 6
// ms and the deadline offsets are prio_ratios x 6 ms in jiffies: nice -5 24, nice 0 39, nice 5 63,
// nice 10 101.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness.h"
#include "policy/registry.h"
#include "util/error.h"

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

// SCHED_ISO on one CPU at 1000 Hz (ISO_PERIOD = 5 x 1000 + 1 = 5001 ticks): an ISO hog
// runs as RT, adding 100 per tick; at tick 3551 iso_ticks (355100) / 5001 exceeds 70
// (iso_cpu), so it turns refractory and shares 6 ms slices with a normal hog. Each tick
// then takes iso_ticks / 5001 + 1 off; at tick 4145 the quotient falls below 63 (90 %
// of 70), and from its next slice the task is ISO again, gaining 100 per tick from
// 315047: over 70 again at tick 4546.
TEST(Bfs, IsoIsDemotedAtItsLimitAndPromotedBelowTheHysteresis) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "iso": {"policy": "SCHED_ISO", "loop": -1, "run": 100000},
      "hog": {"loop": -1, "run": 100000}}})",
                               [] {
                                 ScenarioOverrides o = bfs();
                                 o.duration_s = 5;
                                 return o;
                               }());
  const Lines lines = r.switch_ins();
  EXPECT_EQ(Lines(lines.begin(), lines.begin() + 3),
            (Lines{"0 0 iso", "3551 0 hog", "3557 0 iso"}));
  const auto promoted = std::find(lines.begin(), lines.end(), "4145 0 iso");
  ASSERT_NE(promoted, lines.end());
  EXPECT_EQ(*(promoted + 1), "4546 0 hog");
  // 0-3551 alone; 49 slices of 6 ms in 3557-4145; 4145-4546; then the 6 ms slices from
  // 4552 every 12 ms, the 38th cut at 5 s after 4 ms: 3551 + 294 + 401 + 222 + 4 ms.
  EXPECT_EQ(r.task("iso").cpu_time_ns, 4'472'000'000);
}

// The idle CPU's ticks count too: on two CPUs (ISO_PERIOD 10001) with CPU 1 idle, each
// jiffy adds 100 for CPU 0 and takes iso_ticks / 10001 + 1 off for CPU 1, so the limit
// (quotient over 70) is reached at tick 12503 (iterating that rule from 0), not at tick
// 7101 as with CPU 0's ticks alone.
TEST(Bfs, IdleCpusTicksDecayTheIsoBudget) {
  ScenarioOverrides o = bfs();
  o.duration_s = 13;
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "hz": 1000}, "tasks": {
      "iso": {"policy": "SCHED_ISO", "cpus": [0], "loop": -1, "run": 100000},
      "hog": {"cpus": [0], "loop": -1, "run": 100000}}})",
                               o);
  EXPECT_EQ(head(r, 2), (Lines{"0 0 iso", "12503 0 hog"}));
}

// Locality on a Q9300 (two dies of two cores, each die one L2): 4 CPUs scale
// rr_interval to 13 ms; nice 0's prio_ratio is 655, so its deadline is now + 85 jiffies
// and a task from the other die counts task_timeslice = 85 jiffies later. X (last on
// CPU 2, other die) was created at 0 (deadline 85), Y (last on CPU 1, CPU 0's L2
// partner) at 84 ms (deadline 169): CPU 0 sees 170 against 169 and takes Y; CPU 2 sees
// 85 against 254 and takes X. Had Y come at 86 ms (171), CPU 0 would take X.
TEST(Bfs, ATaskFromAnotherDieIsPickedOnlyWhenItsWeightedDeadlineIsEarliest) {
  Machine m = make_machine(4);
  m.hz = 1000;
  m.llc_of = {0, 0, 1, 1};
  auto pick_on = [&](Time y_created_ms, CpuId picker, const char* policy = "bfs") {
    FakeContext ctx(m);
    std::unique_ptr<SchedClass> bfs = make_policy(policy, {}, "test");
    bfs->attach(ctx);
    ChunkedStore<Task> tasks;
    ctx.set_tasks(&tasks);
    auto add = [&](const std::string& name, CpuId last_cpu, Time at_ms) -> Task& {
      ctx.set_now(at_ms * kNsPerMs);
      Task& t = tasks.emplace_back();
      t.id = static_cast<TaskId>(tasks.size() - 1);
      t.name = name;
      t.allowed = all_cpus(4);
      t.nr_cpus_allowed = 4;
      t.runnable = true;
      t.cpu = last_cpu;
      bfs->task_new(t, nullptr);
      bfs->enqueue(last_cpu, t, EnqueueFlags{EnqueueKind::kWakeup, {}});
      t.queued = true;
      return t;
    };
    add("X", 2, 0);
    add("Y", 1, y_created_ms);
    return bfs->pick_next(picker)->name;
  };
  EXPECT_EQ(pick_on(84, 0), "Y");
  EXPECT_EQ(pick_on(84, 2), "X");
  EXPECT_EQ(pick_on(86, 0), "X");
  // BFS 0.232 has no cache distance (cm-kernel @77ada37e earliest_deadline_task): rr 6 x
  // (1 + ilog2 4) = 18 ms, deadlines now + 117: X 117 against Y 201, so CPU 0 takes X.
  EXPECT_EQ(pick_on(84, 0, "bfs-0.232"), "X");
  EXPECT_EQ(pick_on(84, 2, "bfs-0.232"), "X");
}

ScenarioOverrides preset(const char* name) {
  ScenarioOverrides o;
  o.policy = name;
  return o;
}

// rr_interval at boot: 0.318 multiplies by 3/2 per doubling of the CPUs, 0.232 to 0.316
// by 1 + ilog2(CPUs) (Conap30/htc_kernel_desirec_bfs @4761bf4c sched_init_smp). Two
// hogs pinned to CPU 0 of 2 share it in slices of 9 ms (0.318) or 12 ms (0.311, 0.304,
// 0.232); on the Q9300's 4 CPUs that is 13 against 18 ms.
TEST(Bfs, ReleasesBefore0318ScaleTheSliceByOnePlusLogCpus) {
  const std::string two_hogs = R"({"machine": {"cpus": 2, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"A": {"cpus": [0], "loop": -1, "run": 100000},
                "B": {"cpus": [0], "loop": -1, "run": 100000}}})";
  EXPECT_EQ(head(run_text(two_hogs, bfs()), 4), (Lines{"0 0 A", "9 0 B", "18 0 A", "27 0 B"}));
  for (const char* release : {"bfs-0.311", "bfs-0.304", "bfs-0.232"})
    EXPECT_EQ(head(run_text(two_hogs, preset(release)), 4),
              (Lines{"0 0 A", "12 0 B", "24 0 A", "36 0 B"}))
        << release;
}

// sched_yield on one CPU (rr 6 ms, nice-0 deadline now + 39): A runs 1 ms and yields, B
// is a hog; both start with deadline 39. 0.318 keeps A's slice and deadline: B (first in
// the list at the tie) runs 1-7 and is renewed to 46, then A's 39 wins at every yield
// until its slice is spent at 12 (renewed to 51). 0.304/0.311 zero the slice at each
// yield: A's deadline becomes 1 + 39 = 40, B runs 1-7 (renewed 46), A 7-8 (renewed 47),
// B 8-14, A 14-15...
TEST(Bfs, Releases0304To0316GiveAYieldingTaskANewDeadline) {
  const std::string load = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"A": {"loop": -1, "run": 1000, "yield": 0},
                "B": {"loop": -1, "run": 100000}}})";
  EXPECT_EQ(head(run_text(load, bfs()), 4), (Lines{"0 0 A", "1 0 B", "7 0 A", "12 0 B"}));
  for (const char* release : {"bfs-0.311", "bfs-0.304"})
    EXPECT_EQ(head(run_text(load, preset(release)), 6),
              (Lines{"0 0 A", "1 0 B", "7 0 A", "8 0 B", "14 0 A", "15 0 B"}))
        << release;
  // 0.232's yield was broken the same way as 0.318 keeps it (rr 6 ms on one CPU too).
  EXPECT_EQ(head(run_text(load, preset("bfs-0.232")), 4),
            (Lines{"0 0 A", "1 0 B", "7 0 A", "12 0 B"}));
}

// The idle CPU a wake-up goes to, on 6 CPUs in three L2 pairs: H0, H1 and H3 are pinned
// to CPUs 0, 1 and 3; S first runs on CPU 0 when H0's slice ends (13 ms for 0.318, 18 ms
// for 0.304: rr 6 x 9/4 and 6 x 3), runs 2 ms, then sleeps 10 ms free. Waking with CPUs
// 2, 4 and 5 idle, 0.318 ranks them (resched_best_idle: 2's cache partner 3 is busy,
// 4's is not) and takes 4; 0.304 takes the first nearest idle CPU in CPU order, 2
// (Conap30 @52d5a108 try_preempt); 0.232 the first idle one, 2.
TEST(Bfs, Release0304WakesOntoTheFirstNearestIdleCpu) {
  const std::string load = R"({"machine": {"cpus": 6, "hz": 1000,
        "topology": {"llc": [[0, 1], [2, 3], [4, 5]], "packages": [[0, 1, 2, 3, 4, 5]]}},
      "global": {"duration": 1},
      "tasks": {"H0": {"cpus": [0], "loop": -1, "run": 100000},
                "H1": {"cpus": [1], "loop": -1, "run": 100000},
                "H3": {"cpus": [3], "loop": -1, "run": 100000},
                "S": {"loop": 1, "phases": {"a": {"cpus": [0], "run": 2000},
                                            "b": {"sleep": 10000, "run": 3000}}}}})";
  auto wake_line = [&](const char* policy) {  // S's second switch-in: after its sleep
    Lines s_runs;
    for (const std::string& l : run_text(load, preset(policy)).switch_ins())
      if (l.size() > 2 && l.compare(l.size() - 2, 2, " S") == 0) s_runs.push_back(l);
    return s_runs.size() > 1 ? s_runs[1] : std::string();
  };
  EXPECT_EQ(wake_line("bfs"), "25 4 S");
  EXPECT_EQ(wake_line("bfs-0.304"), "30 2 S");
  EXPECT_EQ(wake_line("bfs-0.232"), "30 2 S");
}

// The indexed pick (a machine whose CPUs share one cache, tasks allowed everywhere)
// makes exactly the choices of BFS's scan: the same event stream, event for event, on a
// mixed load of hogs, sleepers, nice levels, BATCH, IDLEPRIO and an RT task.
TEST(Bfs, TheIndexedPickChoosesExactlyAsTheScan) {
  const std::string load = R"({"machine": {"cpus": 6}, "global": {"duration": 1}, "tasks": {
      "hog": {"instance": 9, "loop": -1, "run": 100000},
      "sl": {"instance": 12, "loop": -1, "run": 200, "sleep": 1000},
      "n5": {"instance": 4, "loop": -1, "run": 3000, "sleep": 2000, "priority": 5},
      "bt": {"instance": 2, "loop": -1, "policy": "SCHED_BATCH", "run": 5000, "sleep": 100},
      "id": {"loop": -1, "policy": "SCHED_IDLE", "run": 100000},
      "rt": {"loop": -1, "policy": "SCHED_FIFO", "run": 500, "sleep": 3000}}})";
  ScenarioOverrides indexed = bfs(), scanned = bfs();
  scanned.params = {{"scan_pick", "1"}};
  const RunOutput a = run_text(load, indexed);
  const RunOutput b = run_text(load, scanned);
  ASSERT_EQ(a.events.size(), b.events.size());
  EXPECT_GT(a.events.size(), 10000u);
  for (size_t i = 0; i < a.events.size(); ++i) {
    const SchedEvent& x = a.events[i];
    const SchedEvent& y = b.events[i];
    ASSERT_TRUE(x.time == y.time && x.type == y.type && x.cpu == y.cpu && x.task == y.task &&
                x.other == y.other)
        << "event " << i;
  }
}

// try_preempt's index of running priorities and deadlines (every CPU sharing one cache,
// the woken task allowed everywhere) makes exactly the choices of BFS's loop over the
// CPUs, here on 48 CPUs kept busy (every wake-up goes through try_preempt), with nice
// levels, RT tasks, IDLEPRIO and pinned tasks (which take the loop) mixed in.
TEST(Bfs, TheIndexedPreemptChoosesExactlyAsTheLoop) {
  const std::string load = R"({"machine": {"cpus": 48}, "global": {"duration": 1}, "tasks": {
      "hog": {"instance": 60, "loop": -1, "run": 100000},
      "sl": {"instance": 40, "loop": -1, "run": 300, "sleep": 700},
      "n5": {"instance": 10, "loop": -1, "run": 2000, "sleep": 1500, "priority": 5},
      "nm": {"instance": 10, "loop": -1, "run": 900, "sleep": 400, "priority": -5},
      "pin": {"instance": 6, "loop": -1, "run": 700, "sleep": 900, "cpus": [3, 7]},
      "id": {"loop": -1, "policy": "SCHED_IDLE", "run": 100000},
      "rt": {"instance": 3, "loop": -1, "policy": "SCHED_FIFO", "run": 400, "sleep": 2500}}})";
  ScenarioOverrides indexed = bfs(), looped = bfs();
  looped.params = {{"scan_pick", "1"}};
  const RunOutput a = run_text(load, indexed);
  const RunOutput b = run_text(load, looped);
  ASSERT_EQ(a.events.size(), b.events.size());
  EXPECT_GT(a.events.size(), 50000u);
  size_t preemptions = 0;
  for (size_t i = 0; i < a.events.size(); ++i) {
    const SchedEvent& x = a.events[i];
    const SchedEvent& y = b.events[i];
    ASSERT_TRUE(x.time == y.time && x.type == y.type && x.cpu == y.cpu && x.task == y.task &&
                x.other == y.other)
        << "event " << i;
    preemptions += x.type == EventType::kSwitch && x.detail == 0 && x.task != kNoTask;
  }
  EXPECT_GT(preemptions, 1000u);  // wake-ups did preempt, so the choice of CPU mattered
}

TEST(Bfs, IsoIsOnlyKnownToBfs) {
  ScenarioOverrides o;
  o.policy = "cfs-2.6.32";
  EXPECT_THROW(run_text(R"({"tasks": {"iso": {"policy": "SCHED_ISO", "loop": 1, "run": 100}}})", o),
               InputError);
}

}  // namespace
}  // namespace schedlab::test
