// CFS of 2.6.31 and 2.6.32: shares, slices, fork placement, wake-up preemption and load
// balancing, against values computed by hand from the kernel's formulas. Machines have
// no switch or migration costs, so times fall on the 1 ms tick grid.
//
// The kernel divides through 32-bit inverses (calc_delta_mine), so a 20 ms period split
// between two nice-0 tasks gives 9.995122 ms, not 10 ms; the hand computations below
// carry those values, and a slice ends at the first tick where the task ran longer.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

ScenarioOverrides with_policy(const std::string& policy,
                              std::vector<std::pair<std::string, std::string>> params = {}) {
  ScenarioOverrides o;
  o.policy = policy;
  o.params = std::move(params);
  return o;
}

// The time (ms) the task is switched in for the nth time (the first by default), or -1.
double first_run_ms(const RunOutput& r, const std::string& name, int nth = 1) {
  int seen = 0;
  for (const SchedEvent& e : r.events)
    if (e.type == EventType::kSwitch && e.other != kNoTask && r.names[e.other] == name &&
        ++seen == nth)
      return static_cast<double>(e.time) / 1e6;
  return -1;
}

// Lengths (ms) of the runs on CPU 0, between consecutive switches, after the first `skip`.
std::vector<double> run_lengths_ms(const RunOutput& r, size_t skip) {
  std::vector<double> times;
  for (const SchedEvent& e : r.events)
    if (e.type == EventType::kSwitch && e.cpu == 0)
      times.push_back(static_cast<double>(e.time) / 1e6);
  std::vector<double> lengths;
  for (size_t i = skip + 1; i < times.size(); ++i) lengths.push_back(times[i] - times[i - 1]);
  return lengths;
}

const char* kPresets[] = {"cfs-2.6.23", "cfs-2.6.31", "cfs-tip-2009-10", "cfs-2.6.32"};

TEST(Cfs, NiceZeroAndNiceFiveShareOneCpu1024To335) {
  for (const char* preset : kPresets) {
    const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 10},
        "tasks": {"a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000, "priority": 5}}})",
                                 with_policy(preset));
    const double a = static_cast<double>(r.task("a").cpu_time_ns);
    const double b = static_cast<double>(r.task("b").cpu_time_ns);
    EXPECT_NEAR(a / (a + b), 1024.0 / 1359.0, 0.005 * 1024.0 / 1359.0) << preset;
  }
}

// n hogs pinned to CPU 0: slices of max(latency / n, min_granularity), the tunables
// scaled by 1 + ilog2(cpus), ending at the first tick past the slice.
TEST(Cfs, EqualHogsRunSlicesOfLatencyOverNAtLeastMinGranularity) {
  struct Case {
    const char* preset;
    int cpus, hogs;
    double slice_ms;
  };
  const Case cases[] = {
      // 2.6.23: the granularity drops to 0 once the task ran max(latency/n, min_gran), and
      // the leftmost is then behind it: the slice ends at the first tick past that.
      {"cfs-2.6.23", 1, 2, 11},  // 20 ms / 2 = 10 ms -> 11 ms
      {"cfs-2.6.23", 1, 8, 3},   // max(2.5 ms, 2 ms) -> 3 ms
      {"cfs-2.6.23", 4, 2, 31},  // factor 3: 60 ms / 2 = 30 ms -> 31 ms
      // (With 8 hogs on 4 CPUs 2.6.23 alternates 7 and 8 ms: the key lead of 6.56 ms,
      // latency/n - latency/n^2, can end a slice before the 7.5 ms ideal runtime.)
      {"cfs-2.6.31", 1, 2, 10},  // 20 ms / 2 = 9.995 ms -> tick at 10 ms
      {"cfs-2.6.31", 1, 8, 4},   // 8 > nr_latency: period 4 ms * 8, slice 3.998 ms -> 4 ms
      {"cfs-2.6.31", 4, 2, 30},  // factor 3: 60 ms / 2 = 29.99 ms -> 30 ms
      {"cfs-2.6.31", 4, 8, 12},  // 12 ms * 8 / 8 = 11.99 ms -> 12 ms
      {"cfs-2.6.32", 1, 2, 3},   // 5 ms / 2 = 2.499 ms -> 3 ms
      {"cfs-2.6.32", 1, 8, 1},   // 1 ms * 8 / 8 = 0.9995 ms -> 1 ms
      {"cfs-2.6.32", 4, 2, 8},   // factor 3: 15 ms / 2 = 7.496 ms -> 8 ms
      {"cfs-2.6.32", 4, 8, 3},   // 3 ms * 8 / 8 = 2.998 ms -> 3 ms
  };
  for (const Case& c : cases) {
    const std::string json = fmt::format(
        R"({{"machine": {{"cpus": {}, "hz": 1000}}, "global": {{"duration": 1}},
            "tasks": {{"hog": {{"instance": {}, "cpus": [0], "loop": -1, "run": 100000}}}}}})",
        c.cpus, c.hogs);
    const RunOutput r = run_text(json, with_policy(c.preset));
    const std::vector<double> lengths = run_lengths_ms(r, 4 * static_cast<size_t>(c.hogs));
    ASSERT_GT(lengths.size(), 10u) << c.preset;
    for (double l : lengths)
      ASSERT_DOUBLE_EQ(l, c.slice_ms)
          << c.preset << " on " << c.cpus << " CPUs, " << c.hogs << " hogs";
  }
}

// One CPU, 2.6.32: H is a hog; P runs 4 ms, forks C, then sleeps. By hand:
//   t=0  H.vr = 4.995121 ms (vslice alone), P.vr = 2.498780 ms (vslice of two): P runs.
//   t=3  P's slice (2.4988 ms) is over: H runs 3-6; P runs 6-7 and forks C at t=7 with
//        min_vruntime = P.vr = 6.498780 ms. C's vslice among three is 1.666123 ms, so
//        C.vr = 8.164903 ms > H.vr = 7.995121 ms: after P sleeps H runs first, and C gets
//        the CPU when H's slice ends, at the 10 ms tick (C.vr 0.17 ms lower would be 7).
//   START_DEBIT=0 also places H and P at min_vruntime: H runs 0-3, P 3-6, H 6-9, P forks
//        at 10 with C.vr = min_vruntime = P.vr = 4 ms < H.vr = 6 ms, so C runs at once: 10.
TEST(Cfs, StartDebitPlacesAForkedChildOneVsliceRight) {
  const std::string json = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"H": {"loop": -1, "run": 100000},
                "P": {"loop": 1, "run": 4000, "fork": "C", "sleep": 900000},
                "C": {"instance": 0, "loop": 1, "run": 50000}}})";
  const RunOutput debit = run_text(json, with_policy("cfs-2.6.32"));
  const Lines all = debit.switch_ins();
  const Lines head(all.begin(), all.begin() + 6);
  EXPECT_EQ(head, (Lines{"0 0 P", "3 0 H", "6 0 P", "7 0 H", "10 0 C-0", "13 0 H"}));
  const RunOutput none = run_text(json, with_policy("cfs-2.6.32", {{"START_DEBIT", "0"}}));
  EXPECT_EQ(none.switch_ins()[0], "0 0 H");
  EXPECT_DOUBLE_EQ(first_run_ms(none, "C-0"), 10);
}

// The property behind E2: under load, a forked child waits longer for its first run with
// START_DEBIT than without. Here a forker spawns a child every 10 ms next to three hogs.
// 2.6.31 runs the child first instead (sched_child_runs_first): the child takes the
// parent's place in the timeline and the parent is switched out as the fork returns, so
// the child never waits, with the debit or without.
TEST(Cfs, StartDebitMakesForkedChildrenWaitLongerUnderLoad) {
  const std::string json = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 2},
      "tasks": {"hog": {"instance": 3, "loop": -1, "run": 100000},
                "forker": {"loop": -1, "run": 300, "fork": "child", "sleep": 10000},
                "child": {"instance": 0, "loop": 1, "run": 2000}}})";
  struct FirstRuns {
    int children = 0;
    double mean_delay_ms = 0;
  };
  auto first_runs = [&](const char* preset, const char* debit) {
    const RunOutput r = run_text(json, with_policy(preset, {{"START_DEBIT", debit}}));
    std::map<TaskId, Time> forked;
    FirstRuns f;
    for (const SchedEvent& e : r.events) {
      if (e.type == EventType::kFork) forked[e.other] = e.time;
      if (e.type == EventType::kSwitch && forked.count(e.other)) {
        f.mean_delay_ms += static_cast<double>(e.time - forked[e.other]) / 1e6;
        ++f.children;
        forked.erase(e.other);
      }
    }
    EXPECT_GT(f.children, 50);
    f.mean_delay_ms /= f.children;
    return f;
  };
  const FirstRuns debit32 = first_runs("cfs-2.6.32", "1"), none32 = first_runs("cfs-2.6.32", "0");
  EXPECT_GT(debit32.mean_delay_ms, none32.mean_delay_ms + 1);
  const FirstRuns debit31 = first_runs("cfs-2.6.31", "1"), none31 = first_runs("cfs-2.6.31", "0");
  EXPECT_EQ(debit31.mean_delay_ms, 0);
  EXPECT_EQ(none31.mean_delay_ms, 0);
}

// 2.6.23: only a process fork on the parent's CPU goes through task_new_fair, which keys
// the child just left of the parent and preempts it, so the child runs at the fork (1 ms).
// A thread (CLONE_VM) is queued at fair_clock like any activation, key 0.999023 ms (the
// 32-bit inverse of 1024 rounds the first ms of fair_clock down). From then P's key grows
// 1 ms per ms it runs (fair_clock at half speed plus the wait_runtime P gives up) while C
// waits at its key, and the tick preempts P once it leads by more than the granularity
// 20/2 - 20/4 = 5 ms: 5.000977 ms at the 6 ms tick.
TEST(Cfs, In2623OnlyProcessForksRunTheChildFirst) {
  const std::string json = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"P": {"loop": 1, "run": 1000, "fork": "C", "run2": 50000},
                "C": {"instance": 0, "loop": 1, "run": 50000}}})";
  EXPECT_DOUBLE_EQ(
      first_run_ms(run_text(json, with_policy("cfs-2.6.23", {{"forks_are_threads", "0"}})), "C-0"),
      1);
  EXPECT_DOUBLE_EQ(first_run_ms(run_text(json, with_policy("cfs-2.6.23")), "C-0"), 6);
}

// One CPU, P alone runs 1 ms then forks C and keeps running.
//   2.6.31: P.vr = 20.980244 ms at the fork; C is placed a vslice (9.995122 ms) later.
//     child runs first: the two swap vruntimes and P yields: C runs at 1 ms.
//     without: P runs its slice (9.995 ms, to the 10 ms tick), then the next buddy C.
//   2.6.32 (child_runs_first off): C.vr = 8.493901 ms; P's slices end at 3 ms (P is still
//     leftmost, 7.995121 ms, and runs on) and at 6 ms, when C runs.
TEST(Cfs, ChildRunsFirstSwapsParentAndChildAs2631Did) {
  const std::string json = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"P": {"loop": 1, "run": 1000, "fork": "C", "run2": 50000},
                "C": {"instance": 0, "loop": 1, "run": 50000}}})";
  EXPECT_DOUBLE_EQ(first_run_ms(run_text(json, with_policy("cfs-2.6.31")), "C-0"), 1);
  EXPECT_DOUBLE_EQ(
      first_run_ms(run_text(json, with_policy("cfs-2.6.31", {{"sched_child_runs_first", "0"}})),
                   "C-0"),
      10);
  EXPECT_DOUBLE_EQ(first_run_ms(run_text(json, with_policy("cfs-2.6.32")), "C-0"), 6);
  EXPECT_DOUBLE_EQ(
      first_run_ms(run_text(json, with_policy("cfs-2.6.32", {{"sched_child_runs_first", "1"}})),
                   "C-0"),
      1);
}

// 2.6.32 on a 4-CPU machine (factor 3), everything on CPU 0, ADAPTIVE_GRAN off so the
// granularity is the plain 3 ms. S sleeps 20.5 ms next to the hog H and wakes with
// 7.5 ms of sleeper credit (half of the 15 ms latency):
//   nice 0: 7.5 ms > 3 ms -> preempts at once, 20.5 ms;
//   nice 5: the granularity in S's virtual time is 3 ms * 1024 / 335 = 9.17 ms > 7.5 ms,
//           so S waits for H's slice to end at the next tick, 21 ms;
//   SCHED_BATCH never preempts on wake-up: 21 ms.
TEST(Cfs, WakeupPreemptsOnlyBeyondTheWeightScaledGranularity) {
  auto run_s = [](const std::string& s_attrs) {
    const std::string json = R"({"machine": {"cpus": 4, "hz": 1000}, "global": {"duration": 1},
        "tasks": {"H": {"cpus": [0], "loop": -1, "run": 100000},
                  "S": {"cpus": [0], "loop": 1, )" +
                             s_attrs + R"( "sleep": 20500, "run": 5000}}})";
    return first_run_ms(run_text(json, with_policy("cfs-2.6.32", {{"ADAPTIVE_GRAN", "0"}})), "S");
  };
  // S runs first at t=0 (smaller vslice) and sleeps at once; the interesting switch-in is
  // its second.
  auto second_run_ms = [](const std::string& s_attrs) {
    const std::string json = R"({"machine": {"cpus": 4, "hz": 1000}, "global": {"duration": 1},
        "tasks": {"H": {"cpus": [0], "loop": -1, "run": 100000},
                  "S": {"cpus": [0], "loop": 1, )" +
                             s_attrs + R"( "sleep": 20500, "run": 5000}}})";
    const RunOutput r = run_text(json, with_policy("cfs-2.6.32", {{"ADAPTIVE_GRAN", "0"}}));
    int seen = 0;
    for (const SchedEvent& e : r.events)
      if (e.type == EventType::kSwitch && e.other != kNoTask && r.names[e.other] == "S" &&
          ++seen == 2)
        return static_cast<double>(e.time) / 1e6;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(run_s(""), 0);
  EXPECT_DOUBLE_EQ(second_run_ms(""), 20.5);
  EXPECT_DOUBLE_EQ(second_run_ms(R"("priority": 5,)"), 21);
  EXPECT_DOUBLE_EQ(second_run_ms(R"("policy": "SCHED_BATCH",)"), 21);
}

// Four hogs that start pinned to CPU 0 of a Q9300-like machine (two L2 pairs) and are
// then free: the idle CPUs' balancing (every 1-4 ms, capacity one per L2 pair in 2.6.31)
// spreads them one per CPU within a few intervals.
TEST(Cfs, FourHogsStartedOnCpu0EndUpOnePerCpu) {
  for (const char* preset : kPresets) {
    const RunOutput r = run_text(R"({"machine": {"cpus": 4, "hz": 1000,
            "topology": {"llc": [[0, 1], [2, 3]]}}, "global": {"duration": 1},
        "tasks": {"hog": {"instance": 4, "phases": {
            "pin": {"cpus": [0], "run": 1000}, "free": {"loop": 1000, "run": 100000}}}}})",
                                 with_policy(preset));
    std::map<TaskId, CpuId> where;
    Time last_migration = 0;
    for (const SchedEvent& e : r.events) {
      if (e.type == EventType::kSwitch && e.other != kNoTask) where[e.other] = e.cpu;
      if (e.type == EventType::kMigrate) last_migration = e.time;
    }
    EXPECT_LE(last_migration, 20'000'000) << preset;
    std::set<CpuId> cpus;
    for (const auto& [task, cpu] : where) cpus.insert(cpu);
    EXPECT_EQ(cpus.size(), 4u) << preset;
    for (const CpuMetrics& c : r.metrics.per_cpu) EXPECT_GE(c.busy_ns, 980'000'000) << preset;
  }
}

// Two CPUs sharing a cache. A and B share CPU 0; C runs on CPU 1 for 30 ms and exits.
// 2.6.32 balances a newly idle CPU at once: a task moves at 30 ms. 2.6.31 has no
// SD_BALANCE_NEWIDLE on its MC domain: CPU 1 waits for its periodic balance, which its
// busy period set to last_balance + 1 ms * busy_factor 64 = 64 ms.
TEST(Cfs, NewlyIdleCpuPullsAtOnceIn2632And2623AndWaitsIn2631) {
  const std::string json = R"({"machine": {"cpus": 2, "hz": 1000, "topology": {"llc": [[0, 1]]}},
      "global": {"duration": 1},
      "tasks": {"A": {"loop": 1, "phases": {"pin": {"cpus": [0], "run": 1000}, "free": {"run": 500000}}},
                "B": {"loop": 1, "phases": {"pin": {"cpus": [0], "run": 1000}, "free": {"run": 500000}}},
                "C": {"cpus": [1], "loop": 1, "run": 30000}}})";
  auto first_migration_ms = [](const RunOutput& r) {
    for (const SchedEvent& e : r.events)
      if (e.type == EventType::kMigrate && e.time > 0) return static_cast<double>(e.time) / 1e6;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(first_migration_ms(run_text(json, with_policy("cfs-2.6.32"))), 30);
  EXPECT_DOUBLE_EQ(first_migration_ms(run_text(json, with_policy("cfs-2.6.31"))), 64);
  // 2.6.23 had SD_BALANCE_NEWIDLE on its MC domain, like 2.6.32.
  EXPECT_DOUBLE_EQ(first_migration_ms(run_text(json, with_policy("cfs-2.6.23"))), 30);
  // Switching the flag swaps the behaviours.
  EXPECT_DOUBLE_EQ(
      first_migration_ms(run_text(json, with_policy("cfs-2.6.31", {{"SD_BALANCE_NEWIDLE", "1"}}))),
      30);
  EXPECT_DOUBLE_EQ(
      first_migration_ms(run_text(json, with_policy("cfs-2.6.32", {{"SD_BALANCE_NEWIDLE", "0"}}))),
      64);
}

// Two CPUs sharing a cache. W, pinned to CPU 0, resumes S at 10.1 ms; S last ran on CPU 0
// (its pinned first phase) and CPU 1 is idle. 2.6.32.2's select_task_rq_fair takes the
// first CFS-idle CPU of the SD_PREFER_SIBLING domain: S runs on CPU 1 at once. The -tip
// of October 2009 has no such search: the waker's CPU 0 is also prev, so S stays there;
// placed latency / 2 left of W (2 CPUs: latency 10 ms) it preempts W at once, runs its
// 1 ms and W finishes its 20 ms at 31.1 ms instead of 30.1.
TEST(Cfs, TipOfOctober2009WakesOnTheWakersCpuWhere2632TakesAnIdleSibling) {
  const std::string json = R"({"machine": {"cpus": 2, "hz": 1000, "topology": {"llc": [[0, 1]]}},
      "global": {"duration": 1},
      "tasks": {"W": {"cpus": [0], "loop": 1, "run": 10000, "resume": "S", "run": 20000},
                "S": {"loop": 1, "phases": {"pin": {"cpus": [0], "run": 100},
                                            "free": {"suspend": "S", "run": 1000}}}}})";
  auto switch_in = [](const RunOutput& r, const std::string& name, int nth) {
    int seen = 0;
    for (const SchedEvent& e : r.events)
      if (e.type == EventType::kSwitch && e.other != kNoTask && r.names[e.other] == name &&
          ++seen == nth)
        return std::pair<double, CpuId>{static_cast<double>(e.time) / 1e6, e.cpu};
    return std::pair<double, CpuId>{-1, kNoCpu};
  };
  const RunOutput v2632 = run_text(json, with_policy("cfs-2.6.32"));
  EXPECT_EQ(switch_in(v2632, "S", 2), (std::pair<double, CpuId>{10.1, 1}));
  EXPECT_EQ(v2632.task("W").cpu_time_ns + 100'000, 30'100'000);
  const RunOutput tip = run_text(json, with_policy("cfs-tip-2009-10"));
  EXPECT_EQ(switch_in(tip, "S", 2), (std::pair<double, CpuId>{10.1, 0}));
  EXPECT_EQ(switch_in(tip, "W", 2), (std::pair<double, CpuId>{11.1, 0}));
  EXPECT_EQ(tip.metrics.duration_ns, 31'100'000);
}

// A Q9300-like pair of cache pairs. H is pinned to CPU 0, where S last ran; W on CPU 2
// resumes S at 10 ms. 2.6.31 pulls S to the waker's CPU (wake_affine on the package
// level); the -tip of 10-15 September 2009 has no SD_WAKE_AFFINE there, so S stays on
// prev, and wake_idle() (prev runs one CFS task) gives it the first idle CPU of prev's
// cache pair, CPU 1; the -tip of October wakes it affine again, and 2.6.32.2's idle
// sibling search takes the waker's idle sibling, CPU 3.
TEST(Cfs, TipOfSeptember2009WakesOnAnIdleCpuOfThePrevCachePair) {
  const std::string json =
      R"({"machine": {"cpus": 4, "hz": 1000, "topology": {"llc": [[0, 1], [2, 3]]}},
      "global": {"duration": 1},
      "tasks": {"H": {"cpus": [0], "loop": 1, "run": 30000},
                "W": {"cpus": [2], "loop": 1, "run": 10000, "resume": "S", "run": 20000},
                "S": {"loop": 1, "phases": {"pin": {"cpus": [0], "run": 100},
                                            "free": {"suspend": "S", "run": 1000}}}}})";
  auto woken_on = [&](const char* preset) {
    const RunOutput r = run_text(json, with_policy(preset));
    int seen = 0;
    for (const SchedEvent& e : r.events)
      if (e.type == EventType::kSwitch && e.other != kNoTask && r.names[e.other] == "S" &&
          ++seen == 2) {
        EXPECT_EQ(e.time, 10'000'000) << preset;
        return e.cpu;
      }
    return kNoCpu;
  };
  EXPECT_EQ(woken_on("cfs-2.6.31"), 2);
  EXPECT_EQ(woken_on("cfs-tip-2009-09"), 1);
  EXPECT_EQ(woken_on("cfs-tip-2009-10"), 2);
  EXPECT_EQ(woken_on("cfs-2.6.32"), 3);
}

// One CPU: A runs 100 ms, B wakes from a 50.5 ms sleep. With a sleeper credit (2.6.31's
// NEW_FAIR_SLEEPERS, 2.6.32's halved FAIR_SLEEPERS) B is placed left of A and preempts it
// at once; the -tip of 10-15 September 2009 had turned the credit off (3f2aa307), so B
// sits at min_vruntime, level with A, and runs at the next tick, when A's slice is over.
TEST(Cfs, TipOfSeptember2009GivesAWakingSleeperNoCredit) {
  const std::string json = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"A": {"loop": 1, "run": 100000}, "B": {"loop": 1, "sleep": 50500, "run": 1000}}})";
  EXPECT_DOUBLE_EQ(first_run_ms(run_text(json, with_policy("cfs-2.6.31")), "B", 2), 50.5);
  EXPECT_DOUBLE_EQ(first_run_ms(run_text(json, with_policy("cfs-2.6.32")), "B", 2), 50.5);
  EXPECT_DOUBLE_EQ(first_run_ms(run_text(json, with_policy("cfs-tip-2009-09")), "B", 2), 51);
}

// One CPU (latency 5 ms, min_granularity 1 ms), A at nice 0 and B at nice 5 start at
// t = 0 with START_DEBIT: A (enqueued first, alone) at 0 + 5 ms, B at 0 + vslice =
// 5 ms * 335/1359 * 1024/335 = 3.767 ms, so B runs first with an ideal runtime of
// 5 ms * 335/1359 = 1.232 ms. At the 1 ms tick B's vruntime is 3.767 + 1 * 1024/335 =
// 6.824 ms, 1.824 ms right of A: more than its ideal runtime after min_granularity, which
// 2.6.32's tick test (f685ceac, 23 October 2009) preempts. The -tip of mid-October lacks
// it: B runs until its 1.232 ms are over, at the 2 ms tick.
TEST(Cfs, TipOfOctober2009HasNoTickTestOfTheSpreadToTheLeftmost) {
  const std::string json = R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 1},
      "tasks": {"A": {"loop": 1, "run": 30000}, "B": {"loop": 1, "run": 30000, "priority": 5}}})";
  auto first_switch_from_b_ms = [](const RunOutput& r) {
    for (const SchedEvent& e : r.events)
      if (e.type == EventType::kSwitch && e.task != kNoTask && r.names[e.task] == "B")
        return static_cast<double>(e.time) / 1e6;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(first_switch_from_b_ms(run_text(json, with_policy("cfs-2.6.32"))), 1);
  EXPECT_DOUBLE_EQ(first_switch_from_b_ms(run_text(json, with_policy("cfs-tip-2009-10"))), 2);
}

TEST(Cfs, SwitchesThatAreNotModelledAreRejectedWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"cfs-2.6.32", "HRTICK"}, {"cfs-2.6.31", "HRTICK"}, {"cfs-2.6.23", "PRECISE_CPU_LOAD"}};
  for (const auto& [preset, flag] : cases) {
    try {
      run_text(R"({"tasks": {"a": {"loop": 1, "run": 10}}})", with_policy(preset, {{flag, "1"}}));
      ADD_FAILURE() << flag << "=1 accepted by " << preset;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "test.json");
      EXPECT_EQ(e.key(), std::string("--param ") + flag);
    }
  }
}

}  // namespace
}  // namespace schedlab::test
