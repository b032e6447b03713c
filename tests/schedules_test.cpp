// Exact schedules on small cases, computed by hand. Each expected line reads
// "time in ms, CPU, task switched in" ("idle" when the CPU goes idle).
#include <gtest/gtest.h>

#include "harness.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

std::string machine(int cpus) {
  return R"("machine": {"cpus": )" + std::to_string(cpus) + R"(, "hz": 1000}, )";
}

TEST(Schedules, TwoHogsUnderRoundRobinAlternateEverySlice) {
  // rr's slice is 10 ms; each hog needs 30 ms: A 0-10, B 10-20, A 20-30, ...
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "A": {"loop": 1, "run": 30000}, "B": {"loop": 1, "run": 30000}}})");
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 A", "10 0 B", "20 0 A", "30 0 B", "40 0 A", "50 0 B", "60 0 idle"}));
  EXPECT_EQ(r.task("A").switches_involuntary, 2u);
  EXPECT_EQ(r.task("A").wait_time_ns, 20'000'000);
  EXPECT_EQ(r.task("B").wait_time_ns, 30'000'000);
}

TEST(Schedules, SliceIsAParameter) {
  ScenarioOverrides o;
  o.params = {{"slice_ns", "5000000"}};
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "A": {"loop": 1, "run": 10000}, "B": {"loop": 1, "run": 10000}}})",
                               o);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 A", "5 0 B", "10 0 A", "15 0 B", "20 0 idle"}));
}

TEST(Schedules, FifoPriorityPreemptsAtOnceAndNormalWaitsForRt) {
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "other": {"loop": 1, "run": 5000},
      "low": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "run": 20000},
      "high": {"loop": 1, "policy": "SCHED_FIFO", "priority": 50, "delay": 5000, "run": 5000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 low", "5 0 high", "10 0 low", "25 0 other", "30 0 idle"}));
}

TEST(Schedules, RoundRobinRtTasksShareTheirPriorityEvery100ms) {
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "A": {"loop": 1, "policy": "SCHED_RR", "priority": 10, "run": 150000},
      "B": {"loop": 1, "policy": "SCHED_RR", "priority": 10, "run": 150000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 A", "100 0 B", "200 0 A", "250 0 B", "300 0 idle"}));
}

TEST(Schedules, RtTaskQueuedBehindAnotherIsPushedToAnIdleCpu) {
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "O": {"loop": 1, "run": 10000},
      "F1": {"loop": 1, "policy": "SCHED_FIFO", "priority": 50, "run": 10000},
      "F2": {"loop": 1, "policy": "SCHED_FIFO", "priority": 40, "run": 10000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 F1", "0 1 F2", "10 0 O", "10 1 idle", "20 0 idle"}));
}

TEST(Schedules, AffinityKeepsTasksOnTheirCpus) {
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "A": {"loop": 1, "cpus": [1], "run": 10000},
      "B": {"loop": 1, "cpus": [0], "run": 10000},
      "C": {"loop": 1, "cpus": [0], "run": 10000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 1 A", "0 0 B", "10 1 idle", "10 0 C", "20 0 idle"}));
  // C waited 10 ms, but only CPU 0 may run it: CPU 1 was not idle while runnable.
  EXPECT_EQ(r.metrics.per_cpu[1].idle_while_runnable_ns, 0);
  EXPECT_EQ(r.metrics.per_cpu[0].busy_ns, 20'000'000);
}

TEST(Schedules, PhaseAffinityMovesTheTask) {
  // rt-app tutorial example8: phases pinned to CPUs 0, 1, then the task's own CPU 2.
  const RunOutput r = run_text("{" + machine(3) + R"("tasks": {"t": {"cpus": [2], "loop": 1,
      "phases": {"p1": {"cpus": [0], "run": 1500}, "p2": {"cpus": [1], "run": 1500},
                 "p3": {"run": 1500}}}}})");
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 t", "1.5 0 idle", "1.5 1 t", "3 1 idle", "3 2 t", "4.5 2 idle"}));
  EXPECT_EQ(r.task("t").migrations, 2u);
}

TEST(Schedules, ContextSwitchTimeDelaysTheTaskAndCountsAsItsCpuTime) {
  // 1 ms per switch: A 0-3 (1 + 2), B 3-6. The analyzer sees the switch time inside the
  // task's run interval, as a recorded trace would.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "context_switch_ns": 1000000}, "tasks": {
      "A": {"loop": 1, "run": 2000}, "B": {"loop": 1, "run": 2000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 A", "3 0 B", "6 0 idle"}));
  EXPECT_EQ(r.task("A").cpu_time_ns, 3'000'000);
  EXPECT_EQ(r.task("B").wait_time_ns, 3'000'000);
}

TEST(Schedules, MigrationPaysACacheRefill) {
  // The phase change moves t from CPU 0 to CPU 1 with no time away: the full refill
  // (500 us across caches, 100 us within one) is added to its second burst.
  const std::string phases = R"("tasks": {"t": {"loop": 1, "phases": {
      "p1": {"cpus": [0], "run": 1500}, "p2": {"cpus": [1], "run": 1500}}}}})";
  const RunOutput apart = run_text(R"({"machine": {"cpus": 2, "migration_cost_ns": 500000,
      "topology": {"llc": [[0], [1]]}}, )" +
                                   phases);
  EXPECT_EQ(apart.switch_ins(), (Lines{"0 0 t", "1.5 0 idle", "1.5 1 t", "3.5 1 idle"}));
  const RunOutput shared = run_text(R"({"machine": {"cpus": 2, "migration_cost_ns": 500000,
      "shared_cache_migration_cost_ns": 100000}, )" +
                                    phases);
  EXPECT_EQ(shared.switch_ins(), (Lines{"0 0 t", "1.5 0 idle", "1.5 1 t", "3.1 1 idle"}));
}

TEST(Schedules, RunIsStretchedByLowCapacityButRuntimeIsNot) {
  // Capacity 512 = half speed: run 1000 us takes 2 ms; runtime 1000 us takes 1 ms.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "capacity": 512}, "tasks": {
      "t": {"loop": 1, "run": 1000, "runtime": 1000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 t", "3 0 idle"}));
}

TEST(Schedules, SleepRestartsFromTheEndOfTheRun) {
  const RunOutput r =
      run_text("{" + machine(1) + R"("tasks": {"t": {"loop": 3, "run": 2000, "sleep": 8000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 t", "2 0 idle", "10 0 t", "12 0 idle", "20 0 t",
                                   "22 0 idle", "30 0 t", "30 0 idle"}));
}

const char* kTimerTask = R"("tasks": {"t": {"loop": 1, "phases": {
    "late": {"run": 15000, "timer": {"ref": "unique", "period": 10000, "mode": "MODE"}},
    "steady": {"loop": 2, "run": 2000, "timer": {"ref": "unique", "period": 10000, "mode": "MODE"}}}}}})";

std::string timer_scenario(const std::string& mode) {
  std::string s = kTimerTask;
  for (size_t at; (at = s.find("MODE")) != std::string::npos;) s.replace(at, 4, mode);
  return "{" + machine(1) + s;
}

TEST(Schedules, RelativeTimerRestartsItsPeriodAfterAMiss) {
  // The first period (0-10) is missed at 15: the next periods end at 25 and 35.
  const RunOutput r = run_text(timer_scenario("relative"));
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 t", "17 0 idle", "25 0 t", "27 0 idle", "35 0 t", "35 0 idle"}));
}

TEST(Schedules, AbsoluteTimerKeepsItsGrid) {
  // Absolute mode keeps the 10 ms grid: after the miss the periods end at 20 and 30.
  const RunOutput r = run_text(timer_scenario("absolute"));
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 t", "17 0 idle", "20 0 t", "22 0 idle", "30 0 t", "30 0 idle"}));
}

// A forked thread's timer starts at rt-app's t_zero + delay (0 here), whenever it is
// forked; origin_ns (3 ms) moves the grid: boundaries at 13, 23 and 33 ms, not 10, 20, 30.
TEST(Schedules, ATimersOriginNsPlacesTheGridOfAForkedThread) {
  auto runs = [](const std::string& timer) {
    return run_text("{" + machine(1) + R"("tasks": {
        "m": {"loop": 1, "run": 4000, "fork": "w"},
        "w": {"instance": 0, "loop": 3, "run": 1000, "timer": )" +
                    timer + "}}}")
        .switch_ins();
  };
  EXPECT_EQ(runs(R"({"ref": "tick", "period": 10000, "origin_ns": 3000000})"),
            (Lines{"0 0 m", "4 0 w-0", "5 0 idle", "13 0 w-0", "14 0 idle", "23 0 w-0", "24 0 idle",
                   "33 0 w-0", "33 0 idle"}));
  EXPECT_EQ(runs(R"({"ref": "tick", "period": 10000})"),
            (Lines{"0 0 m", "4 0 w-0", "5 0 idle", "10 0 w-0", "11 0 idle", "20 0 w-0", "21 0 idle",
                   "30 0 w-0", "30 0 idle"}));
}

// rt-app's forked thread sleeps until t_zero + its delay when it starts before then; one
// forked later starts at once. m forks w (delay 5 ms) at 2 ms and again at 7 ms.
TEST(Schedules, AForkedThreadWaitsForItsDelayFromTheRunsStart) {
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "m": {"loop": 1, "run": 2000, "fork": "w", "sleep": 5000, "fork1": "w"},
      "w": {"instance": 0, "delay": 5000, "loop": 1, "run": 1000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 m", "2 0 w-0", "2 0 idle", "5 0 w-0", "6 0 idle", "7 0 m",
                                   "7 0 w-1", "8 0 idle"}));
}

// A forked thread first run after its delay has passed does not sleep (a clock_nanosleep to
// a time already past returns at once): m, SCHED_FIFO, forks w (delay 5 ms) and runs 10 ms
// first; w runs at 10 ms, as its creator's FIFO until its phase makes it SCHED_OTHER.
TEST(Schedules, AForkedThreadWhoseDelayHasPassedStartsAtOnce) {
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "m": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "fork": "w", "run": 10000},
      "w": {"instance": 0, "delay": 5000, "loop": 1, "run": 1000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 m", "10 0 w-0", "11 0 idle"}));
  EXPECT_EQ(r.task("w-0").sleep_time_ns, 0);
}

// rt-app keeps a phase's scheduling settings through the phases after it that set none
// (set_thread_param() of no sched_data), until one sets its own. Under eevdf (1 ms
// ticks, 0.75 ms slices): r is SCHED_FIFO in p1
// and so in p2, and runs 0-4 ms though the hog arrives at 1; SCHED_OTHER in p3, it
// shares the CPU with the hog tick by tick (4-8: 2 ms of it); FIFO again at its next p1,
// it runs 8-12 alone, then shares again until it exits at 16. Had p2 gone back to the
// task's own SCHED_OTHER, r would share from 2 ms.
TEST(Schedules, APhaseWithoutSettingsKeepsThoseOfThePhaseBefore) {
  ScenarioOverrides eevdf;
  eevdf.policy = "eevdf";
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "r": {"loop": 2, "phases": {
        "p1": {"policy": "SCHED_FIFO", "priority": 10, "run": 2000},
        "p2": {"run": 2000},
        "p3": {"policy": "SCHED_OTHER", "run": 2000}}},
      "hog": {"loop": 1, "delay": 1000, "run": 20000}}})",
                               eevdf);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 r", "4 0 hog", "5 0 r", "6 0 hog", "7 0 r", "12 0 hog",
                                   "13 0 r", "14 0 hog", "15 0 r", "16 0 hog", "32 0 idle"}));
}

TEST(Schedules, UnlockHandsTheMutexToTheWaiter) {
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "A": {"loop": 1, "lock": "m", "run": 5000, "unlock": "m"},
      "B": {"loop": 1, "delay": 1000, "lock": "m", "run": 1000, "unlock": "m"}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 A", "1 1 B", "1 1 idle", "5 1 B", "5 0 idle", "6 1 idle"}));
  EXPECT_EQ(r.task("B").sleep_time_ns, 4'000'000);
}

TEST(Schedules, SignalledWaiterRetakesTheMutexAfterTheSignaller) {
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "W": {"loop": 1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 1000},
      "S": {"loop": 1, "delay": 2000, "lock": "m", "signal": "c", "run": 3000, "unlock": "m"}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 W", "0 0 idle", "2 0 S", "5 1 W", "5 0 idle", "6 1 idle"}));
}

TEST(Schedules, BarrierFollowsRtAppTutorialExample7) {
  // The sequence in the comment of rt-app's tutorial/example7.json, one loop.
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "task0": {"loop": 1, "runtime1": 1000, "sleep1": 2000, "barrier1": "FIRST", "runtime2": 2000,
                "barrier2": "SECOND", "runtime3": 1000, "sleep3": 2000, "barrier3": "THIRD"},
      "task1": {"loop": 1, "runtime1": 2000, "barrier1": "FIRST", "runtime2": 1000, "sleep2": 2000,
                "barrier2": "SECOND", "runtime3": 2000, "barrier3": "THIRD"}}})");
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 task0", "0 1 task1", "1 0 idle", "2 1 idle", "3 0 task0", "3 1 task1",
                   "4 1 idle", "5 0 idle", "6 1 task1", "6 0 task0", "7 0 idle", "8 1 idle",
                   "9 0 task0", "9 1 task1", "9 0 idle", "9 1 idle"}));
}

TEST(Schedules, SuspendResumePingPongsAsTutorialExample4) {
  ScenarioOverrides o;
  o.duration_s = 0.035;
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "thread0": {"loop": -1, "run": 10000, "resume": "thread1", "suspend": "thread0"},
      "thread1": {"loop": -1, "run": 10000, "resume": "thread0", "suspend": "thread1"}}})",
                               o);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 thread0", "10 0 thread1", "20 0 thread0", "30 0 thread1"}));
  EXPECT_EQ(r.metrics.duration_ns, 35'000'000);
}

TEST(Schedules, ResumeWithNobodySuspendedIsLost) {
  // B resumes "x" before A suspends on it: A is never woken, a deadlock.
  EXPECT_THROW(run_text("{" + machine(2) + R"("tasks": {
      "A": {"loop": 1, "run": 2000, "suspend": "x"},
      "B": {"loop": 1, "run": 1000, "resume": "x"}}})"),
               WorkloadError);
}

// A wake-up that preempts its waker takes effect at the return of the waker's system call,
// before its next step: L's first resume wakes H, which runs and suspends on "r" before L
// resumes "r" (were L to go on first, that resume would be lost and H never woken).
TEST(Schedules, AWakerPreemptedByItsWakeUpStopsBeforeItsNextStep) {
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "H": {"loop": 1, "policy": "SCHED_FIFO", "priority": 50, "suspend": "q", "suspend2": "r",
            "run": 5000},
      "L": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "delay": 1000, "resume": "q",
            "resume2": "r", "run": 5000}}})");
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 H", "0 0 idle", "1 0 L", "1 0 H", "1 0 L", "1 0 H", "6 0 L", "11 0 idle"}));
  // With a 0.1 ms return from each wake-up's system call, L is switched out after it.
  const RunOutput slow = run_text(R"({"machine": {"cpus": 1, "hz": 1000,
      "wakeup_return_ns": 100000}, "tasks": {
      "H": {"loop": 1, "policy": "SCHED_FIFO", "priority": 50, "suspend": "q", "suspend2": "r",
            "run": 5000},
      "L": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "delay": 1000, "resume": "q",
            "resume2": "r", "run": 5000}}})");
  EXPECT_EQ(slow.switch_ins(), (Lines{"0 0 H", "0 0 idle", "1 0 L", "1.1 0 H", "1.1 0 L", "1.2 0 H",
                                      "6.2 0 L", "11.2 0 idle"}));
}

TEST(Schedules, ForkStartsANamedInstanceOfATemplate) {
  const RunOutput r = run_text("{" + machine(1) + R"("tasks": {
      "parent": {"loop": 1, "run": 1000, "fork": "child", "run2": 1000},
      "child": {"instance": 0, "loop": 1, "run": 500, "mark": "done"}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 parent", "2 0 child-0", "2.5 0 idle"}));
  int forks = 0;
  for (const SchedEvent& e : r.events) forks += e.type == EventType::kFork;
  EXPECT_EQ(forks, 1);
  EXPECT_EQ(r.metrics.marks.at("done").count, 1u);
  EXPECT_EQ(r.metrics.marks.at("done").first_ns, 2'500'000);
}

// Mark intervals are per task: A marks at 10, 20, 30 ms (intervals 10, 10), B at 5, 10,
// 15, 20 (5, 5, 5): five intervals, median 5 ms, max 10 ms. Taken across tasks, the
// marks would be 0 to 10 ms apart.
TEST(Schedules, MarkIntervalsAreMeasuredPerTask) {
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "A": {"loop": 3, "run": 10000, "mark": "frames"},
      "B": {"loop": 4, "run": 5000, "mark": "frames"}}})");
  const MarkMetrics& m = r.metrics.marks.at("frames");
  EXPECT_EQ(m.count, 7u);
  EXPECT_EQ(m.interval.count(), 5u);
  EXPECT_EQ(m.interval.percentile(0.5), 5'000'000);
  EXPECT_EQ(m.interval.max(), 10'000'000);
}

TEST(Schedules, SpinlockWaiterSpinsThenTakesTheLockOnRelease) {
  // A holds the spinlock 0-3 ms; B spins from 1 ms (budget 5 ms) and takes it at 3.
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "A": {"loop": 1, "spin_lock": "L", "run": 3000, "spin_unlock": "L"},
      "B": {"loop": 1, "delay": 1000, "spin_lock": {"ref": "L", "spin_ns": 5000000}, "run": 1000,
            "spin_unlock": "L"}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 A", "1 1 B", "3 0 idle", "4 1 idle"}));
  EXPECT_EQ(r.task("B").cpu_time_ns, 3'000'000);  // 2 ms spinning + 1 ms of work
}

TEST(Schedules, SpinlockWaiterSleepsWithBackoffWhenSpinningFails) {
  // B spins 1 ms (1-2), sleeps 1 ms (2-3), spins 1 ms (3-4), then sleeps a random
  // 1..2 ms; A releases at 5 while B sleeps, so B gets the lock on its next try.
  const RunOutput r = run_text("{" + machine(2) + R"("tasks": {
      "A": {"loop": 1, "spin_lock": "L", "run": 5000, "spin_unlock": "L"},
      "B": {"loop": 1, "delay": 1000, "spin_lock": {"ref": "L", "spin_ns": 1000000,
            "sleep_min_ns": 1000000}, "spin_unlock": "L"}}})");
  const Lines s = r.switch_ins();
  ASSERT_GE(s.size(), 6u);
  EXPECT_EQ(Lines(s.begin(), s.begin() + 5),
            (Lines{"0 0 A", "1 1 B", "2 1 idle", "3 1 B", "4 1 idle"}));
  EXPECT_EQ(r.task("B").cpu_time_ns, 2'000'000);
}

}  // namespace
}  // namespace schedlab::test
