// EEVDF of 6.6 and 6.12: placement, lag, DELAY_DEQUEUE and slices, driving the policy's
// hooks directly on one CPU with the clock under the test's control, and end to end.
#include "policy/eevdf/eevdf.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "harness.h"
#include "policy/registry.h"

namespace schedlab::test {
namespace {

using OneCpu = HandDriven<eevdf::Eevdf>;

// One CPU, base slice 0.75 ms. A and B start at V = 0 with half a slice (deadline
// 375 us); A runs 1 ms (vruntime 1 ms, a new slice to 1.75 ms). B is picked (eligible,
// V = 0.5 ms) and sleeps at once: its lag is V - 0 = 0.5 ms. With A alone (V = 1 ms), B
// wakes at V - lag * (W + w) / W = 1 ms - 0.5 ms * 2048 / 1024 = 0, which keeps its lag
// (the new V is 0.5 ms).
TEST(Eevdf, AWakingTaskIsPlacedAtVMinusItsScaledLag) {
  OneCpu s("eevdf-6.6");
  Task& a = s.add("A");
  Task& b = s.add("B");
  EXPECT_EQ(s.policy->deadline_of(a.id), 375'000);
  EXPECT_EQ(s.policy->deadline_of(b.id), 375'000);
  ASSERT_EQ(s.pick(), &a);
  s.run(a, 1'000'000);
  EXPECT_EQ(s.policy->vruntime_of(a.id), 1'000'000);
  EXPECT_EQ(s.policy->deadline_of(a.id), 1'750'000);
  EXPECT_TRUE(s.ctx.pending.count(0));  // slice used up with another task queued
  s.put_back(a);
  ASSERT_EQ(s.pick(), &b);
  s.sleep(b);
  EXPECT_EQ(s.policy->vlag_of(b.id), 500'000);
  ASSERT_EQ(s.pick(), &a);
  s.wake(b);
  EXPECT_EQ(s.policy->vruntime_of(b.id), 0);
  EXPECT_EQ(s.policy->deadline_of(b.id), 750'000);
  EXPECT_EQ(s.policy->avg_vruntime_of(0), 500'000);
  EXPECT_EQ(s.policy->check_invariants(), "");
}

// 6.12: A runs past its fair share (not eligible) and sleeps: DELAY_DEQUEUE keeps it
// queued. B is picked; A leaves only when the pick would choose it.
TEST(Eevdf, DelayDequeueKeepsAnIneligibleSleeperQueuedUntilPicked) {
  OneCpu s("eevdf-6.12");
  Task& a = s.add("A");
  Task& b = s.add("B");
  ASSERT_EQ(s.pick(), &a);
  s.run(a, 1'000'000);  // V = 0.5 ms < A's 1 ms: not eligible
  s.sleep(a);
  EXPECT_TRUE(s.policy->delayed(a.id));
  EXPECT_EQ(s.policy->nr_running_of(0), 2);
  ASSERT_EQ(s.pick(), &b);  // B is eligible and earlier
  s.run(b, 2'000'000);      // B moves past A: A becomes the pick
  s.put_back(b);
  ASSERT_EQ(s.pick(), &b);  // the pick found delayed A, dequeued it for real, picked again
  EXPECT_FALSE(s.policy->delayed(a.id));
  EXPECT_EQ(s.policy->nr_running_of(0), 1);
  EXPECT_EQ(s.policy->check_invariants(), "");
  // 6.6 has no delayed dequeue: the sleeper leaves at once.
  OneCpu old("eevdf-6.6");
  Task& a6 = old.add("A");
  old.add("B");
  ASSERT_EQ(old.pick(), &a6);
  old.run(a6, 1'000'000);
  old.sleep(a6);
  EXPECT_FALSE(old.policy->delayed(a6.id));
  EXPECT_EQ(old.policy->nr_running_of(0), 1);
}

TEST(Eevdf, NiceZeroAndNiceFiveShare1024To335) {
  for (const char* preset : {"eevdf-6.6", "eevdf-6.12"}) {
    ScenarioOverrides o;
    o.policy = preset;
    const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "global": {"duration": 10},
        "tasks": {"a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000, "priority": 5}}})",
                                 o);
    const double a = static_cast<double>(r.task("a").cpu_time_ns);
    const double b = static_cast<double>(r.task("b").cpu_time_ns);
    EXPECT_NEAR(a / (a + b), 1024.0 / 1359.0, 0.005 * 1024.0 / 1359.0) << preset;
  }
}

// PREEMPT_SHORT (6.12): A runs 0.1 ms of its protected first slice (deadline 0.375 ms).
// S arrives at V = 0.1 ms. With a 0.1 ms custom slice its deadline is 0.1 + 0.05 ms,
// earlier than A's, so RUN_TO_PARITY is lifted and S preempts; with the default slice
// (deadline 0.1 + 0.375 ms) A keeps the CPU. 6.6 ignores the custom slice.
TEST(Eevdf, PreemptShortLetsAShorterSliceCutAProtectedSlice) {
  auto preempts = [](const char* preset, Time custom_slice) {
    OneCpu s(preset);
    Task& a = s.add("A");
    EXPECT_EQ(s.pick(), &a);
    s.run(a, 100'000);
    s.ctx.pending.clear();
    Task& short_task = s.add("S", custom_slice, &a);
    s.policy->check_preempt(0, a, short_task, WakeInfo{WakeKind::kFork, 0, false, a.id});
    EXPECT_EQ(s.policy->vruntime_of(short_task.id), 100'000) << preset;
    EXPECT_EQ(s.policy->check_invariants(), "");
    return s.ctx.pending.count(0) > 0;
  };
  EXPECT_TRUE(preempts("eevdf-6.12", 100'000));
  EXPECT_FALSE(preempts("eevdf-6.12", 0));
  EXPECT_FALSE(preempts("eevdf-6.6", 100'000));
}

// The same end to end on one CPU at 1000 Hz: hog A starts at 0 (deadline 0.375 ms); S
// arrives at 0.2 ms with lag 0 and runs 0.1 ms. With the default slice its deadline is
// 0.2 + 0.375 ms, later than A's, so it waits for the tick at 1 ms, where A's slice is
// over: 0.8 ms of wake-up latency. With a 0.1 ms custom slice (dl-runtime 100) its
// deadline is 0.25 ms and it preempts at once: 0.
TEST(Eevdf, AShorterCustomSliceGetsLowerWakeupLatency) {
  auto latency = [](const std::string& slice) {
    ScenarioOverrides o;
    o.policy = "eevdf-6.12";
    const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
        "A": {"loop": 1, "run": 5000},
        "S": {"loop": 1, "delay": 200, )" +
                                     slice + R"("run": 100}}})",
                                 o);
    return r.task("S").wakeup_latency.max();
  };
  EXPECT_EQ(latency(""), 800'000);
  EXPECT_EQ(latency(R"("dl-runtime": 100, )"), 0);
}

// A phase that changes only the custom slice (dl-runtime of a fair task) is applied, as
// sched_setattr() sees the slice change: A and B share one CPU at 1000 Hz with the base
// slice (0.75 ms), so each runs from one tick to the next (1 ms) until A's first phase
// (20 ms of work) ends; A's second phase asks for a 10 ms slice (with its policy: rt-app
// sets nothing for a phase without policy or priority), which RUN_TO_PARITY then
// protects: one stretch of 10 ms. Unapplied, every stretch would stay 1 ms.
TEST(Eevdf, APhaseChangingOnlyTheCustomSliceIsApplied) {
  ScenarioOverrides o;
  o.policy = "eevdf-6.12";
  o.duration_s = 0.06;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "A": {"loop": 1, "phases": {"p1": {"run": 20000},
                                  "p2": {"policy": "SCHED_OTHER", "dl-runtime": 10000,
                                         "run": 100000}}},
      "B": {"loop": -1, "run": 100000}}})",
                               o);
  std::vector<std::pair<double, std::string>> ins;
  for (const std::string& line : r.switch_ins()) {
    std::istringstream in(line);
    double ms = 0;
    int cpu = 0;
    std::string name;
    in >> ms >> cpu >> name;
    ins.emplace_back(ms, name);
  }
  // A stretch belongs to the first phase while A has run less than its 20 ms of work.
  double longest_before = 0, longest_after = 0, a_ran = 0;
  for (size_t i = 0; i + 1 < ins.size(); ++i) {
    if (ins[i].second != "A") continue;
    const double stretch = ins[i + 1].first - ins[i].first;
    double& longest = a_ran < 20 ? longest_before : longest_after;
    longest = std::max(longest, stretch);
    a_ran += stretch;
  }
  EXPECT_EQ(longest_before, 1.0);
  EXPECT_EQ(longest_after, 10.0);
}

// Property: after any sequence of arrivals, runs, preemptions, sleeps and wake-ups on
// one run queue, the weighted lags of the queued tasks (running one included) sum to
// zero: sum w_i (V - v_i) = 0, up to V's rounding down (less than one unit per weight).
TEST(Eevdf, LagsSumToZeroAfterAnySequence) {
  for (const char* preset : {"eevdf-6.6", "eevdf-6.12"}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      OneCpu s(preset);
      Rng rng(seed);
      Task* running = nullptr;
      std::vector<Task*> sleeping;
      for (int step = 0; step < 400; ++step) {
        switch (rng.below(4)) {
          case 0:
            if (s.tasks.size() < 12) {
              s.add(fmt::format("t{}", s.tasks.size()), 0, nullptr, rng.below(2) ? 0 : 5);
            }
            break;
          case 1:
            if (running) {
              s.run(*running, static_cast<Time>(1 + rng.below(3'000'000)));
              s.put_back(*running);
            }
            running = s.pick();
            break;
          case 2:
            if (running) {
              s.sleep(*running);
              sleeping.push_back(running);
              running = nullptr;
            }
            break;
          default:
            if (!sleeping.empty()) {
              const size_t i = rng.below(sleeping.size());
              s.wake(*sleeping[i]);
              sleeping.erase(sleeping.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        ASSERT_EQ(s.policy->check_invariants(), "") << preset << " seed " << seed;
        const int64_t v = s.policy->avg_vruntime_of(0);
        Int128 lag = 0;
        int64_t total = 0;
        for (const Task& t : s.tasks) {
          const bool on_rq = t.queued || t.on_cpu || s.policy->delayed(t.id);
          if (!on_rq) continue;
          const int64_t w = t.nice == 0 ? 1024 : 335;
          lag += static_cast<Int128>(v - s.policy->vruntime_of(t.id)) * w;
          total += w;
        }
        ASSERT_TRUE(total == 0 || (lag <= 0 && lag > -static_cast<Int128>(total)))
            << preset << " seed " << seed << " step " << step;
      }
    }
  }
}

// Run queues long enough for the deadline queue's tree form (past 4,096 entities), which
// drain back through the block form as the tasks finish: 9,000 one-shot tasks of 50 us and
// 20 periodic sleepers on 2 CPUs, with every invariant checked (the queue's order and
// summaries, the vruntime sums, the lags) and each one-shot task's CPU time exact.
TEST(Eevdf, QueuesPastTheTreeThresholdKeepTheirInvariants) {
  for (const char* preset : {"eevdf-6.6", "eevdf-6.12"}) {
    ScenarioOverrides o;
    o.policy = preset;
    const RunOutput r = run_text(R"({"machine": {"cpus": 2, "hz": 1000}, "global": {"duration": 1},
        "tasks": {"once": {"instance": 9000, "loop": 1, "run": 50},
                  "tick": {"instance": 20, "loop": -1, "run": 100, "sleep": 1000}}})",
                                 o);
    int finished = 0;
    for (const TaskMetrics& t : r.metrics.tasks)
      if (t.name.rfind("once", 0) == 0) {
        EXPECT_EQ(t.cpu_time_ns, 50'000) << t.name << " " << preset;
        ++finished;
      }
    EXPECT_EQ(finished, 9000) << preset;
  }
}

}  // namespace
}  // namespace schedlab::test
