// The analyzer on hand-made event streams, and the latency percentiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>

#include "analysis/analyzer.h"
#include "analysis/latency.h"
#include "machine/machine.h"

namespace schedlab {
namespace {

// Starts `a` on a run of `cpus` CPUs, as the engine does before any event.
void begin_run(Analyzer& a, int cpus) {
  RunInfo info;
  info.cpus = cpus;
  a.begin(info);
}

// Tells `a` of a task, as the engine or a trace reader does when one appears.
void add_task(Analyzer& a, TaskId id, std::string name, const CpuMask& allowed) {
  TaskInfo t;
  t.id = id;
  t.name = std::move(name);
  t.allowed = allowed;
  a.task_created(t);
}

TEST(LatencyStats, NearestRankWhileExact) {
  LatencyStats s;
  for (int v = 100; v >= 1; --v) s.add(v);
  EXPECT_EQ(s.percentile(0.50), 50);
  EXPECT_EQ(s.percentile(0.90), 90);
  EXPECT_EQ(s.percentile(0.99), 99);
  EXPECT_EQ(s.max(), 100);
}

TEST(LatencyStats, WithinItsStatedErrorAfterSpilling) {
  LatencyStats s;
  for (int64_t v = 1000; v < 11000; ++v) s.add(v);  // 10,000 samples: beyond the exact limit
  // Nearest rank r of the sorted samples is 999 + r. 5999 lies in [5984, 6016), a bucket
  // of 32 (2^12..2^13 in 128 steps): the percentile is 5984.
  EXPECT_EQ(s.percentile(0.50), 5984);
  for (const auto& [p, exact] : {std::pair{0.50, 5999.0}, {0.90, 9999.0}, {0.99, 10899.0}}) {
    const double got = static_cast<double>(s.percentile(p));
    EXPECT_LE(got, exact) << p;
    EXPECT_GE(got, exact * (1 - 1.0 / 128)) << p;
  }
  EXPECT_EQ(s.max(), 10999);
  EXPECT_EQ(s.percentile(0.0), 1000);  // never below the smallest sample
}

// Random sets (uniform, log-uniform from 0 to seconds, few distinct values), some merged
// from two: every percentile of the block is the exact nearest-rank value, or at most
// 1/128 below it once beyond the exact limit.
TEST(LatencyStats, PercentilesWithinTheStatedErrorOfExactValues) {
  std::mt19937_64 rng(7);
  int spilled = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 6000;
    const int kind = round % 3;
    std::vector<int64_t> all;
    LatencyStats a, b;
    for (size_t i = 0; i < n; ++i) {
      int64_t v = 0;
      if (kind == 0) v = static_cast<int64_t>(rng() % 2'000'000);
      if (kind == 1) v = static_cast<int64_t>((rng() >> 1) >> (rng() % 63)) % 4'000'000'000;
      if (kind == 2) v = static_cast<int64_t>(rng() % 5) * 1'000'003;
      all.push_back(v);
      (i % 3 == 0 ? b : a).add(v);
    }
    a.merge(b);
    spilled += n > LatencyStats::kExactLimit;
    std::sort(all.begin(), all.end());
    ASSERT_EQ(a.count(), n);
    ASSERT_EQ(a.min(), all.front());
    ASSERT_EQ(a.max(), all.back());
    for (double p : kPercentileBlock) {
      const auto rank =
          std::max<size_t>(1, static_cast<size_t>(std::ceil(p * static_cast<double>(n))));
      const int64_t exact = all[rank - 1], got = a.percentile(p);
      if (n <= LatencyStats::kExactLimit) {
        ASSERT_EQ(got, exact) << "round " << round << " p " << p;
      } else {
        ASSERT_LE(got, exact) << "round " << round << " p " << p;
        ASSERT_GE(static_cast<double>(got), static_cast<double>(exact) * (1 - 1.0 / 128))
            << "round " << round << " p " << p;
      }
    }
    // The block at once, and a list out of order with a repeat, give the same values.
    int64_t block[std::size(kPercentileBlock)];
    a.percentiles(kPercentileBlock, block);
    for (size_t i = 0; i < std::size(kPercentileBlock); ++i)
      ASSERT_EQ(block[i], a.percentile(kPercentileBlock[i])) << "round " << round << " i " << i;
    // A sorted list with repeats and both ends takes the nested selections (and the one
    // pass over the buckets): each value is the nearest rank's, exactly while exact.
    const double sorted[] = {0.0, 0.5, 0.5, 0.99, 1.0, 1.0};
    int64_t got_sorted[std::size(sorted)];
    a.percentiles(sorted, got_sorted);
    for (size_t i = 0; i < std::size(sorted); ++i) {
      const auto rank =
          std::max<size_t>(1, static_cast<size_t>(std::ceil(sorted[i] * static_cast<double>(n))));
      const int64_t exact = all[rank - 1];
      if (n <= LatencyStats::kExactLimit) {
        ASSERT_EQ(got_sorted[i], exact) << "round " << round << " i " << i;
      } else {
        ASSERT_LE(got_sorted[i], exact) << "round " << round << " i " << i;
        ASSERT_GE(static_cast<double>(got_sorted[i]), static_cast<double>(exact) * (1 - 1.0 / 128))
            << "round " << round << " i " << i;
      }
    }
    ASSERT_EQ(got_sorted[0], all.front());
    // Out of order, each is asked alone: the same values.
    const double mixed[] = {0.99, 0.5, 1.0, 0.0};
    int64_t got_mixed[std::size(mixed)];
    a.percentiles(mixed, got_mixed);
    EXPECT_EQ((std::vector<int64_t>(got_mixed, got_mixed + 4)),
              (std::vector<int64_t>{got_sorted[3], got_sorted[1], got_sorted[4], got_sorted[0]}));
  }
  EXPECT_GT(spilled, 100);
}

TEST(Analyzer, IdleWhileRunnableCountsWaitersThisCpuMayRun) {
  // 2 CPUs. A may run anywhere, C only on CPU 0, D only on CPU 1.
  //   0-10 A runs on CPU 0, C waits (CPU 1 idle, but C may not run there)
  //  10    A blocks, C runs
  //  15    A wakes and waits  -> CPU 1 idle while runnable from 15
  //  18    D wakes and waits  (overlaps A: counted once)
  //  20    C blocks, A runs; D still waits for CPU 1 until the end at 25
  // CPU 1: [15, 25) = 10 ms. CPU 0 is never idle.
  Analyzer a;
  begin_run(a, 2);
  CpuMask only0, only1;
  only0.set(0);
  only1.set(1);
  add_task(a, 0, "A", all_cpus(2));
  add_task(a, 1, "C", only0);
  add_task(a, 2, "D", only1);
  const Time ms = kNsPerMs;
  auto ev = [&](Time t, EventType type, CpuId cpu, TaskId task_id, TaskId other,
                uint8_t detail = 0) {
    a.event(SchedEvent{t, type, detail, cpu, task_id, other, 0, 0});
  };
  const auto blocked = static_cast<uint8_t>(PrevState::kBlocked);
  ev(0, EventType::kWakeupNew, 0, 0, kNoTask);
  ev(0, EventType::kWakeupNew, 0, 1, kNoTask);
  ev(0, EventType::kSwitch, 0, kNoTask, 0);
  ev(10 * ms, EventType::kSwitch, 0, 0, 1, blocked);
  ev(15 * ms, EventType::kWakeup, 0, 0, kNoTask);
  ev(18 * ms, EventType::kWakeupNew, 1, 2, kNoTask);
  ev(20 * ms, EventType::kSwitch, 0, 1, 0, blocked);
  a.end(25 * ms);
  const Metrics& m = a.metrics();
  EXPECT_EQ(m.per_cpu[1].idle_while_runnable_ns, 10 * ms);
  EXPECT_EQ(m.per_cpu[0].idle_while_runnable_ns, 0);
  EXPECT_EQ(m.per_cpu[1].idle_ns, 25 * ms);
  EXPECT_EQ(m.tasks[0].wait_time_ns, 5 * ms);
  EXPECT_EQ(m.tasks[0].wakeup_latency.max(), 5 * ms);
  EXPECT_EQ(m.tasks[2].wait_time_ns, 7 * ms);
}

// The per-task figures, kept between events in the task's track and written out at the
// end: times, switches, residency across a migration, a preemption never followed by a
// run, and a trace's woken task switched out as preempted without a switch-in between.
TEST(Analyzer, TaskFiguresAcrossMigrationsPreemptionsAndATracesOddOrder) {
  Analyzer a;
  begin_run(a, 2);
  add_task(a, 0, "A", all_cpus(2));
  add_task(a, 1, "B", all_cpus(2));
  const Time ms = kNsPerMs;
  auto ev = [&](Time t, EventType type, CpuId cpu, TaskId task_id, TaskId other,
                PrevState state = PrevState::kBlocked) {
    a.event(SchedEvent{t, type, static_cast<uint8_t>(state), cpu, task_id, other, 0, 0});
  };
  const PrevState preempted = PrevState::kPreempted;
  //  0- 4 A on CPU 0; preempted at 4 by B (B woken at 1: latency 3)
  //  4- 6 B on CPU 0, blocks at 6; A runs on CPU 1 from 7 (a migration), blocks at 9
  //  10   A woken; 12 A switched out as preempted by the trace (it never ran): its
  //       latency runs on from 10, its delay from 12; 15 A on CPU 1 until 16, preempted
  //       by B; A never runs again (its involuntary switch still counts)
  ev(0, EventType::kWakeupNew, 0, 0, kNoTask);
  ev(0, EventType::kSwitch, 0, kNoTask, 0);
  ev(1 * ms, EventType::kWakeupNew, 0, 1, kNoTask);
  ev(4 * ms, EventType::kSwitch, 0, 0, 1, preempted);
  ev(6 * ms, EventType::kSwitch, 0, 1, kNoTask);
  ev(7 * ms, EventType::kSwitch, 1, kNoTask, 0);
  ev(9 * ms, EventType::kSwitch, 1, 0, kNoTask);
  ev(10 * ms, EventType::kWakeup, 1, 0, kNoTask);
  ev(12 * ms, EventType::kSwitch, 0, 0, kNoTask, preempted);
  ev(15 * ms, EventType::kSwitch, 1, kNoTask, 0);
  ev(15 * ms, EventType::kWakeup, 1, 1, kNoTask);
  ev(16 * ms, EventType::kSwitch, 1, 0, 1, preempted);
  a.end(20 * ms);
  const TaskMetrics& ta = a.metrics().tasks[0];
  EXPECT_EQ(ta.cpu_time_ns, 7 * ms);             // 0-4, 7-9, 15-16
  EXPECT_EQ(ta.wait_time_ns, (3 + 5 + 4) * ms);  // 4-7, 10-15, 16-20
  EXPECT_EQ(ta.sleep_time_ns, 1 * ms);           // 9-10
  EXPECT_EQ(ta.cpu_residency.dense(2), (std::vector<Time>{4 * ms, 3 * ms}));
  EXPECT_EQ(ta.switches_voluntary, 1u);        // at 9
  EXPECT_EQ(ta.switches_involuntary, 3u);      // at 4, 12 and 16
  EXPECT_EQ(ta.wakeup_latency.max(), 5 * ms);  // woken at 10, ran at 15
  EXPECT_EQ(ta.preempted_gaps, 2u);            // 4-7 and 12-15
  EXPECT_EQ(ta.preempted_gap_total_ns, 6 * ms);
  EXPECT_EQ(ta.delays, 3u);  // 0-0 (its first run), 4-7, 12-15
  EXPECT_EQ(ta.delay_total_ns, 6 * ms);
  EXPECT_EQ(ta.delay_max_ns, 3 * ms);
  EXPECT_EQ(ta.delay_max_start_ns, 4 * ms);  // the first of the two equal ones
  EXPECT_EQ(ta.delay_max_end_ns, 7 * ms);
  const TaskMetrics& tb = a.metrics().tasks[1];
  EXPECT_EQ(tb.cpu_time_ns, 2 * ms + 4 * ms);  // 4-6, 16-20
  EXPECT_EQ(tb.wakeup_latency.max(), 3 * ms);
  EXPECT_EQ(tb.switches_voluntary, 1u);
}

// A task's residency is added a batch of migrations at a time: across many batches, and
// with the last batch only part full at the end, it is what the task ran on each CPU.
TEST(Analyzer, ResidencyAcrossManyMigrations) {
  Analyzer a;
  begin_run(a, 3);
  add_task(a, 0, "A", all_cpus(3));
  const Time us = kNsPerUs;
  a.event(SchedEvent{0, EventType::kWakeupNew, 0, 0, 0, kNoTask, 0, 0});
  std::vector<Time> want(3, 0);
  Time now = 0;
  for (int k = 0; k < 1999; ++k) {  // runs k + 1 us on CPU k % 3, then 1 us asleep
    const CpuId cpu = k % 3;
    const auto blocked = static_cast<uint8_t>(PrevState::kBlocked);
    a.event(SchedEvent{now, EventType::kSwitch, 0, cpu, kNoTask, 0, 0, 0});
    now += (k + 1) * us;
    want[static_cast<size_t>(cpu)] += (k + 1) * us;
    a.event(SchedEvent{now, EventType::kSwitch, blocked, cpu, 0, kNoTask, 0, 0});
    now += us;
    a.event(SchedEvent{now, EventType::kWakeup, 0, cpu, 0, kNoTask, 0, 0});
  }
  a.end(now);
  EXPECT_EQ(a.metrics().tasks[0].cpu_residency.dense(3), want);
  EXPECT_EQ(a.metrics().tasks[0].cpu_time_ns, want[0] + want[1] + want[2]);
}

TEST(Machine, MigrationPenaltyDecaysWithTimeAway) {
  Machine m = make_machine(4);
  m.llc_of = {0, 0, 1, 1};
  m.core_of = {0, 0, 1, 2};  // CPUs 0 and 1 are SMT siblings
  m.migration_cost_ns = 500'000;
  m.shared_cache_migration_cost_ns = 100'000;
  m.cache_decay_ns = 10 * kNsPerMs;
  EXPECT_EQ(m.migration_penalty(0, 2, 0), 500'000);
  EXPECT_EQ(m.migration_penalty(0, 2, 10 * kNsPerMs), 250'000);  // cost * 10 / (10 + 10)
  EXPECT_EQ(m.migration_penalty(2, 3, 30 * kNsPerMs), 25'000);   // 100 us * 10 / 40
  EXPECT_EQ(m.migration_penalty(0, 1, 0), 0);                    // same core
  EXPECT_EQ(m.migration_penalty(kNoCpu, 1, 0), 0);               // first run
}

}  // namespace
}  // namespace schedlab
