// Staircase Deadline as 2.6.21-ck1 carries it (src/policy/sd/sd.h): the slot matrix,
// quotas per nice, the staircase of slots, the rotations and the accounting in whole
// microseconds (a switch at the instant of a tick is charged 1 us: update_cpu_clock()).
// One CPU, so rr_interval is 8 ms unscaled: nice 0 has 8 ms on each of the 20 odd levels,
// nice 10 4 ms on each of the 10 levels 3, 7, ..., 39, nice 19 4 ms on level 39.
#include "policy/sd/sd.h"

#include <gtest/gtest.h>

#include <bit>

#include "harness.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

// sched_init()'s rows (set bits are slots; the kernel's comment marks them 0): the
// comment's rows for nice 0, 10, 15 and 19; nice -10 as the loop makes it (levels 0, 3,
// 7, ..., 35 left out), not as the comment draws it; nice -20 every level.
TEST(Sd, PrioMatrixIsTheRowsSchedInitGenerates) {
  for (int k = 0; k < sd::kLevels; ++k) {
    EXPECT_EQ(std::popcount(sd::prio_matrix(k)), 40 - k) << "nice " << k - 20;
    EXPECT_TRUE((sd::prio_matrix(k) >> 39) & 1) << "nice " << k - 20;
  }
  EXPECT_EQ(sd::prio_matrix(0), (uint64_t{1} << 40) - 1);  // nice -20: every level
  EXPECT_EQ(sd::prio_matrix(10), 0xF777777776ull);         // nice -10
  EXPECT_EQ(sd::prio_matrix(20), 0xAAAAAAAAAAull);         // nice 0: 1, 3, ..., 39
  EXPECT_EQ(sd::prio_matrix(30), 0x8888888888ull);         // nice 10: 3, 7, ..., 39
  EXPECT_EQ(sd::prio_matrix(35), 0x8080808080ull);         // nice 15: 7, 15, ..., 39
  EXPECT_EQ(sd::prio_matrix(39), uint64_t{1} << 39);       // nice 19: 39 only
}

struct OneCpu : HandDriven<sd::StaircaseDeadline> {
  OneCpu() : HandDriven("sd") {}
  void run_until_resched(Task& t) {
    while (ctx.pending.empty()) run(t, ctx.tick_ns());
  }
};

// rr_quota() with rr_interval 8 ms: nice -20 8 x 400 / 40 = 80 ms, nice -10 20 ms, nice
// -7 8 x 49 / 40 = 9 ms (whole ms), nice -6 to 0 8 ms, nice 1 to 19 4 ms.
TEST(Sd, QuotaFollowsNice) {
  OneCpu s;
  const std::vector<std::pair<int, int64_t>> expected{
      {-20, 80'000}, {-10, 20'000}, {-7, 9'000}, {-6, 8'000}, {0, 8'000}, {1, 4'000}, {19, 4'000}};
  for (const auto& [nice, quota] : expected) {
    const Task& t = s.add(fmt::format("n{}", nice), 0, nullptr, nice);
    EXPECT_EQ(s.policy->quota_us(t.id), quota) << "nice " << nice;
  }
}

// Three nice-0 hogs: 8 ms turns, level by level; the first rotation is 20 levels x 3 x 8
// = 480 ms. From the expired array each task comes back on its first slot with its slots
// cleared and that slot not marked (queue_expired() sets no bit), so it takes level 1 twice
// in the second rotation: a, b, c at 480, 488, 496, and a again at 504.
TEST(Sd, EqualHogsTakeTurnsLevelByLevel) {
  ScenarioOverrides o;
  o.policy = "sd";
  o.duration_s = 3;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000},
      "c": {"loop": -1, "run": 100000}}})",
                               o);
  const Lines s = r.switch_ins();
  ASSERT_GE(s.size(), 64u);
  EXPECT_EQ(Lines(s.begin(), s.begin() + 4), (Lines{"0 0 a", "8 0 b", "16 0 c", "24 0 a"}));
  EXPECT_EQ(Lines(s.begin() + 59, s.begin() + 64),
            (Lines{"472 0 c", "480 0 a", "488 0 b", "496 0 c", "504 0 a"}));
  for (const char* name : {"a", "b", "c"}) EXPECT_EQ(r.task(name).cpu_time_ns, 1'000'000'000);
}

// Nice 0, 10 and 19 hogs: a has 8 ms on 20 levels, b 4 ms on 10, c 4 ms on level 39. The
// first rotation is 160 + 40 + 4 = 204 ms; the later ones, with each first slot taken
// twice, 168 + 44 + 8 = 220 ms. 3 s = 204 + 12 x 220 + 156: in those 156 ms a takes level 1
// twice (16), b, a, b level 3 (16), then a level 5, b and a level 7, and so on, 20 ms per
// two levels, up to level 27 (140 ms in all: a 112, b 28), and 4 ms of a's level 29.
// a 160 + 2016 + 124 = 2300, b 40 + 528 + 32 = 600, c 4 + 96 = 100 ms.
TEST(Sd, NiceSetsTheQuotaAndTheLevelsATaskGetsItOn) {
  ScenarioOverrides o;
  o.policy = "sd";
  o.duration_s = 3;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000, "priority": 10},
      "c": {"loop": -1, "run": 100000, "priority": 19}}})",
                               o);
  EXPECT_EQ(r.task("a").cpu_time_ns, 2'300'000'000);
  EXPECT_EQ(r.task("b").cpu_time_ns, 600'000'000);
  EXPECT_EQ(r.task("c").cpu_time_ns, 100'000'000);
  const Lines s = r.switch_ins();
  EXPECT_EQ(Lines(s.begin(), s.begin() + 4), (Lines{"0 0 a", "8 0 b", "12 0 a", "28 0 b"}));
}

// `interactive` (-ck's sysctl): a task new in the rotation may take any free slot of its
// row, not only those from where its nice level has got to. A and B (nice 0) take turns of
// 8 ms: levels 1, 1, 3, 3; S starts at 30 ms while B runs its level 3. Off: S joins at
// level 3 (prio_level), runs 32-40 after B and goes to level 5 behind A and B: 8 ms by 48
// ms. On: S takes level 1 and then level 3 before A and B get back: 16 ms by 48 ms.
TEST(Sd, InteractiveLetsANewTaskStartFromTheTop) {
  for (const auto& [interactive, cpu_ms] : {std::pair{"false", 8}, std::pair{"true", 16}}) {
    ScenarioOverrides o;
    o.policy = "sd";
    o.duration_s = 0.048;
    o.params = {{"interactive", interactive}};
    const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
        "A": {"loop": -1, "run": 100000}, "B": {"loop": -1, "run": 100000},
        "S": {"loop": -1, "delay": 30000, "run": 100000}}})",
                                 o);
    EXPECT_EQ(r.task("S").cpu_time_ns, cpu_ms * 1'000'000) << "interactive " << interactive;
  }
}

// S runs 2 ms of its level-1 quota and sleeps (the switch at the tick costs 1 us: 5999 us
// left); H uses its 8 ms on level 1 and moves to level 3. S wakes in the same rotation:
// back on level 1 with its 5999 us, it preempts H. Six ticks later it is at -1 us and
// steps down to level 3, where its peer H has got to, behind H, with 8000 - 1 us; woken
// there again it does not preempt H.
TEST(Sd, ASleeperWakingInTheSameRotationKeepsItsPlaceAndQuota) {
  OneCpu s;
  Task& sleeper = s.add("S");
  Task& hog = s.add("H");
  ASSERT_EQ(s.pick(), &sleeper);
  s.run(sleeper, 1'000'000);
  s.run(sleeper, 1'000'000);
  s.sleep(sleeper);
  ASSERT_EQ(s.pick(), &hog);
  s.run_until_resched(hog);
  s.put_back(hog);
  EXPECT_EQ(s.ctx.now(), 10'000'000);
  EXPECT_EQ(s.policy->level_of(hog.id), 3);
  ASSERT_EQ(s.pick(), &hog);
  s.run(hog, 1'000'000);

  s.wake(sleeper);
  EXPECT_EQ(s.policy->level_of(sleeper.id), 1);
  EXPECT_EQ(s.policy->quota_left_us(sleeper.id), 5'999);
  s.policy->check_preempt(0, hog, sleeper, WakeInfo{WakeKind::kWakeup, 0, false, kNoTask});
  EXPECT_EQ(s.ctx.pending.count(0), 1u);
  s.put_back(hog);
  ASSERT_EQ(s.pick(), &sleeper);
  s.run_until_resched(sleeper);
  s.put_back(sleeper);
  EXPECT_EQ(s.ctx.now(), 17'000'000);
  EXPECT_EQ(s.policy->level_of(sleeper.id), 3);
  EXPECT_EQ(s.policy->quota_left_us(sleeper.id), 7'998);
  EXPECT_EQ(s.pick(), &hog);  // H was on level 3 first
  s.run(hog, 1'000'000);
  s.sleep(sleeper);
  s.wake(sleeper);  // still level 3, quota left: no better than H
  s.policy->check_preempt(0, hog, sleeper, WakeInfo{WakeKind::kWakeup, 0, false, kNoTask});
  EXPECT_TRUE(s.ctx.pending.empty());
  EXPECT_EQ(s.policy->check_invariants(), "");
}

// sched_fork() and sched_exit(): P has 6000 us left after 2 ms; its child C takes half,
// P keeps 3000, and C, queued as a copy of P, stays on P's level 1. C exits without
// running: its 3000 us return to P, which is back at 6000 (at most its quota).
TEST(Sd, AChildSharesItsParentsQuotaAndReturnsWhatItLeft) {
  OneCpu s;
  Task& p = s.add("P");
  ASSERT_EQ(s.pick(), &p);
  s.run(p, 1'000'000);
  s.run(p, 1'000'000);
  Task& c = s.add("C", 0, &p);
  EXPECT_EQ(s.policy->quota_left_us(p.id), 3'000);
  EXPECT_EQ(s.policy->quota_left_us(c.id), 3'000);
  EXPECT_EQ(s.policy->level_of(c.id), 1);
  s.policy->dequeue(0, c, DequeueKind::kExit);
  s.policy->task_dead(c);
  EXPECT_EQ(s.policy->quota_left_us(p.id), 6'000);
}

// A started 0.5 ms before a tick: 500 us, then 1000 per tick; at 8.5 ms it is 500 us over,
// and that comes off its next quota: 7500 us on level 3.
TEST(Sd, AnOverrunComesOffTheNextQuota) {
  OneCpu s;
  Task& a = s.add("A");
  s.add("B");
  ASSERT_EQ(s.pick(), &a);
  s.run(a, 500'000);
  s.run_until_resched(a);
  EXPECT_EQ(s.ctx.now(), 8'500'000);
  EXPECT_EQ(s.policy->level_of(a.id), 3);
  EXPECT_EQ(s.policy->quota_left_us(a.id), 7'500);
}

// SCHED_BATCH takes every level from its static one down, outside the matrix: B (nice 0)
// starts on level 20, behind H's levels 1 to 19 (80 ms). Then B 20, H 21 (queued first),
// B 21, B 22 (better than H's 23), H 23.
TEST(Sd, ABatchTaskTakesTheLevelsFromItsStaticOneDown) {
  ScenarioOverrides o;
  o.policy = "sd";
  o.duration_s = 0.125;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "H": {"loop": -1, "run": 100000},
      "B": {"loop": -1, "run": 100000, "policy": "SCHED_BATCH"}}})",
                               o);
  const Lines s = r.switch_ins();
  ASSERT_GE(s.size(), 5u);
  EXPECT_EQ(Lines(s.begin(), s.begin() + 5),
            (Lines{"0 0 H", "80 0 B", "88 0 H", "96 0 B", "112 0 H"}));
}

// A nice-0 task yields: it goes to the expired array on its first slot. B (nice 10) then
// uses its 4 ms on level 3 and, a better nice having expired, goes straight to the expired
// array too, with 9 levels of its row unused; the arrays swap and A runs on level 1.
TEST(Sd, AWorseNiceExpiresOnceABetterOneHas) {
  OneCpu s;
  Task& a = s.add("A");
  Task& b = s.add("B", 0, nullptr, 10);
  ASSERT_EQ(s.pick(), &a);
  s.run(a, 1'000'000);
  s.policy->yield(0);
  s.put_back(a);
  EXPECT_TRUE(s.policy->expired(a.id));
  EXPECT_EQ(s.policy->level_of(a.id), 1);
  ASSERT_EQ(s.pick(), &b);
  EXPECT_EQ(s.policy->level_of(b.id), 3);
  s.run_until_resched(b);
  EXPECT_EQ(s.ctx.now(), 5'000'000);
  EXPECT_TRUE(s.policy->expired(b.id));
  s.put_back(b);
  EXPECT_EQ(s.policy->rotation(0), 0);
  ASSERT_EQ(s.pick(), &a);
  EXPECT_EQ(s.policy->rotation(0), 1);
  EXPECT_EQ(s.policy->check_invariants(), "");
}

// Going idle starts a new rotation (schedule(), next == idle): A runs 1 ms on level 1 and
// sleeps with 6999 us left; its CPU idles, so back it starts afresh: level 1, 8000 us.
TEST(Sd, GoingIdleStartsANewRotation) {
  OneCpu s;
  Task& a = s.add("A");
  ASSERT_EQ(s.pick(), &a);
  s.run(a, 1'000'000);
  s.sleep(a);
  EXPECT_EQ(s.policy->quota_left_us(a.id), 6'999);
  EXPECT_EQ(s.pick(), nullptr);
  EXPECT_EQ(s.policy->rotation(0), 1);
  s.wake(a);
  EXPECT_EQ(s.policy->level_of(a.id), 1);
  EXPECT_EQ(s.policy->quota_left_us(a.id), 8'000);
}

// Every slot of the only task used (8 ticks each; each switch at a tick costs 1 us, which
// carries into the next quota as an overrun): it expires, the arrays swap and the next
// rotation hands it level 1 again with 8000 - 20 us.
TEST(Sd, ATaskWithNoSlotLeftStartsTheNextRotation) {
  OneCpu s;
  Task& a = s.add("A");
  for (int slot = 0; slot < 20; ++slot) {
    ASSERT_EQ(s.pick(), &a);
    s.run_until_resched(a);
    s.put_back(a);
  }
  EXPECT_EQ(s.ctx.now(), 160'000'000);
  EXPECT_EQ(s.policy->rotation(0), 0);
  ASSERT_EQ(s.pick(), &a);
  EXPECT_EQ(s.policy->rotation(0), 1);
  EXPECT_EQ(s.policy->level_of(a.id), 1);
  EXPECT_EQ(s.policy->quota_left_us(a.id), 7'980);
}

}  // namespace
}  // namespace schedlab::test
