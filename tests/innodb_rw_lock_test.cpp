// MySQL 5.1.45 InnoDB's rw-lock (src/sim/innodb_rw_lock.h): the state rules, and
// hand-computed schedules of the engine's innodb_rw_lock steps.
#include "sim/innodb_rw_lock.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"
#include "lock_holds.h"
#include "policy/registry.h"
#include "scenario/scenario.h"
#include "scenario_text.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

std::vector<Time> rw_waits(const RunOutput& r, const std::string& name) {
  return r.block_times(name, BlockReason::kInnodbRwLock);
}

// rw_lock_x_lock_low with readers in: the WAIT_EX reservation, which bars new readers
// (rw_lock_s_lock_low tests `writer` only) and which only its own writer turns into EX,
// once the readers are gone. The event is set by the last reader's unlock, and only if a
// waiter flagged `waiters`.
TEST(InnodbRwLock, AReservationBarsNewReadersAndTheLastReaderSignals) {
  InnodbRwLockState l;
  ASSERT_EQ(innodb_rw_try(l, 1, LwLockMode::kShared), RwTry::kGranted);
  ASSERT_EQ(innodb_rw_try(l, 2, LwLockMode::kShared), RwTry::kGranted);
  EXPECT_EQ(innodb_rw_try(l, 3, LwLockMode::kExclusive), RwTry::kWaitEx);
  EXPECT_EQ(l.writer, RwWriter::kWaitEx);
  EXPECT_EQ(innodb_rw_try(l, 4, LwLockMode::kShared), RwTry::kFailed);     // barred
  EXPECT_EQ(innodb_rw_try(l, 5, LwLockMode::kExclusive), RwTry::kFailed);  // not its own
  EXPECT_FALSE(innodb_rw_spin_over(l, 3, LwLockMode::kExclusive));         // readers still in
  EXPECT_FALSE(innodb_rw_spin_over(l, 4, LwLockMode::kShared));            // writer field busy
  l.waiters = true;  // 4 went to wait on the event
  bool signal = true;
  ASSERT_TRUE(innodb_rw_unlock(l, 1, signal));
  EXPECT_FALSE(signal);  // 2 still reads
  ASSERT_TRUE(innodb_rw_unlock(l, 2, signal));
  EXPECT_TRUE(signal);
  EXPECT_FALSE(l.waiters);
  EXPECT_TRUE(innodb_rw_spin_over(l, 3, LwLockMode::kExclusive));
  EXPECT_FALSE(innodb_rw_spin_over(l, 4, LwLockMode::kShared));
  ASSERT_EQ(innodb_rw_try(l, 3, LwLockMode::kExclusive), RwTry::kGranted);
  ASSERT_EQ(innodb_rw_try(l, 3, LwLockMode::kExclusive), RwTry::kGranted);  // recursion
  ASSERT_TRUE(innodb_rw_unlock(l, 3, signal));
  EXPECT_EQ(l.writer, RwWriter::kEx);  // one recursion left
  ASSERT_TRUE(innodb_rw_unlock(l, 3, signal));
  EXPECT_FALSE(signal);  // nobody flagged waiters since the last signal
  EXPECT_EQ(l.writer, RwWriter::kNotLocked);
  EXPECT_FALSE(innodb_rw_unlock(l, 3, signal));  // holds nothing now
}

// No spin rounds and no time under the mutex, so every failed try yields once, tries
// again and waits on the event. R1 reads 0-3 ms. W wants X at 1 ms: its reservation, then
// the event. R2 wants S at 2 ms: barred by the reservation, it waits too. R1's unlock at
// 3 ms sets the event: W tries first (X's loop starts with a try) and takes EX; R2 spins
// first, finds the writer field busy, tries, fails, and waits again (2 ms, 3 ms). W's
// unlock at 4 ms sets the event again and R2 reads 4-5 ms. Readers preferred (no
// reservation) would let R2 in at 2 ms and out at 3 ms.
TEST(InnodbRwLock, AWaitingWriterGoesBeforeALaterReader) {
  const RunOutput r = run_text(scenario(4, R"("tasks": {
      "R1": {"loop": 1, "innodb_rw_lock": {"ref": "L", "mode": "shared", "spin_rounds": 0},
             "run": 3000, "innodb_rw_unlock": "L"},
      "W": {"loop": 1, "delay": 1000, "innodb_rw_lock": "L", "run": 1000,
            "innodb_rw_unlock": "L"},
      "R2": {"loop": 1, "delay": 2000, "innodb_rw_lock": {"ref": "L", "mode": "shared"},
             "run": 1000, "innodb_rw_unlock": "L"}}})"));
  EXPECT_EQ(r.exit_ns("R1"), 3'000'000);
  EXPECT_EQ(r.exit_ns("W"), 4'000'000);
  EXPECT_EQ(r.exit_ns("R2"), 5'000'000);
  EXPECT_EQ(rw_waits(r, "W"), (std::vector<Time>{1'000'000}));
  EXPECT_EQ(rw_waits(r, "R2"), (std::vector<Time>{2'000'000, 3'000'000}));
  EXPECT_EQ(r.task("R2").cpu_time_ns, 1'000'000);  // asleep on the event: only its run
}

// The event wakes every waiter and hands the lock to none: X holds L 0-2 ms; three readers
// wait on the event from 0.5 ms. X's unlock wakes all three and all read 2-3 ms at once.
TEST(InnodbRwLock, AnUnlockWakesEveryWaiter) {
  const RunOutput r = run_text(scenario(4, R"("tasks": {
      "X": {"loop": 1, "innodb_rw_lock": {"ref": "L", "spin_rounds": 0}, "run": 2000,
            "innodb_rw_unlock": "L"},
      "R": {"instance": 3, "loop": 1, "delay": 500,
            "innodb_rw_lock": {"ref": "L", "mode": "shared"}, "run": 1000,
            "innodb_rw_unlock": "L"}}})"));
  for (const char* name : {"R-0", "R-1", "R-2"}) {
    EXPECT_EQ(r.exit_ns(name), 3'000'000) << name;
    EXPECT_EQ(rw_waits(r, name), (std::vector<Time>{500'000})) << name;
  }
}

// The spin ends when the field it watches frees, not when its rounds are spent: X holds L
// 0-1 ms; R wants S at 0.5 ms and spins 20 rounds of uniform 0..5 units of 100 us (about
// 5 ms; under 0.5 ms only if the 20 draws sum below 5, which this seed does not). So R
// spins 0.5-1 ms on its CPU, reads 1-2 ms, and never waits on the event.
TEST(InnodbRwLock, TheSpinEndsWhenTheWriterLeaves) {
  const RunOutput r = run_text(scenario(2, R"("tasks": {
      "X": {"loop": 1, "innodb_rw_lock": {"ref": "L", "delay_unit_ns": 100000}, "run": 1000,
            "innodb_rw_unlock": "L"},
      "R": {"loop": 1, "delay": 500, "innodb_rw_lock": {"ref": "L", "mode": "shared"},
            "run": 1000, "innodb_rw_unlock": "L"}}})"));
  EXPECT_EQ(r.exit_ns("R"), 2'000'000);
  EXPECT_EQ(r.task("R").cpu_time_ns, 1'500'000);
  EXPECT_TRUE(rw_waits(r, "R").empty());
}

// A writer's reservation spins on the reader count: R reads 0-1 ms, W wants X at 0.5 ms,
// reserves it and spins (the same long rounds) until R's unlock at 1 ms, then holds it
// 1-2 ms.
TEST(InnodbRwLock, AReservedWriterSpinsUntilTheReadersLeave) {
  const RunOutput r = run_text(scenario(2, R"("tasks": {
      "R": {"loop": 1, "innodb_rw_lock": {"ref": "L", "mode": "shared",
                                           "delay_unit_ns": 100000},
            "run": 1000, "innodb_rw_unlock": "L"},
      "W": {"loop": 1, "delay": 500, "innodb_rw_lock": "L", "run": 1000,
            "innodb_rw_unlock": "L"}}})"));
  EXPECT_EQ(r.exit_ns("W"), 2'000'000);
  EXPECT_EQ(r.task("W").cpu_time_ns, 1'500'000);
  EXPECT_TRUE(rw_waits(r, "W").empty());
}

// Under every policy, 3 writers and 5 readers on 4 CPUs, each 40 times, with spins long
// enough to matter (units of 1 us): every loop completes (the harness checks the engine's
// invariants) and no exclusive hold overlaps any other hold.
TEST(InnodbRwLock, ExclusiveHoldsNeverOverlapUnderEveryPolicy) {
  const std::string text = scenario(4, R"("tasks": {
      "x": {"instance": 3, "loop": 40, "innodb_rw_lock": {"ref": "L", "delay_unit_ns": 1000},
            "mark": "in_x", "run": 30, "mark1": "out", "innodb_rw_unlock": "L", "run1": 20},
      "s": {"instance": 5, "loop": 40, "innodb_rw_lock": {"ref": "L", "mode": "shared"},
            "mark": "in_s", "run": 50, "mark1": "out", "innodb_rw_unlock": "L", "run1": 10}}})");
  const Workload w = scenario_from_text(text, "t.json").workload;
  const int32_t in_x = w.marks.find("in_x"), in_s = w.marks.find("in_s"), out = w.marks.find("out");
  for (const PolicyInfo& policy : policy_registry()) {
    ScenarioOverrides o;
    o.policy = policy.name;
    const RunOutput r = run_text(text, o);
    LockHolds holds(in_x, in_s, out);
    for (const SchedEvent& e : r.events)
      if (e.type == EventType::kMark) holds.mark(e.task, e.arg, e.time);
    ASSERT_EQ(holds.size(), 8u * 40u) << policy.name;
    EXPECT_EQ(holds.exclusive_overlaps(), 0) << policy.name;
  }
}

TEST(InnodbRwLock, UnlockingALockNotHeldIsAWorkloadError) {
  try {
    run_text(scenario(1, R"("tasks": {"A": {"loop": 1, "innodb_rw_lock": "L",
        "innodb_rw_unlock": "L", "innodb_rw_unlock1": "L"}}})"));
    FAIL() << "expected a WorkloadError";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("unlocks InnoDB rw-lock 'L', which it does not hold"),
              std::string::npos)
        << e.what();
  }
}

// Two readers and a writer that each hold the lock for ever: the deadlock names the lock.
TEST(InnodbRwLock, ADeadlockNamesTheRwLock) {
  try {
    run_text(scenario(2, R"("tasks": {
        "R": {"loop": 1, "innodb_rw_lock": {"ref": "L", "mode": "shared", "spin_rounds": 0},
              "suspend": "never"},
        "W": {"loop": 1, "delay": 100, "innodb_rw_lock": "L"}}})"));
    FAIL() << "expected a WorkloadError";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("W waits for InnoDB rw-lock 'L' (1 readers, writer W)"),
              std::string::npos)
        << e.what();
  }
}

TEST(InnodbRwLock, TheReaderRejectsBadKeysAndConflictingSpinSettings) {
  auto error_of = [](const std::string& tasks) {
    try {
      scenario_from_text(scenario(1, tasks), "t.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"("tasks": {"A": {"innodb_rw_lock": {"ref": "L", "mode": "both"}}}})")
                .find("expected \"shared\" or \"exclusive\""),
            std::string::npos);
  EXPECT_NE(error_of(R"("tasks": {"A": {"innodb_rw_unlock": {"ref": "L", "mode": "shared"}}}})")
                .find("unknown key (ref, mutex_ns)"),
            std::string::npos);
  EXPECT_NE(error_of(R"("tasks": {"A": {"innodb_rw_lock": {"ref": "L", "spin_rounds": 5},
                                        "innodb_rw_unlock": "L",
                                        "innodb_rw_lock1": {"ref": "L", "spin_rounds": 6},
                                        "innodb_rw_unlock1": "L"}}})")
                .find("spin settings differ"),
            std::string::npos);
  EXPECT_NE(error_of(R"("tasks": {"A": {"innodb_rw_unlock": "L"}}})")
                .find("innodb_rw_unlock of 'L', which no task ever locks"),
            std::string::npos);
}

}  // namespace
}  // namespace schedlab::test
