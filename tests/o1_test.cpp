// O(1) of 2.6.22: timeslices by nice, the sleep_avg bonus and its ceiling, interactive
// reinsertion into the active array, and the expired-starvation limit. At 1000 Hz: nice
// 0 gets 100 ms slices, nice 5 75 ms; MAX_SLEEP_AVG is 1 s; a nice-0 task is interactive
// at priority 118 or better (DELTA 2); one long sleep lifts sleep_avg to the ceiling
// INTERACTIVE_SLEEP = 1000 x (5 + 2 + 1) / 10 - 1 = 799 ms: bonus 7, priority 118.
#include "policy/o1/o1.h"

#include <gtest/gtest.h>

#include <deque>

#include "harness.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

// Two hogs, nice 0 and nice 5, never sleep: sleep_avg 0, priorities 125 and 130, not
// interactive. A runs its 100 ms and expires, B its 75 ms, the arrays swap: 100:75.
TEST(O1, NiceZeroAndNiceFiveShareInTheRatioOfTheirTimeslices) {
  ScenarioOverrides o;
  o.policy = "o1";
  o.duration_s = 7;
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000, "priority": 5}}})",
                               o);
  const Lines s = r.switch_ins();
  EXPECT_EQ(Lines(s.begin(), s.begin() + 4), (Lines{"0 0 a", "100 0 b", "175 0 a", "275 0 b"}));
  EXPECT_EQ(r.task("a").cpu_time_ns, 4'000'000'000);
  EXPECT_EQ(r.task("b").cpu_time_ns, 3'000'000'000);
}

struct OneCpu : HandDriven<o1::O1> {
  OneCpu() : HandDriven("o1") {}
  // Runs the current task tick by tick until the policy asks to reschedule.
  void run_until_resched(Task& t) {
    while (ctx.pending.empty()) run(t, ctx.tick_ns());
    put_back(t);
  }
};

// A sleeps 900 ms: sleep_avg jumps to the 799 ms ceiling, not to the 1 s maximum, and
// its priority from 125 to 118. Meanwhile H, a hog, used its 100 ms and went to the
// expired array (at 100 ms). A then runs: every 40 ms (TIMESLICE_GRANULARITY at bonus
// 7) and at each end of its 100 ms slice it is put back into the active array, so H
// never runs; 1.1 s after H expired is still within STARVATION_LIMIT x 2 tasks.
TEST(O1, AnInteractiveSleeperKeepsItsBonusAndStaysActiveWhileAHogExpires) {
  OneCpu s;
  Task& a = s.add("A");
  Task& h = s.add("H");
  EXPECT_EQ(s.policy->prio_of(a.id), 125);  // no sleep yet: bonus -5
  ASSERT_EQ(s.pick(), &a);
  s.sleep(a);
  ASSERT_EQ(s.pick(), &h);
  s.run_until_resched(h);
  EXPECT_EQ(s.ctx.now(), 100'000'000);
  EXPECT_TRUE(s.policy->expired(h.id));
  s.ctx.set_now(900'000'000);
  s.wake(a, /*from_timer=*/true);
  EXPECT_EQ(s.policy->sleep_avg_of(a.id), 799'000'000);
  EXPECT_EQ(s.policy->prio_of(a.id), 118);
  ASSERT_EQ(s.pick(), &a);
  for (int round = 0; round < 6; ++round) {  // requeues at 40, ends at 100 ms, ...
    s.run_until_resched(a);
    ASSERT_FALSE(s.policy->expired(a.id)) << "round " << round;
    ASSERT_EQ(s.pick(), &a) << "round " << round;
  }
  EXPECT_EQ(s.ctx.now(), 1'200'000'000);
  EXPECT_EQ(s.policy->prio_of(a.id), 118);
  EXPECT_TRUE(s.policy->expired(h.id));
  EXPECT_EQ(s.policy->check_invariants(), "");
}

// Two interactive tasks hand the CPU to each other through semaphores (sync posts, as a
// pipe write before a read: the woken one does not preempt the poster), so one is always
// runnable; a hog, once expired, waits. After a 1 s nap (bonus 7) the pair runs from
// 1.1 s. Each expires after 100 ms of its own running; the first expiry (about 1.29 s)
// starts the starvation clock, and once more than STARVATION_LIMIT (1 s) x nr_running
// (2: one of the pair always sleeps) has passed, an expiring task goes to the expired
// array too, so the hog runs again at about 3.3 s. With the limit off it never does.
TEST(O1, TheStarvationLimitSendsInteractiveTasksToTheExpiredArray) {
  const std::string scenario = R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "h": {"loop": -1, "run": 100000},
      "i1": {"loop": -1, "phases": {"nap": {"loop": 1, "sleep": 1000000},
             "work": {"loop": 1000000, "run": 10000, "sem_post": {"ref": "s2", "sync": true},
                      "sem_wait": "s1"}}},
      "i2": {"loop": -1, "phases": {"nap": {"loop": 1, "sleep": 1000000},
             "work": {"loop": 1000000, "sem_wait": "s2", "run": 10000,
                      "sem_post": {"ref": "s1", "sync": true}}}}}})";
  auto hog_runs_after = [&](const char* limit) {
    ScenarioOverrides o;
    o.policy = "o1";
    o.duration_s = 5;
    o.params = {{"starvation_limit_ms", limit}};
    const RunOutput r = run_text(scenario, o);
    std::vector<double> at;
    for (const std::string& line : r.switch_ins()) {
      const double ms = std::stod(line);
      if (ms > 1100 && line.size() > 2 && line.substr(line.size() - 2) == " h") at.push_back(ms);
    }
    return at;
  };
  const std::vector<double> with_limit = hog_runs_after("1000");
  ASSERT_FALSE(with_limit.empty());
  EXPECT_GT(with_limit.front(), 3200);
  EXPECT_LT(with_limit.front(), 3400);
  EXPECT_TRUE(hog_runs_after("0").empty());
}

// Four hogs all start on CPU 0 of two (2.6.22 has no fork balancing at these levels);
// the idle CPU's balancing, run from the busy CPU's tick, pulls two of them within a few
// milliseconds, and each hog then gets half a CPU.
TEST(O1, TheLoadBalancerSpreadsHogsOverTheCpus) {
  ScenarioOverrides o;
  o.policy = "o1";
  o.duration_s = 10;
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "hz": 1000}, "tasks": {
      "h": {"instance": 4, "loop": -1, "run": 100000}}})",
                               o);
  for (const char* name : {"h-0", "h-1", "h-2", "h-3"}) {
    EXPECT_GE(r.task(name).cpu_time_ns, 4'990'000'000) << name;
    EXPECT_LE(r.task(name).cpu_time_ns, 5'000'000'000) << name;
  }
  EXPECT_EQ(r.metrics.migrations, 2u);
  EXPECT_LT(r.metrics.per_cpu[1].idle_ns, 10'000'000);
}

}  // namespace
}  // namespace schedlab::test
