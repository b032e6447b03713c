// The machine's costs (machine/costs.h) on small cases computed by hand: remote wake-ups,
// idle exits, timer overshoot, the waker's sending cost and the refill of handed-over data,
// co-running slowdown on a shared cache or core, and background noise. Lines read "time in
// ms, CPU, task switched in" as in schedules_test.cpp.
#include <gtest/gtest.h>

#include "harness.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

// The exit time of each named task, in ns.
Time exit_ns(const RunOutput& r, const std::string& name) {
  for (const SchedEvent& e : r.events)
    if (e.type == EventType::kExit && r.names[e.task] == name) return e.time;
  return -1;
}

Time first_wakeup_ns(const RunOutput& r, const std::string& name) {
  for (const SchedEvent& e : r.events)
    if (e.type == EventType::kWakeup && r.names[e.task] == name) return e.time;
  return -1;
}

// 2 CPUs under rr; idle states: 1 us from the start, 20 us once idle 0.5 ms; IPI 5 us; the
// waker spends 2 us sending it.
std::string wake_machine(const std::string& extra = "") {
  return R"("machine": {"cpus": 2, "hz": 1000, "wakeup_ipi_ns": 5000, "wakeup_send_ns": 2000,
      "idle_exit_ns": [{"name": "C1", "idle_ns": 0, "exit_ns": 1000},
                       {"name": "C3", "idle_ns": 500000, "exit_ns": 20000}])" +
         extra + "}, ";
}

// "woken" blocks on a semaphore at 0; "waker" runs 1 ms, posts, runs 1 ms more.
std::string wake_tasks(int woken_cpu) {
  return R"("tasks": {
      "woken": {"loop": 1, "cpus": [)" +
         std::to_string(woken_cpu) + R"(], "sem_wait": "s", "run": 1000},
      "waker": {"loop": 1, "cpus": [0], "run0": 1000, "sem_post": "s", "run1": 1000}}})";
}

TEST(MachineCosts, RemoteWakeupOntoAnIdleCpuWaitsForTheIpiAndTheIdleExit) {
  // At 1 ms the waker on CPU 0 posts; CPU 1 has idled 1 ms (C3): 5 + 20 us later "woken"
  // runs, until 2.025. The waker's second run starts 2 us late (the send): ends at 2.002.
  const RunOutput r = run_text("{" + wake_machine() + wake_tasks(1));
  EXPECT_EQ(r.switch_ins(), (Lines{"0 1 woken", "0 0 waker", "0 1 idle", "1.025 1 woken",
                                   "2.002 0 idle", "2.025 1 idle"}));
  EXPECT_EQ(first_wakeup_ns(r, "woken"), 1'000'000);
  EXPECT_EQ(r.task("woken").wakeup_latency.max(), 25'000);
}

TEST(MachineCosts, LocalWakeupPaysNeitherIpiNorIdleExit) {
  // Both on CPU 0: "woken" blocks at 0, is woken at 1 ms behind the running waker (rr
  // never preempts) and runs when the waker exits at 2 ms sharp: nothing was sent.
  const RunOutput r = run_text("{" + wake_machine() + wake_tasks(0));
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 woken", "0 0 waker", "2 0 woken", "3 0 idle"}));
}

TEST(MachineCosts, WithoutCostsTheRemoteWakeupRunsAtOnce) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "hz": 1000}, )" + wake_tasks(1));
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 1 woken", "0 0 waker", "0 1 idle", "1 1 woken", "2 0 idle", "2 1 idle"}));
}

TEST(MachineCosts, ShallowIdleStatePaysTheShallowExit) {
  // The woken task idles only 100 us before the post: C1, 1 us + the 5 us IPI.
  const RunOutput r = run_text("{" + wake_machine() + R"("tasks": {
      "woken": {"loop": 1, "cpus": [1], "sem_wait": "s", "run": 1000},
      "waker": {"loop": 1, "cpus": [0], "run0": 100, "sem_post": "s", "run1": 1000}}})");
  EXPECT_EQ(r.task("woken").wakeup_latency.max(), 6'000);
}

TEST(MachineCosts, TimerOnAnIdleCpuWakesAfterOvershootAndIdleExit) {
  // Expiry at 1 ms, 50 us overshoot: the interrupt meets a CPU idle for 1.05 ms (C3, 20 us),
  // so the wake-up is at 1.07 ms, onto the CPU the interrupt has just woken: no more delay.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000, "wakeup_ipi_ns": 5000,
      "timer_overshoot_ns": 50000,
      "idle_exit_ns": [{"idle_ns": 0, "exit_ns": 1000}, {"idle_ns": 500000, "exit_ns": 20000}]},
      "tasks": {"sleeper": {"loop": 1, "sleep": 1000, "run": 1000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 sleeper", "0 0 idle", "1.07 0 sleeper", "2.07 0 idle"}));
  EXPECT_EQ(first_wakeup_ns(r, "sleeper"), 1'070'000);
  EXPECT_EQ(r.task("sleeper").wakeup_latency.max(), 0);
}

TEST(MachineCosts, TimerWakeupIsSwitchedInAfterTheRestOfItsInterrupt) {
  // As above, with 4 us for the rest of the interrupt: woken at 1.07 ms (the trace's
  // sched_wakeup), switched in 4 us later, so its wake-up latency is 4 us.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000, "timer_overshoot_ns": 50000,
      "timer_resched_ns": 4000,
      "idle_exit_ns": [{"idle_ns": 0, "exit_ns": 1000}, {"idle_ns": 500000, "exit_ns": 20000}]},
      "tasks": {"sleeper": {"loop": 1, "sleep": 1000, "run": 1000}}})");
  EXPECT_EQ(r.switch_ins(), (Lines{"0 0 sleeper", "0 0 idle", "1.074 0 sleeper", "2.074 0 idle"}));
  EXPECT_EQ(first_wakeup_ns(r, "sleeper"), 1'070'000);
  EXPECT_EQ(r.task("sleeper").wakeup_latency.max(), 4'000);
}

TEST(MachineCosts, ATimerAfterATickOfIdlePaysTheTickRestart) {
  // 3 us to restart the tick. HZ 1000: the sleeper's CPU idles 1.05 ms, a tick or more, so
  // the timer of the test above is switched in 4 + 3 us after its wake-up at 1.07 ms.
  const std::string machine = R"({"machine": {"cpus": 1, "hz": )";
  const std::string costs = R"(, "timer_overshoot_ns": 50000, "timer_resched_ns": 4000,
      "tick_restart_ns": 3000,
      "idle_exit_ns": [{"idle_ns": 0, "exit_ns": 1000}, {"idle_ns": 500000, "exit_ns": 20000}]},
      "tasks": {"sleeper": {"loop": 1, "sleep": 1000, "run": 1000}}})";
  const RunOutput stopped = run_text(machine + "1000" + costs);
  EXPECT_EQ(stopped.switch_ins(),
            (Lines{"0 0 sleeper", "0 0 idle", "1.077 0 sleeper", "2.077 0 idle"}));
  EXPECT_EQ(stopped.task("sleeper").wakeup_latency.max(), 7'000);
  // HZ 250: 1.05 ms is within the 4 ms tick, which kept running: 4 us, no restart.
  const RunOutput ticking = run_text(machine + "250" + costs);
  EXPECT_EQ(ticking.task("sleeper").wakeup_latency.max(), 4'000);
  // A remote wake-up onto CPU 1, idle 1 ms: 5 us IPI + 20 us C3 exit, which holds the
  // tick's restart already.
  const RunOutput remote =
      run_text("{" + wake_machine(R"(, "tick_restart_ns": 3000)") + wake_tasks(1));
  EXPECT_EQ(remote.task("woken").wakeup_latency.max(), 25'000);
  // A timer task preempting a busy CPU's hog: 4 us, as without it.
  const RunOutput busy = run_text(R"({"machine": {"cpus": 1, "hz": 1000,
      "timer_resched_ns": 4000, "tick_restart_ns": 3000}, "tasks": {
      "rt": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "sleep": 1000, "run": 100},
      "hog": {"loop": 1, "delay": 1, "run": 5000}}})");
  EXPECT_EQ(busy.task("rt").wakeup_latency.max(), 4'000);
}

TEST(MachineCosts, TimerReschedDelaysOnlyTimerWakeups) {
  // A SCHED_FIFO timer task preempts a hog on its CPU 4 us after its wake-up at 1 ms; a
  // semaphore's wake-up on the waker's CPU (no timer) pays nothing: as without the cost.
  const RunOutput timer = run_text(R"({"machine": {"cpus": 1, "hz": 1000,
      "timer_resched_ns": 4000}, "tasks": {
      "rt": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "sleep": 1000, "run": 100},
      "hog": {"loop": 1, "delay": 1, "run": 5000}}})");
  EXPECT_EQ(timer.task("rt").wakeup_latency.max(), 4'000);
  EXPECT_EQ(exit_ns(timer, "rt"), 1'104'000);
  const RunOutput local = run_text(R"({"machine": {"cpus": 2, "hz": 1000,
      "timer_resched_ns": 4000}, )" +
                                   wake_tasks(0));
  EXPECT_EQ(local.switch_ins(), (Lines{"0 0 woken", "0 0 waker", "2 0 woken", "3 0 idle"}));
}

TEST(MachineCosts, TheWakersReturnComesBeforeItsNextStep) {
  // 3 us of return after the post at 1 ms: the waker's second run ends at 2.003, and only
  // then (rr never preempts) does "woken" run on CPU 0.
  const std::string ret = R"(, "wakeup_return_ns": 3000)";
  const RunOutput local =
      run_text(R"({"machine": {"cpus": 2, "hz": 1000)" + ret + "}, " + wake_tasks(0));
  EXPECT_EQ(local.switch_ins(), (Lines{"0 0 woken", "0 0 waker", "2.003 0 woken", "3.003 0 idle"}));
  // A remote wake-up: the waker returns after its send, 2 + 3 us; the woken task's delay
  // (IPI and idle exit) is unchanged.
  const RunOutput remote = run_text("{" + wake_machine(ret) + wake_tasks(1));
  EXPECT_EQ(remote.switch_ins(), (Lines{"0 1 woken", "0 0 waker", "0 1 idle", "1.025 1 woken",
                                        "2.005 0 idle", "2.025 1 idle"}));
}

TEST(MachineCosts, AWakerThatBlocksAtOnceIsSwitchedOutAfterItsReturn) {
  // The waker posts at 1 ms and sleeps 500 us at once: its sleep starts then, but its CPU
  // switches to "woken" only after the 3 us return, which is woken's latency. The waker,
  // woken at 1.5 ms behind "woken" (rr), runs its 100 us at 2.003.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000, "wakeup_return_ns": 3000},
      "tasks": {
      "woken": {"loop": 1, "sem_wait": "s", "run": 1000},
      "waker": {"loop": 1, "run0": 1000, "sem_post": "s", "sleep": 500, "run1": 100}}})");
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 woken", "0 0 waker", "1.003 0 woken", "2.003 0 waker", "2.103 0 idle"}));
  EXPECT_EQ(r.task("woken").wakeup_latency.max(), 3'000);
  EXPECT_EQ(r.task("waker").cpu_time_ns, 1'103'000);  // the return is the waker's CPU time
}

TEST(MachineCosts, WakeupsAtOneInstantShareOneReturn) {
  // One resume wakes both suspended tasks at 1 ms: one 3 us return, not two, so the
  // waker's second run ends at 2.003 before rr runs them.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000, "wakeup_return_ns": 3000},
      "tasks": {
      "a": {"loop": 1, "suspend": "go", "run": 100},
      "b": {"loop": 1, "suspend": "go", "run": 100},
      "waker": {"loop": 1, "run0": 1000, "resume": "go", "run1": 1000}}})");
  EXPECT_EQ(r.task("waker").cpu_time_ns, 2'003'000);
  EXPECT_EQ(exit_ns(r, "waker"), 2'003'000);
}

TEST(MachineCosts, AWakeupPreemptionWaitsForTheWakersReturn) {
  // A SCHED_FIFO task woken by a fair waker preempts it once the waker is back from its
  // post (3 us); the waker's second run follows the woken task's 100 us.
  const RunOutput r = run_text(R"({"machine": {"cpus": 1, "hz": 1000, "wakeup_return_ns": 3000},
      "tasks": {
      "woken": {"loop": 1, "policy": "SCHED_FIFO", "priority": 10, "sem_wait": "s", "run": 100},
      "waker": {"loop": 1, "run0": 1000, "sem_post": "s", "run1": 1000}}})");
  EXPECT_EQ(r.switch_ins(),
            (Lines{"0 0 woken", "0 0 waker", "1.003 0 woken", "1.103 0 waker", "2.103 0 idle"}));
  EXPECT_EQ(r.task("woken").wakeup_latency.max(), 3'000);
}

TEST(MachineCosts, WakeupAcrossCachesRefillsTheHandedOverData) {
  // No IPI or idle costs here, only the refill: CPUs 0 and 1 share no cache, so the
  // woken task's 1 ms run takes 30 us more; on CPUs sharing a cache it does not.
  const std::string tasks = wake_tasks(1);
  const RunOutput apart = run_text(R"({"machine": {"cpus": 2, "wakeup_refill_ns": 30000,
      "topology": {"llc": [[0], [1]]}}, )" +
                                   tasks);
  EXPECT_EQ(exit_ns(apart, "woken"), 2'030'000);
  const RunOutput shared = run_text(R"({"machine": {"cpus": 2, "wakeup_refill_ns": 30000,
      "topology": {"llc": [[0, 1]]}}, )" +
                                    tasks);
  EXPECT_EQ(exit_ns(shared, "woken"), 2'000'000);
}

// Four CPUs, two caches ({0,1}, {2,3}); two tasks of 10 ms of work on the given CPUs.
RunOutput corun(const std::string& costs, const std::string& a, const std::string& b) {
  return run_text(R"({"machine": {"cpus": 4, "topology": {"llc": [[0, 1], [2, 3]]}, )" + costs +
                  R"(}, "tasks": {"A": {"loop": 1, )" + a + R"(, "run": 10000},
                                  "B": {"loop": 1, )" +
                  b + R"(, "run": 10000}}})");
}

TEST(MachineCosts, MemoryHeavyTasksSharingACacheSlowEachOtherByTheFactor) {
  const std::string costs = R"("shared_cache_slowdown": 0.5)";
  // m = 1 each, sharing: 1 + 0.5 x 1 x 1 = 1.5 times longer.
  const RunOutput shared = corun(costs, R"("cpus": [0], "memory_intensity": 1)",
                                 R"("cpus": [1], "memory_intensity": 1)");
  EXPECT_EQ(exit_ns(shared, "A"), 15'000'000);
  EXPECT_EQ(exit_ns(shared, "B"), 15'000'000);
  // On CPUs of different caches: as alone.
  const RunOutput apart = corun(costs, R"("cpus": [0], "memory_intensity": 1)",
                                R"("cpus": [2], "memory_intensity": 1)");
  EXPECT_EQ(exit_ns(apart, "A"), 10'000'000);
  // m = 1 and 0.5: both slow by 0.5 x 1 x 0.5 = 0.25.
  const RunOutput half = corun(costs, R"("cpus": [0], "memory_intensity": 1)",
                               R"("cpus": [1], "memory_intensity": 0.5)");
  EXPECT_EQ(exit_ns(half, "A"), 12'500'000);
  EXPECT_EQ(exit_ns(half, "B"), 12'500'000);
  // Memory intensity 0 (the default) is unaffected.
  const RunOutput compute = corun(costs, R"("cpus": [0])", R"("cpus": [1])");
  EXPECT_EQ(exit_ns(compute, "A"), 10'000'000);
}

TEST(MachineCosts, SlowdownEndsWhenTheCoRunnerLeaves) {
  // Factor 1: both run at half speed while together. B (5 ms of work) ends at 10 ms; A has
  // done 5 ms by then and does its other 5 ms at full speed: 15 ms.
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "shared_cache_slowdown": 1},
      "tasks": {"A": {"loop": 1, "cpus": [0], "memory_intensity": 1, "run": 10000},
                "B": {"loop": 1, "cpus": [1], "memory_intensity": 1, "run": 5000}}})");
  EXPECT_EQ(exit_ns(r, "B"), 10'000'000);
  EXPECT_EQ(exit_ns(r, "A"), 15'000'000);
}

TEST(MachineCosts, PhaseMemoryIntensityOverridesTheTasks) {
  // A's first phase is compute-bound (0), its second memory-bound (1): 5 ms at full speed,
  // then 5 ms of work at half speed beside B (memory-bound all along, 20 ms of work).
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "shared_cache_slowdown": 1},
      "tasks": {"A": {"loop": 1, "cpus": [0], "memory_intensity": 1, "phases": {
                  "p1": {"memory_intensity": 0, "run": 5000}, "p2": {"run": 5000}}},
                "B": {"loop": 1, "cpus": [1], "memory_intensity": 1, "run": 20000}}})");
  EXPECT_EQ(exit_ns(r, "A"), 15'000'000);
  // B: 5 ms alone-speed (A compute-bound), 5 ms of work in 10 ms beside A, then 10 ms alone.
  EXPECT_EQ(exit_ns(r, "B"), 25'000'000);
}

TEST(MachineCosts, SmtSiblingsSlowEachOtherWhateverTheirMemoryIntensity) {
  const RunOutput r = run_text(R"({"machine": {"cpus": 2, "smt_slowdown": 1,
      "topology": {"smt": [[0, 1]]}},
      "tasks": {"A": {"loop": 1, "cpus": [0], "run": 10000},
                "B": {"loop": 1, "cpus": [1], "run": 10000}}})");
  EXPECT_EQ(exit_ns(r, "A"), 20'000'000);
  EXPECT_EQ(exit_ns(r, "B"), 20'000'000);
}

// One hog on 4 CPUs with kernel-thread noise on every CPU.
std::string noisy_hog(const std::string& background) {
  return R"({"machine": {"cpus": 4, "hz": 1000, "topology": {"llc": [[0, 1], [2, 3]]})" +
         background + R"(}, "global": {"duration": 2},
      "tasks": {"hog": {"loop": -1, "run": 100000}}})";
}
const char* kNoise =
    R"(, "background": {"name": "events/{cpu}", "rate_hz": 1000, "burst_ns": 20000, "priority": -5})";

std::vector<std::pair<Time, Time>> bursts_of(const RunOutput& r, const std::string& name) {
  std::vector<std::pair<Time, Time>> out;  // (switched in, switched out)
  for (const SchedEvent& e : r.events) {
    if (e.type != EventType::kSwitch) continue;
    if (e.other != kNoTask && r.names[e.other] == name) out.emplace_back(e.time, -1);
    if (e.task != kNoTask && r.names[e.task] == name && !out.empty()) out.back().second = e.time;
  }
  return out;
}

TEST(MachineCosts, BackgroundNoiseIsSeededVisibleAndOffByDefault) {
  const RunOutput a = run_text(noisy_hog(kNoise)), b = run_text(noisy_hog(kNoise));
  const auto bursts = bursts_of(a, "events/2");
  // 1000 Hz for 2 s: about 2000 bursts, exactly the same in both runs.
  EXPECT_GT(bursts.size(), 1800u);
  EXPECT_LT(bursts.size(), 2200u);
  EXPECT_EQ(bursts, bursts_of(b, "events/2"));
  EXPECT_EQ(a.events.size(), b.events.size());
  // A task per CPU, named like a kernel thread, outside the workload's metrics.
  for (const char* name : {"events/0", "events/1", "events/2", "events/3"})
    EXPECT_NE(std::find(a.names.begin(), a.names.end(), name), a.names.end()) << name;
  EXPECT_EQ(a.metrics.tasks.size(), 1u);
  // Another seed, other bursts.
  ScenarioOverrides o;
  o.seed = 2;
  EXPECT_NE(bursts_of(run_text(noisy_hog(kNoise), o), "events/2"), bursts);
  // Off: no such task.
  const RunOutput quiet = run_text(noisy_hog(""));
  EXPECT_EQ(quiet.names, (std::vector<std::string>{"hog"}));
}

TEST(MachineCosts, NoiseBouncesALoneHogUnderBfsButNotUnderCfs) {
  // BFS's one queue: whichever CPU schedules while the hog waits behind a kernel thread
  // takes it (E1: "unpinned single-thread BFS was seen to bounce the process between
  // CPUs"); CFS keeps it on its own run queue.
  ScenarioOverrides bfs, cfs;
  bfs.policy = "bfs";
  cfs.policy = "cfs-2.6.31";
  const uint64_t bfs_moves = run_text(noisy_hog(kNoise), bfs).task("hog").migrations;
  const uint64_t cfs_moves = run_text(noisy_hog(kNoise), cfs).task("hog").migrations;
  EXPECT_GE(bfs_moves, 10 * std::max<uint64_t>(cfs_moves, 1)) << bfs_moves << " " << cfs_moves;
  // Without noise, neither moves it.
  EXPECT_EQ(run_text(noisy_hog(""), bfs).task("hog").migrations, 0u);
}

TEST(MachineCosts, BackgroundKeepsNoRunAliveAndDeadlocksAreStillFound) {
  // The workload is 100 ms of work (stretched a little by the noise it waits behind); the
  // run ends with it although the noise would go on for ever.
  const RunOutput r = run_text(R"({"machine": {"cpus": 4)" + std::string(kNoise) +
                               R"(}, "tasks": {"hog": {"loop": 1, "run": 100000}}})");
  EXPECT_TRUE(r.result.all_exited);
  EXPECT_GE(r.result.end_ns, 100'000'000);
  EXPECT_LT(r.result.end_ns, 110'000'000);
  // Two tasks each waiting for the other's post are a deadlock, noise or not.
  try {
    run_text(R"({"machine": {"cpus": 2)" + std::string(kNoise) + R"(}, "tasks": {
        "a": {"loop": 1, "run": 100, "sem_wait": "x", "sem_post": "y"},
        "b": {"loop": 1, "run": 100, "sem_wait": "y", "sem_post": "x"}}})");
    ADD_FAILURE() << "no deadlock reported";
  } catch (const WorkloadError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("deadlock at 0.000100 s", 0), 0u) << e.what();
  }
}

TEST(MachineCosts, BadCostsNameTheKey) {
  auto error_of = [](const std::string& machine) {
    try {
      run_text(R"({"machine": {"cpus": 2, )" + machine + R"(}, "tasks": {"a": {"run": 10}}})");
    } catch (const InputError& e) {
      return e.key() + ": " + e.reason();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"("wakeup_ipi_ns": -1)"), "machine.wakeup_ipi_ns: negative duration -1");
  EXPECT_EQ(error_of(R"("shared_cache_slowdown": 20)"),
            "machine.shared_cache_slowdown: 20 is outside 0..16");
  EXPECT_EQ(
      error_of(R"("idle_exit_ns": [{"idle_ns": 5, "exit_ns": 1}, {"idle_ns": 5, "exit_ns": 2}])"),
      "machine.idle_exit_ns[1].idle_ns: idle states must be listed by increasing idle_ns");
  EXPECT_EQ(error_of(R"("background": [{"cpus": [7]}])"),
            "machine.background[0].cpus: CPU 7 is outside the machine's 2 CPUs");
  EXPECT_EQ(error_of(R"("background": {"policy": "SCHED_FIFO"})"),
            "machine.background.priority: 0 is outside 1..99 for SCHED_FIFO");
  EXPECT_EQ(error_of(R"("background": {"rate": 5})")
                .rfind("machine.background.rate: unknown parameter for a background source", 0),
            0u);
}

}  // namespace
}  // namespace schedlab::test
