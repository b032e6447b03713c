// `schedlab validate`: the simulator against this machine. A fixed suite of small scenarios
// (scenarios/validate/) runs for real (recorded through tracefs, host_session.h) and in
// simulation on the model of this machine (the calibrated machine file, else its
// topology) under the model of the running kernel, each `repeats` times; each metric's
// median over the repeats is compared, sim / real:
//   cpu share     per task (CPU time / run time); the scenario's figure is the task whose
//                 ratio is furthest from 1 among those with at least 2 % of the run
//   marks/s       the application marks of all tasks per second (throughput)
//   switches/s    context switches of the workload's tasks per second
//   migrations/s  migrations of the workload's tasks per second
//   latency p50, p99  wake-up latency (wake-up to running) over all the workload's tasks
// and summarised per metric by the median over the scenarios of |log(sim / real)| (the
// ratio taken within 1/100..100), beside the same median of the real repeats' own spread
// (how far the real runs of one scenario differ from their median). The real runs are marked when
// the machine was busy (load_check.h) just before them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/latency.h"
#include "events/event.h"
#include "host/host_session.h"

namespace schedlab {

// Wake-up latencies of all the workload's tasks together, by the analyzer's rule: from a
// wake-up of a task that slept to its next switch-in. A recording may not trace a CPU's
// switches out of idle (this VM's CPU 1, docs/traces.md): those switch-ins are inferred
// and give no sample, and the CPUs where that happened are noted (blind_cpus) so that the
// simulation leaves out the same wake-ups, switch-ins from idle on those CPUs, and both
// sides measure the same population.
class WakeupLatencies final : public EventSink {
 public:
  WakeupLatencies() = default;
  explicit WakeupLatencies(std::vector<char> blind) : blind_cpus(std::move(blind)) {}
  std::vector<char> blind_cpus;  // by CPU: 1 where a switch out of idle is not traced

  void task_created(const TaskInfo& t) override {
    if (static_cast<size_t>(t.id) >= tasks_.size()) tasks_.resize(t.id + 1);
    tasks_[t.id].workload = t.workload;
  }
  void event(const SchedEvent& e) override {
    if (e.type == EventType::kSwitch && e.arg != kStartState) {
      if (Track* prev = track(e.task))
        prev->sleeping = static_cast<PrevState>(e.detail) == PrevState::kBlocked;
      const bool from_idle = e.task == kNoTask && e.cpu >= 0;
      if (from_idle && e.arg == kInferredSwitch) {
        if (blind_cpus.size() <= static_cast<size_t>(e.cpu)) blind_cpus.resize(e.cpu + 1, 0);
        blind_cpus[e.cpu] = 1;
      }
      const bool blind =
          from_idle && static_cast<size_t>(e.cpu) < blind_cpus.size() && blind_cpus[e.cpu];
      if (Track* next = track(e.other); next && next->woken_at >= 0) {
        // an inferred switch-in (not in the trace) has no measured time
        if (next->workload && e.arg != kInferredSwitch && !blind)
          latencies.add(e.time - next->woken_at);
        next->woken_at = -1;
        next->sleeping = false;
      }
    } else if (e.type == EventType::kWakeup || e.type == EventType::kWaking) {
      if (Track* t = track(e.task); t && t->sleeping) {
        t->woken_at = e.time;
        t->sleeping = false;
      }
    }
  }
  LatencyStats latencies;

 private:
  struct Track {
    bool workload = true, sleeping = false;
    Time woken_at = -1;
  };
  Track* track(TaskId id) {
    return id >= 0 && static_cast<size_t>(id) < tasks_.size() ? &tasks_[id] : nullptr;
  }
  std::vector<Track> tasks_;
};

struct ValidateOptions {
  std::string suite_dir;      // the scenarios (every *.json, in name order)
  std::string machine_file;   // empty: the cached calibration, else the topology
  bool uncalibrated = false;  // the host's topology and HZ without costs, whatever is cached
  std::string policy;         // simulated; empty: the model of the running kernel
  int repeats = 3;
  double duration_s = 0;  // each run's bound; 0: each scenario's own
  HostSessionOptions session;
};

// The metrics, in table order.
inline const std::vector<std::string>& validation_metrics() {
  static const std::vector<std::string> names{"cpu share",    "marks/s",     "switches/s",
                                              "migrations/s", "latency p50", "latency p99"};
  return names;
}

struct MetricComparison {
  std::optional<double> real, sim;  // medians over the repeats; absent: not measured
  std::string detail;               // e.g. the task a cpu share ratio is of
  // The real side against itself: repeat_spread() of the real repeats. A ratio is only as
  // good as this.
  std::optional<double> real_spread;
  // sim / real, when both are there and real is not 0 (1 when both are 0).
  std::optional<double> ratio() const;
};

struct ScenarioComparison {
  std::string name;
  std::vector<MetricComparison> metrics;  // by validation_metrics()
  int busy_runs = 0;                      // real runs that began on a busy machine
  std::string error;                      // a run that failed: the scenario is left out
};

struct ValidationReport {
  std::string machine;  // which machine the simulation used (model_of_this_machine)
  std::string policy, kernel;
  int repeats = 0;
  std::vector<ScenarioComparison> scenarios;
  // busy_runs: real runs whose figures are unreliable, for any of these reasons: other
  // runnable tasks before the run (busy_before), the hypervisor's steal during it (stolen),
  // the busy loop's speed changing across it (drifted). A run may have several.
  int runs = 0, busy_runs = 0;
  int busy_before = 0, stolen = 0, drifted = 0;
  // The busy loop's speed, measured before each real run (loops per us): its range.
  double loop_speed_min = 0, loop_speed_max = 0;
  // Per metric: the median over the scenarios of |log(sim / real)|, and how many had one.
  std::vector<std::optional<double>> median_abs_log;
  std::vector<int> compared;
  // Per metric: the median over the scenarios of the real side's spread (real_spread).
  std::vector<std::optional<double>> median_real_spread;
};

// Throws InputError for a suite that is missing or empty, or a bad machine file.
ValidationReport run_validation(const ValidateOptions& o,
                                const std::function<void(const std::string&)>& progress = {});

// The largest |log(x / median)| over repeated measurements (a 0 beside a positive
// median counts as 1/100 of it); absent with fewer than 2 values or a median of 0.
std::optional<double> repeat_spread(const std::vector<double>& values);

// What makes one real run's figures unreliable: other runnable tasks before it, the
// hypervisor stealing more than 5 % of the machine's CPU time during it, or the busy
// loop's speed moving by more than a factor 1.1 (either way) across it (the cpu share
// target; both thresholds are judgements, not measured).
struct RunDoubts {
  bool busy_before = false, stolen = false, drifted = false;
  bool any() const { return busy_before || stolen || drifted; }
};
RunDoubts doubts_of_run(bool busy_before, double steal_share, double loops_per_us_before,
                        double loops_per_us_after);

// Why busy_runs are unreliable: "2 with other runnable tasks before; 1 with ...".
std::string unreliable_reasons(const ValidationReport& r);

// Fills median_abs_log, median_real_spread and compared from the scenarios (run_validation does).
void summarise_validation(ValidationReport& r);

// The table of ratios, the summary line per metric (with the targets), and a
// remark when the machine was busy.
std::string validation_table(const ValidationReport& r);
std::string validation_json(const ValidationReport& r);

// Why the host cannot record a run (not root, no tracefs), or "" when it can.
std::string validation_unavailable();

}  // namespace schedlab
