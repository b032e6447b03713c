// SCHED_DEADLINE: schedules computed by hand (CBS budgets, throttling at ticks, global
// EDF through push and pull), deadlines met and missed, admission control, and the place
// of the deadline class above RT and the normal class. Lines read "time in ms, CPU, task
// switched in".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "cli_harness.h"
#include "harness.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

RunOutput run_dl(const std::string& tasks, int cpus, double seconds) {
  ScenarioOverrides o;
  o.policy = "eevdf";
  o.duration_s = seconds;
  return run_text(R"({"machine": {"cpus": )" + std::to_string(cpus) +
                      R"(, "hz": 1000}, "tasks": {)" + tasks + "}}",
                  o);
}

// A periodic deadline task: `run` us of work, then sleep to the next `period` boundary.
std::string periodic(const std::string& name, int runtime_us, int deadline_us, int period_us,
                     int run_us) {
  return "\"" + name + R"(": {"policy": "SCHED_DEADLINE", "dl-runtime": )" +
         std::to_string(runtime_us) + R"(, "dl-deadline": )" + std::to_string(deadline_us) +
         R"(, "dl-period": )" + std::to_string(period_us) + R"(, "loop": -1, "run": )" +
         std::to_string(run_us) + R"(, "timer": {"ref": "unique", "period": )" +
         std::to_string(period_us) + "}}";
}

// Utilisation 0.3 + 0.5 + 0.5 + 0.2 + 0.25 = 1.75 of 2 CPUs (admitted: below 1.9). Every
// job of every task ends before its deadline, in all 100 periods of one second.
TEST(Deadline, ASchedulablePeriodicSetOnTwoCpusMeetsEveryDeadline) {
  const RunOutput r = run_dl(
      periodic("a", 3000, 10000, 10000, 3000) + "," + periodic("b", 5000, 10000, 10000, 5000) +
          "," + periodic("c", 5000, 10000, 10000, 5000) + "," +
          periodic("d", 2000, 10000, 10000, 2000) + "," + periodic("e", 5000, 20000, 20000, 5000) +
          R"(, "hog": {"loop": -1, "run": 100000})",
      2, 1.0);
  for (const char* name : {"a", "b", "c", "d"}) {
    EXPECT_EQ(r.task(name).dl_jobs, 100u) << name;
    EXPECT_EQ(r.task(name).deadline_misses, 0u) << name;
  }
  EXPECT_EQ(r.task("e").dl_jobs, 50u);
  EXPECT_EQ(r.task("e").deadline_misses, 0u);
  EXPECT_EQ(r.task("a").cpu_time_ns, 300'000'000);
  EXPECT_EQ(r.task("e").cpu_time_ns, 250'000'000);
}

// One CPU. "over" reserves 2 ms every 10 ms but wants 5 ms per period: it runs 0-2 ms and
// is throttled until its next period, in every period, so its jobs end late. "ok"
// (3 ms of its 4 ms) runs 2-5 and meets every deadline; the normal hog gets 5-10.
TEST(Deadline, AnOverrunningTaskIsThrottledAndTheOthersStillMeetTheirDeadlines) {
  const RunOutput r = run_dl(periodic("over", 2000, 10000, 10000, 5000) + "," +
                                 periodic("ok", 4000, 10000, 10000, 3000) +
                                 R"(, "hog": {"loop": -1, "run": 100000})",
                             1, 0.1);
  const Lines lines = r.switch_ins();
  EXPECT_EQ(
      Lines(lines.begin(), lines.begin() + 7),
      (Lines{"0 0 over", "2 0 ok", "5 0 hog", "10 0 over", "12 0 ok", "15 0 hog", "20 0 over"}));
  EXPECT_EQ(r.task("over").cpu_time_ns, 20'000'000);
  EXPECT_EQ(r.task("ok").deadline_misses, 0u);
  EXPECT_EQ(r.task("ok").dl_jobs, 10u);
  // 5 ms of work at 2 ms per period: the first job ends at 21 ms (due 10); its timer
  // period is over, so the next starts at once (due 31) and ends at 42, then 42-71
  // (due 52) and 71-92 (due 81); the one open at the end is not due yet: four misses.
  EXPECT_EQ(r.task("over").dl_jobs, 4u);
  EXPECT_EQ(r.task("over").deadline_misses, 4u);
}

// Without HRTICK_DL the budget is enforced at ticks: a 2.5 ms budget runs to the 3 ms
// tick (0.5 ms over), so the next period starts with 2 ms (replenishment adds 2.5 ms to
// -0.5 ms), and is used up exactly at 12 ms; then 20-23 again.
TEST(Deadline, ABudgetOverrunUpToTheTickIsChargedToTheNextPeriod) {
  const RunOutput r = run_dl(
      periodic("over", 2500, 10000, 10000, 50000) + R"(, "hog": {"loop": -1, "run": 100000})", 1,
      0.029);
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 over", "3 0 hog", "10 0 over", "12 0 hog", "20 0 over", "23 0 hog"}));
}

// A deadline task preempts a SCHED_FIFO 99 task at once; RT then runs before the normal
// task.
TEST(Deadline, ADeadlineTaskPreemptsRtAndNormalTasks) {
  const RunOutput r = run_dl(R"("normal": {"loop": 1, "run": 5000},
      "fifo": {"loop": 1, "policy": "SCHED_FIFO", "priority": 99, "run": 10000},
      "dl": {"loop": 1, "policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 10000,
             "delay": 4000, "run": 3000})",
                             1, 1.0);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 fifo", "4 0 dl", "7 0 fifo", "13 0 normal", "18 0 idle"}));
}

// Global EDF by push: three deadline tasks arrive together on CPU 0 of two. The earliest
// (a, due 5 ms) runs there, b (due 8) is pushed to idle CPU 1, and c (due 10) waits for
// the first of them to finish, as no CPU runs anything due later.
TEST(Deadline, TasksArrivingTogetherArePushedToRunEarliestDeadlinesFirst) {
  const RunOutput r =
      run_dl(periodic("a", 2000, 5000, 10000, 2000) + "," + periodic("b", 3000, 8000, 10000, 3000) +
                 "," + periodic("c", 3000, 10000, 10000, 3000),
             2, 0.009);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 a", "0 1 b", "2 0 c", "3 1 idle", "5 0 idle"}));
}

// Global EDF by pull: b (due 6) leaves CPU 1 at 1 ms, which pulls c (due 7), queued
// behind a (due 5) on CPU 0.
TEST(Deadline, ACpuLeftByADeadlineTaskPullsOneWaitingElsewhere) {
  const RunOutput r =
      run_dl(periodic("a", 4000, 5000, 10000, 4000) + "," + periodic("b", 1000, 6000, 10000, 1000) +
                 "," + periodic("c", 2000, 7000, 10000, 2000),
             2, 0.009);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 a", "0 1 b", "1 1 c", "3 1 idle", "4 0 idle"}));
  EXPECT_EQ(r.task("c").migrations, 1u);
}

// A lone deadline task throttled beside a hog pinned to each of 2 CPUs (HZ 1000), by hand:
// "dl" (runtime 1 ms, period 10 ms) has 3 ms of work; it runs from 0 on CPU 0, is
// throttled at the 1 ms tick and replenished at 10 and at 20 ms. Each replenishment queues
// it behind the hog it will preempt, and 6.12's push_dl_task moves it to the CPU that runs
// no deadline task (from 6.7, 5fe7765997b1): it runs at 10 ms on CPU 1 and at 20 ms on CPU
// 0 again. 6.6's pushes only from a queue of two or more: it stays on CPU 0.
TEST(Deadline, From67AReplenishedLoneTaskIsPushedToACpuRunningNoDeadlineTask) {
  auto dl_runs = [](const std::string& policy) {
    ScenarioOverrides o;
    o.policy = policy;
    o.duration_s = 0.03;
    const RunOutput r = run_text(R"({"machine": {"cpus": 2, "hz": 1000}, "tasks": {
        "h0": {"cpus": [0], "loop": 1, "run": 30000},
        "h1": {"cpus": [1], "loop": 1, "run": 30000},
        "dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000,
               "loop": 1, "run": 3000}}})",
                                 o);
    Lines runs;
    for (const std::string& in : r.switch_ins())
      if (in.ends_with(" dl")) runs.push_back(in);
    EXPECT_EQ(r.task("dl").cpu_time_ns, 3'000'000) << policy;
    return std::make_pair(runs, r.task("dl").migrations);
  };
  EXPECT_EQ(dl_runs("eevdf-6.12"), std::make_pair(Lines{"0 0 dl", "10 1 dl", "20 0 dl"}, 2ul));
  EXPECT_EQ(dl_runs("eevdf"), dl_runs("eevdf-6.12"));
  EXPECT_EQ(dl_runs("eevdf-6.6"), std::make_pair(Lines{"0 0 dl", "10 0 dl", "20 0 dl"}, 0ul));
}

// A job that blocks and wakes before its deadline with budget to spare keeps its
// deadline (the CBS rule); one whose remaining budget would overflow its bandwidth gets a
// new period. Here "s" runs 1 ms, sleeps 1 ms, runs 1 ms...: at each wake-up 1 ms of its
// 2 ms budget is left against 8 ms to its deadline, so it keeps deadline 10 and is
// throttled at 3 ms until 10 ms.
TEST(Deadline, TheCbsWakeupRuleKeepsTheDeadlineUnlessTheBudgetWouldOverflow) {
  const RunOutput r = run_dl(R"("s": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000,
      "dl-period": 10000, "loop": -1, "run": 1000, "sleep": 1000},
      "hog": {"loop": -1, "run": 100000})",
                             1, 0.0115);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 s", "1 0 hog", "2 0 s", "3 0 hog", "10 0 s", "11 0 hog"}));
}

// dl_check_constrained_dl(): "c" (2 ms every 10 ms, due 4 ms into each period) runs 1 ms
// and sleeps 5 ms. Each wake-up (6, 16 ms...) comes after its deadline (4, 14) and before
// its next period (10, 20): it is throttled until that period, where the replenishment
// gives deadline 14, 24... Without the rule it would start a new period at each wake-up
// and run at 6, 12, 18 ms.
TEST(Deadline, AConstrainedTaskWokenAfterItsDeadlineWaitsForItsNextPeriod) {
  const RunOutput r = run_dl(R"("c": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000,
      "dl-deadline": 4000, "dl-period": 10000, "loop": -1, "run": 1000, "sleep": 5000},
      "hog": {"loop": -1, "run": 100000})",
                             1, 0.0315);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 c", "1 0 hog", "10 0 c", "11 0 hog", "20 0 c", "21 0 hog",
                                   "30 0 c", "31 0 hog"}));
  EXPECT_EQ(r.task("c").cpu_time_ns, 4'000'000);
}

// A phase that changes only dl-runtime is applied (sched_setattr's dl_param_changed()):
// "d" has 2 ms every 10 ms in its first phase (run 1 ms, sleep 9), 3 ms in its second
// (run 6 ms). Woken at 10 ms with a new period of the old budget, it enters the second
// phase there: 2 ms left, due 20; it runs 10-12 and is throttled; the replenishment at
// 20 gives the new 3 ms (20-23), then 1 more at 30 (30-31). With the old budget it
// would run 20-22 and 30-32.
TEST(Deadline, APhaseChangingOnlyTheRuntimeTakesEffectAtTheNextReplenishment) {
  const RunOutput r = run_dl(R"("d": {"loop": 1, "phases": {
      "p1": {"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000,
             "run": 1000, "sleep": 9000},
      "p2": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 10000,
             "run": 6000}}},
      "hog": {"loop": -1, "run": 100000})",
                             1, 0.035);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 d", "1 0 hog", "10 0 d", "12 0 hog", "20 0 d", "23 0 hog",
                                   "30 0 d", "31 0 hog"}));
}

// ENQUEUE_RESTORE past the deadline: "d" (3 ms every 4) waits for "e" (due 3.5 ms) until
// 3 ms and runs 3-5; its second phase (1 ms every 4) begins at 5, after its deadline
// (4), so it gets a new period from 5 (1 ms due 9): it runs 5-6, is throttled to that
// deadline and finishes 9-10. Kept at its old deadline with 1 ms left, it would be
// replenished at once when throttled at 6 (the period's end, 4, is past) and finish at 7.
// (A constrained deadline would instead be held by dl_check_constrained_dl(), above.)
TEST(Deadline, NewAttributesAfterTheDeadlineStartANewPeriod) {
  const RunOutput r = run_dl(R"("d": {"loop": 1, "phases": {
      "p1": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 4000, "run": 2000},
      "p2": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 4000, "run": 2000}}},
      "e": {"loop": 1, "policy": "SCHED_DEADLINE", "dl-runtime": 3500, "dl-deadline": 3500,
            "dl-period": 100000, "run": 3000},
      "hog": {"loop": -1, "run": 100000})",
                             1, 0.02);
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 e", "3 0 d", "6 0 hog", "9 0 d", "10 0 hog"}));
}

// rt-app's forked deadline thread sleeps its delay before its first phase makes it a
// deadline task: d, forked at 0.1 ms with delay 3 ms, first runs at the 1 ms tick as its
// creator's SCHED_OTHER, sleeps to 3 ms, and is activated there (due 5 ms): its 1 ms job
// runs 3-4 ms and meets its deadline. Activated at the fork, it would have woken at 3 ms
// after its deadline (2.1 ms) and been held to its next period (10.1 ms).
TEST(Deadline, AForkedThreadBecomesADeadlineTaskAfterItsDelay) {
  const RunOutput r = run_dl(R"("m": {"loop": 1, "run": 100, "fork": "d", "run1": 20000},
      "d": {"instance": 0, "delay": 3000, "loop": 1, "policy": "SCHED_DEADLINE",
            "dl-runtime": 1000, "dl-deadline": 2000, "dl-period": 10000, "run": 1000})",
                             1, 0.03);
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 m", "1 0 d-0", "1 0 m", "3 0 d-0", "4 0 m", "21.1 0 idle"}));
  EXPECT_EQ(r.task("d-0").dl_jobs, 1u);
  EXPECT_EQ(r.task("d-0").deadline_misses, 0u);
}

// Four tasks of 50 % on two CPUs ask for 2.0 CPUs; the kernel admits 95 % of each.
TEST(Deadline, AdmissionControlRefusesASetOverCapacityWithExitCode2) {
  const std::string task =
      R"("a": {"instance": INSTANCES, "policy": "SCHED_DEADLINE", "dl-runtime": 5000,
              "dl-period": 10000, "loop": 3, "run": 1000, "timer": {"ref": "unique", "period": 10000}})";
  auto scenario = [&](int instances) {
    std::string t = task;
    t.replace(t.find("INSTANCES"), 9, std::to_string(instances));
    return R"({"machine": {"cpus": 2}, "tasks": {)" + t + "}}";
  };
  const std::string refused = write_temp("dl_over.json", scenario(4));
  std::ostringstream out, err;
  EXPECT_EQ(cli_main({"run", refused, "--policy", "eevdf"}, out, err), 2);
  EXPECT_NE(err.str().find("dl_over.json: tasks.a: SCHED_DEADLINE admission control refuses "
                           "'a-3'"),
            std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("2.000 CPUs, more than 95 % of 2 CPUs (1.900)"), std::string::npos)
      << err.str();
  const std::string admitted = write_temp("dl_ok.json", scenario(3));
  std::ostringstream out2, err2;
  EXPECT_EQ(cli_main({"run", admitted, "--policy", "eevdf", "--json"}, out2, err2), 0)
      << err2.str();
  const auto j = nlohmann::json::parse(out2.str());
  EXPECT_EQ(j["tasks"][0]["deadline_misses"], 0);
  EXPECT_EQ(j["tasks"][0]["dl_jobs"], 3);
}

TEST(Deadline, ADeadlineTaskWithANarrowAffinityIsRefused) {
  EXPECT_THROW(run_dl(R"("a": {"cpus": [0], "policy": "SCHED_DEADLINE", "dl-runtime": 1000,
                         "dl-period": 10000, "loop": 1, "run": 100})",
                      2, 0.1),
               WorkloadError);
}

TEST(Deadline, BfsHasNoDeadlineClass) {
  ScenarioOverrides o;
  o.policy = "bfs";
  EXPECT_THROW(run_text(R"({"tasks": {"a": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000,
                         "dl-period": 10000, "loop": 1, "run": 100}}})",
                        o),
               InputError);
}

// Random deadline sets under the invariant checker (the queues stay in deadline order,
// throttled tasks are off them with a timer pending, no task is lost or on two CPUs),
// with RT and normal tasks around them.
TEST(Deadline, RandomSetsKeepEveryInvariant) {
  for (int seed = 1; seed <= 30; ++seed) {
    Rng rng(static_cast<uint64_t>(seed));
    const int cpus = 1 + static_cast<int>(rng.below(4));
    std::string tasks;
    int64_t budget_left = cpus * 900;  // per mille of a CPU, under the 95 % limit
    for (int i = 0; i < 8; ++i) {
      const int period = 2000 + static_cast<int>(rng.below(30)) * 1000;
      const int64_t share = std::min<int64_t>(budget_left, 50 + rng.below(400));
      if (share < 20) break;
      budget_left -= share;
      const int runtime = static_cast<int>(period * share / 1000);
      const int deadline = runtime + static_cast<int>(rng.below(period - runtime + 1));
      const int run = static_cast<int>(runtime * (50 + rng.below(100)) / 100);  // some overrun
      if (!tasks.empty()) tasks += ",";
      tasks += "\"d" + std::to_string(i) + R"(": {"policy": "SCHED_DEADLINE", "dl-runtime": )" +
               std::to_string(runtime) + R"(, "dl-deadline": )" + std::to_string(deadline) +
               R"(, "dl-period": )" + std::to_string(period) + R"(, "loop": -1, "run": )" +
               std::to_string(run) + (rng.below(2) ? R"(, "yield": 0)" : "") + R"(, "sleep": )" +
               std::to_string(rng.below(period)) + "}";
    }
    tasks +=
        R"(, "rt": {"policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 700, "sleep": 3000})";
    tasks += R"(, "n": {"instance": 3, "loop": -1, "run": 5000, "sleep": 1000})";
    ScenarioOverrides o;
    o.policy = rng.below(2) ? "eevdf" : "cfs-2.6.32";
    o.duration_s = 0.5;
    o.seed = static_cast<uint64_t>(seed);
    EXPECT_NO_THROW(run_text(R"({"machine": {"cpus": )" + std::to_string(cpus) +
                                 R"(, "hz": 250}, "tasks": {)" + tasks + "}}",
                             o))
        << "seed " << seed;
  }
}

}  // namespace
}  // namespace schedlab::test
