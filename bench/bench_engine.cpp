// Simulated context switches per wall-clock second (make bench).
//  (a) 1 CPU, 2 hogs under rr with a 1 ms slice (one switch per tick);
//  (b) 64 CPUs, 1000 tasks: 500 hogs and 500 tasks that run 200 us and sleep 1 ms,
//      under rr, under each CFS and EEVDF preset, BFS and O(1);
//  (c) SCHED_DEADLINE, global EDF: 4 CPUs, 20 periodic tasks of utilisation 0.16 each
//      (3.2 in all; periods 10, 15, ..., 105 ms), 10 simulated seconds;
//  and the part of (b) that is setting up its 1000 tasks (SetupOnly: 1 ns simulated);
//  (b) on 32 pairs of CPUs sharing a cache with memory-heavy tasks, without (CostsOff)
//      and with (Costs) every cost of machine/costs.h: remote wake-up IPI, idle states,
//      the waker's send, refill across caches, timer overshoot, shared-cache slowdown,
//      100 Hz of kernel-thread noise per CPU; the pair is what the costs cost the engine.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "scenario/scenario.h"
#include "sim/simulate.h"

namespace schedlab {
namespace {

class CountingSink final : public EventSink {
 public:
  void event(const SchedEvent& e) override { switches += e.type == EventType::kSwitch; }
  uint64_t switches = 0;
};

void run_scenario(benchmark::State& state, const std::string& json, const std::string& policy,
                  std::vector<std::pair<std::string, std::string>> params) {
  ScenarioOverrides o;
  o.policy = policy;
  o.params = std::move(params);
  const Scenario s = scenario_from_text(json, "bench", o);
  uint64_t switches = 0;
  for (auto _ : state) {
    CountingSink sink;
    simulate(s, sink, SimulationOptions{});
    switches += sink.switches;
  }
  state.counters["switches_per_s"] =
      benchmark::Counter(static_cast<double>(switches), benchmark::Counter::kIsRate);
  state.counters["switches_per_run"] =
      static_cast<double>(switches) / static_cast<double>(state.iterations());
}

std::string two_hogs() {
  return R"({"machine": {"cpus": 1}, "global": {"duration": 100}, "tasks": {
      "a": {"loop": -1, "run": 100000}, "b": {"loop": -1, "run": 100000}}})";
}

std::string big_machine() {
  return R"({"machine": {"cpus": 64}, "global": {"duration": 1}, "tasks": {
      "hog": {"instance": 500, "loop": -1, "run": 100000},
      "sleeper": {"instance": 500, "loop": -1, "run": 200, "sleep": 1000}}})";
}

// The 64-CPU machine of (b) with 32 cache pairs, a switch and migration cost and memory-
// heavy tasks; `costs` adds every cost of machine/costs.h, so that the pair of runs
// measures what those costs cost the engine.
std::string big_machine_with_pairs(bool costs) {
  std::string llc;
  for (int i = 0; i < 32; ++i) llc += fmt::format("{}[{}, {}]", i ? ", " : "", 2 * i, 2 * i + 1);
  const std::string extra = costs ? R"(, "wakeup_ipi_ns": 2000, "wakeup_send_ns": 500,
      "wakeup_refill_ns": 3000, "timer_overshoot_ns": 50000,
      "idle_exit_ns": [{"idle_ns": 0, "exit_ns": 1000}, {"idle_ns": 114000, "exit_ns": 57000}],
      "shared_cache_slowdown": 0.3,
      "background": {"name": "events/{cpu}", "rate_hz": 100, "burst_ns": 20000, "priority": -5})"
                                  : "";
  return R"({"machine": {"cpus": 64, "topology": {"llc": [)" + llc + R"(]},
      "context_switch_ns": 2000, "migration_cost_ns": 100000,
      "shared_cache_migration_cost_ns": 5000)" +
         extra + R"(},
      "global": {"duration": 1}, "tasks": {
      "hog": {"instance": 500, "loop": -1, "memory_intensity": 0.5, "run": 100000},
      "sleeper": {"instance": 500, "loop": -1, "memory_intensity": 0.5, "run": 200,
                  "sleep": 1000}}})";
}

std::string deadline_set() {
  std::string tasks;
  for (int i = 0; i < 20; ++i) {
    const int period_us = 10000 + 5000 * i;
    const int runtime_us = period_us * 16 / 100;
    tasks += fmt::format(
        R"({}"d{}": {{"policy": "SCHED_DEADLINE", "dl-runtime": {}, "dl-period": {}, "loop": -1,
            "run": {}, "timer": {{"ref": "unique", "period": {}}}}})",
        i ? "," : "", i, runtime_us, period_us, runtime_us, period_us);
  }
  return R"({"machine": {"cpus": 4}, "global": {"duration": 10}, "tasks": {)" + tasks + "}}";
}

void BM_SetupOnly(benchmark::State& state) {
  ScenarioOverrides o;
  o.policy = "rr";
  o.duration_s = 1e-6;
  const Scenario s = scenario_from_text(big_machine(), "bench", o);
  for (auto _ : state) {
    CountingSink sink;
    simulate(s, sink, SimulationOptions{});
  }
}
BENCHMARK(BM_SetupOnly)->Unit(benchmark::kMillisecond);
void BM_OneCpuTwoHogs(benchmark::State& state) {
  run_scenario(state, two_hogs(), "rr", {{"slice_ns", "1000000"}});
}
void BM_64Cpus1000Tasks(benchmark::State& state) {
  run_scenario(state, big_machine(), "rr", {});
}

void BM_64Cpus1000Tasks_bfs(benchmark::State& state) {
  run_scenario(state, big_machine(), "bfs", {});
}
void BM_64Cpus1000Tasks_cfs_2_6_23(benchmark::State& state) {
  run_scenario(state, big_machine(), "cfs-2.6.23", {});
}
void BM_64Cpus1000Tasks_cfs_2_6_31(benchmark::State& state) {
  run_scenario(state, big_machine(), "cfs-2.6.31", {});
}
void BM_64Cpus1000Tasks_cfs_2_6_32(benchmark::State& state) {
  run_scenario(state, big_machine(), "cfs-2.6.32", {});
}
void BM_64Cpus1000Tasks_eevdf_6_6(benchmark::State& state) {
  run_scenario(state, big_machine(), "eevdf-6.6", {});
}
void BM_64Cpus1000Tasks_eevdf_6_12(benchmark::State& state) {
  run_scenario(state, big_machine(), "eevdf-6.12", {});
}
void BM_64Cpus1000Tasks_o1(benchmark::State& state) {
  run_scenario(state, big_machine(), "o1", {});
}
void BM_64Cpus1000Tasks_sd(benchmark::State& state) {
  run_scenario(state, big_machine(), "sd", {});
}
void BM_64Cpus1000TasksCostsOff(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(false), "rr", {});
}
void BM_64Cpus1000TasksCosts(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(true), "rr", {});
}
void BM_64Cpus1000TasksCostsOff_bfs(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(false), "bfs", {});
}
void BM_64Cpus1000TasksCosts_bfs(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(true), "bfs", {});
}
void BM_64Cpus1000TasksCostsOff_cfs_2_6_31(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(false), "cfs-2.6.31", {});
}
void BM_64Cpus1000TasksCosts_cfs_2_6_31(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(true), "cfs-2.6.31", {});
}
void BM_64Cpus1000TasksCostsOff_eevdf_6_12(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(false), "eevdf-6.12", {});
}
void BM_64Cpus1000TasksCosts_eevdf_6_12(benchmark::State& state) {
  run_scenario(state, big_machine_with_pairs(true), "eevdf-6.12", {});
}
void BM_Deadline4Cpus20Tasks(benchmark::State& state) {
  run_scenario(state, deadline_set(), "eevdf", {});
}

BENCHMARK(BM_OneCpuTwoHogs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_bfs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_cfs_2_6_23)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_cfs_2_6_31)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_cfs_2_6_32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_eevdf_6_6)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_eevdf_6_12)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_o1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000Tasks_sd)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCostsOff)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCosts)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCostsOff_bfs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCosts_bfs)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCostsOff_cfs_2_6_31)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCosts_cfs_2_6_31)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCostsOff_eevdf_6_12)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_64Cpus1000TasksCosts_eevdf_6_12)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Deadline4Cpus20Tasks)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace schedlab

BENCHMARK_MAIN();
