// Staircase Deadline 0.46: the slot matrix, quotas per major rotation, nice through the
// number of slots, minor rotation, and the epoch rule for sleepers. One CPU, so
// rr_interval is 8 ms unscaled; nice 0 has the 20 odd levels, nice 10 the 10 levels
// 3, 7, ..., 39, nice 19 only level 39.
#include "policy/sd/sd.h"

#include <gtest/gtest.h>

#include <bit>

#include "harness.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

TEST(Sd, PrioMatrixGivesNiceNTwentyMinusNSlotsAndEveryoneTheLastLevel) {
  for (int k = 0; k < sd::kLevels; ++k) {
    EXPECT_EQ(std::popcount(sd::prio_matrix(k)), 40 - k) << "nice " << k - 20;
    EXPECT_TRUE((sd::prio_matrix(k) >> 39) & 1) << "nice " << k - 20;
  }
  EXPECT_EQ(sd::prio_matrix(0), (uint64_t{1} << 40) - 1);  // nice -20: every level
  EXPECT_EQ(sd::prio_matrix(20), 0xAAAAAAAAAAull);         // nice 0: 1, 3, ..., 39
  EXPECT_EQ(sd::prio_matrix(30), 0x8888888888ull);         // nice 10: 3, 7, ..., 39
  EXPECT_EQ(sd::prio_matrix(35), 0x8080808080ull);         // nice 15: 7, 15, ..., 39
  EXPECT_EQ(sd::prio_matrix(39), uint64_t{1} << 39);       // nice 19: 39 only
}

// Three nice-0 hogs: each level holds 3 x 8 ms; they take turns of 8 ms, level by level,
// and a major rotation every 20 levels x 3 x 8 ms = 480 ms starts again with a.
TEST(Sd, EqualHogsEachGetTheirQuotaPerMajorRotation) {
  ScenarioOverrides o;
  o.policy = "sd";
  o.duration_s = 3;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000},
      "c": {"loop": -1, "run": 100000}}})",
                               o);
  const Lines s = r.switch_ins();
  ASSERT_GE(s.size(), 62u);
  EXPECT_EQ(Lines(s.begin(), s.begin() + 4), (Lines{"0 0 a", "8 0 b", "16 0 c", "24 0 a"}));
  EXPECT_EQ(Lines(s.begin() + 59, s.begin() + 62), (Lines{"472 0 c", "480 0 a", "488 0 b"}));
  for (const char* name : {"a", "b", "c"}) EXPECT_EQ(r.task(name).cpu_time_ns, 1'000'000'000);
}

// Nice 0, 10 and 19 hogs hold 20, 10 and 1 slots: an epoch is 31 x 8 = 248 ms. In 3 s,
// 12 epochs (2976 ms) give 1920 / 960 / 96 ms; the 24 ms left go to a on level 1, then
// b and a on level 3 (b waited there since the rotation): 1936 / 968 / 96.
TEST(Sd, NiceSetsHowManyLevelsATaskGetsQuotaOn) {
  ScenarioOverrides o;
  o.policy = "sd";
  o.duration_s = 3;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000, "priority": 10},
      "c": {"loop": -1, "run": 100000, "priority": 19}}})",
                               o);
  EXPECT_EQ(r.task("a").cpu_time_ns, 1'936'000'000);
  EXPECT_EQ(r.task("b").cpu_time_ns, 968'000'000);
  EXPECT_EQ(r.task("c").cpu_time_ns, 96'000'000);
  const Lines s = r.switch_ins();
  EXPECT_EQ(Lines(s.begin(), s.begin() + 3), (Lines{"0 0 a", "8 0 b", "16 0 a"}));
}

struct OneCpu : HandDriven<sd::StaircaseDeadline> {
  OneCpu() : HandDriven("sd") {}
  void run_until_resched(Task& t) {
    while (ctx.pending.empty()) run(t, ctx.tick_ns());
  }
};

// S runs 2 ms of its level-1 quota and sleeps; H uses its own 8 ms on level 1 and moves
// on to level 3. S wakes in the same epoch: it is back on level 1 with its 6 ms and
// preempts H. Once those are used it steps down to where its peer H is, level 3, behind
// H, and no longer preempts.
TEST(Sd, ASleeperWakingInTheSameEpochKeepsItsPlaceAndQuota) {
  OneCpu s;
  Task& sleeper = s.add("S");
  Task& hog = s.add("H");
  ASSERT_EQ(s.pick(), &sleeper);
  s.run(sleeper, 2'000'000);
  s.sleep(sleeper);
  ASSERT_EQ(s.pick(), &hog);
  s.run_until_resched(hog);
  s.put_back(hog);
  EXPECT_EQ(s.ctx.now(), 10'000'000);
  EXPECT_EQ(s.policy->level_of(hog.id), 3);
  ASSERT_EQ(s.pick(), &hog);
  s.run(hog, 3'000'000);

  s.wake(sleeper);
  EXPECT_EQ(s.policy->level_of(sleeper.id), 1);
  EXPECT_EQ(s.policy->quota_left(sleeper.id), 6'000'000);
  s.policy->check_preempt(0, hog, sleeper, WakeInfo{WakeKind::kWakeup, 0, false, kNoTask});
  EXPECT_EQ(s.ctx.pending.count(0), 1u);
  s.put_back(hog);
  ASSERT_EQ(s.pick(), &sleeper);
  s.run_until_resched(sleeper);
  s.put_back(sleeper);
  EXPECT_EQ(s.ctx.now(), 19'000'000);
  EXPECT_EQ(s.policy->level_of(sleeper.id), 3);
  EXPECT_EQ(s.pick(), &hog);  // H was on level 3 first
  s.run(hog, 1'000'000);
  s.sleep(sleeper);
  s.wake(sleeper);  // still level 3, quota left: no better than H
  s.policy->check_preempt(0, hog, sleeper, WakeInfo{WakeKind::kWakeup, 0, false, kNoTask});
  EXPECT_TRUE(s.ctx.pending.empty());
  EXPECT_EQ(s.policy->check_invariants(), "");
}

// The same return as a SCHED_BATCH task: it gets its level back but does not preempt.
TEST(Sd, ABatchTaskNeverPreemptsOnWakeUp) {
  OneCpu s;
  Task& sleeper = s.add("S");
  Task& hog = s.add("H");
  sleeper.policy = SchedPolicy::kBatch;
  ASSERT_EQ(s.pick(), &sleeper);
  s.run(sleeper, 2'000'000);
  s.sleep(sleeper);
  ASSERT_EQ(s.pick(), &hog);
  s.run_until_resched(hog);
  s.put_back(hog);
  ASSERT_EQ(s.pick(), &hog);
  s.wake(sleeper);
  EXPECT_EQ(s.policy->level_of(sleeper.id), 1);
  EXPECT_LT(s.policy->level_of(sleeper.id), s.policy->level_of(hog.id));
  s.policy->check_preempt(0, hog, sleeper, WakeInfo{WakeKind::kWakeup, 0, false, kNoTask});
  EXPECT_TRUE(s.ctx.pending.empty());
}

// A runs 8.5 ms before the tick that ends its quota: level 1 is left with 7.5 ms. B uses
// them and the level's quota runs out while B still has 0.5 ms of its own: the minor
// rotation pushes B to level 3 with a fresh 8 ms quota.
TEST(Sd, ALevelWhoseQuotaIsUsedUpPushesItsTasksDown) {
  OneCpu s;
  Task& a = s.add("A");
  Task& b = s.add("B");
  ASSERT_EQ(s.pick(), &a);
  s.run(a, 8'500'000);
  EXPECT_EQ(s.ctx.pending.count(0), 1u);
  s.put_back(a);
  EXPECT_EQ(s.policy->level_of(a.id), 3);
  ASSERT_EQ(s.pick(), &b);
  s.run(b, 7'000'000);
  EXPECT_TRUE(s.ctx.pending.empty());
  s.run(b, 500'000);
  EXPECT_EQ(s.ctx.pending.count(0), 1u);
  EXPECT_EQ(s.policy->level_of(b.id), 3);
  EXPECT_EQ(s.policy->quota_left(b.id), 8'000'000);
  s.put_back(b);
  EXPECT_EQ(s.pick(), &a);
  EXPECT_EQ(s.policy->check_invariants(), "");
}

// Every slot of the only task used: it expires, the arrays swap and a new epoch hands
// it level 1 again.
TEST(Sd, ATaskWithNoSlotLeftStartsTheNextEpoch) {
  OneCpu s;
  Task& a = s.add("A");
  for (int slot = 0; slot < 20; ++slot) {
    ASSERT_EQ(s.pick(), &a);
    s.run_until_resched(a);
    s.put_back(a);
  }
  EXPECT_EQ(s.ctx.now(), 160'000'000);
  EXPECT_EQ(s.policy->epoch(0), 0);
  ASSERT_EQ(s.pick(), &a);
  EXPECT_EQ(s.policy->epoch(0), 1);
  EXPECT_EQ(s.policy->level_of(a.id), 1);
  EXPECT_EQ(s.policy->quota_left(a.id), 8'000'000);
}

}  // namespace
}  // namespace schedlab::test
