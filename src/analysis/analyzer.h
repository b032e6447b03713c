// The analyzer: event stream in, metrics out. It sees only the stream (and the task
// table), so simulated and recorded runs are measured by the same code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/cpu_residency.h"
#include "analysis/latency.h"
#include "events/event.h"
#include "events/kernel_ids.h"

namespace schedlab {

// One activation of a task with an rt-app timer, as a row of rt-app's per-thread log
// (rt-app.c thread_body and log_timing): the iteration runs from `start` (the task
// running again after its previous timer) to `end` (running again after this one).
struct TimerActivation {
  Time start_ns = 0, end_ns = 0;
  Time run_ns = 0;             // start to reaching the timer step (rt-app's `run`)
  Time cpu_ns = 0;             // CPU time in that part (stands for rt-app's `perf`)
  Time slack_ns = 0;           // expiry - reaching the timer step (< 0: the period was missed)
  Time wakeup_latency_ns = 0;  // running again - expiry, when it slept (rt-app's `wu_lat`)
  int64_t c_duration_us = 0, c_period_us = 0;
};

struct TaskMetrics {
  TaskId tid = kNoTask;
  std::string name;
  int64_t pid = 0, tgid = 0;  // events/kernel_ids.h: a recording's, or made up
  Time cpu_time_ns = 0, wait_time_ns = 0, sleep_time_ns = 0;
  uint64_t switches_voluntary = 0, switches_involuntary = 0, migrations = 0;
  LatencyStats wakeup_latency;
  // SCHED_DEADLINE jobs ended, and those that ended after their absolute deadline.
  uint64_t dl_jobs = 0, deadline_misses = 0;
  // What pert measures: the gaps from a preemption to running again.
  uint64_t preempted_gaps = 0;
  Time preempted_gap_total_ns = 0, preempted_gap_max_ns = 0;
  // What perf sched latency measures: every delay from becoming runnable (a wake-up or a
  // preemption) to running (builtin-sched.c, latency_runtime_event/latency_switch_event).
  uint64_t delays = 0;
  Time delay_total_ns = 0, delay_max_ns = 0, delay_max_start_ns = 0, delay_max_end_ns = 0;
  CpuResidency cpu_residency;  // CPU time run on each CPU
  std::vector<TimerActivation> activations;
  uint64_t missed_periods = 0;  // activations with a negative slack
};

struct CpuMetrics {
  CpuId id = 0;
  Time busy_ns = 0, idle_ns = 0, idle_while_runnable_ns = 0;
  uint64_t lost_events = 0;     // a recording's dropped events (buffer overruns)
  bool lost_uncounted = false;  // some were dropped and the trace does not say how many
};

struct MarkMetrics {
  uint64_t count = 0;
  Time first_ns = -1, last_ns = -1;
  // Time between a task's consecutive marks of this name: a client's per-transaction or
  // per-query response time, a player's frame period.
  LatencyStats interval;
};

struct Metrics {
  std::string policy;
  uint64_t seed = 0;
  int cpus = 0;
  Time duration_ns = 0;
  Time origin_ns = 0;     // the trace clock at time 0 (RunInfo::origin_ns)
  std::string generator;  // RunInfo::generator
  std::vector<TaskMetrics> tasks;
  std::vector<CpuMetrics> per_cpu;
  std::map<std::string, MarkMetrics> marks;  // by name
  uint64_t context_switches = 0, migrations = 0, events = 0;
  uint64_t inferred_switches = 0;  // of context_switches: not in the recording, implied
  LatencyStats wakeup_latency;     // every workload task's wake-up latencies together
  // Times a waiter found a spinlock's holder preempted (once per holder episode).
  uint64_t lock_holder_preemptions = 0;
  double jain_fairness = 1.0;  // Jain's index of the tasks' CPU times
};

class Analyzer final : public EventSink {
 public:
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void affinity_changed(TaskId id, const CpuMask& m, Time now) override;
  void event(const SchedEvent& e) override;
  void end(Time t) override;

  const Metrics& metrics() const { return m_; }

 private:
  enum class State : uint8_t { kWaiting, kRunning, kSleeping, kGone };
  // A task's state between events. The first 64 bytes are what every switch and wake-up
  // reads and writes, the task's figures included, and the next 64 a switch-in's delay
  // figures (all copied into its TaskMetrics at the end): at 100,000 tasks each record is
  // a cache miss, and a switch used to touch three lines of TaskMetrics besides (now a
  // switch-in reaches TaskMetrics only for a wake-up's latency sample, a preemption's gap
  // or an rt-app activation, and a change of CPU through the batched residency).
  struct alignas(64) TaskTrack {
    State state = State::kWaiting;
    bool all_cpus = true;
    bool ran = false;                 // first_run is set
    bool activation_pending = false;  // `pending` waits for the task to run again
    // Waiting since ready_at after a wake-up (its latency is sampled at the switch-in) or
    // after a preemption, whose involuntary switch is counted then too.
    bool woken = false, preempted = false;
    CpuId cpu = kNoCpu;  // where it runs, while it runs; where it ran last after
    Time since = 0;
    Time ready_at = -1;  // woken or preempted, not yet running again (perf's delay)
    Time cpu_ns = 0, wait_ns = 0, sleep_ns = 0;
    uint64_t switches_voluntary = 0;
    // ---- the next line: a switch-in's delay figures (into TaskMetrics at the end)
    uint64_t switches_involuntary = 0, delays = 0;
    Time delay_total_ns = 0, delay_max_ns = 0, delay_max_start_ns = 0, delay_max_end_ns = 0;
    Time cpu_ns_on_cpu = 0;  // cpu_ns when it came to `cpu` (the residency not yet added)
    Time woken_at = -1;      // when woken, for a trace's woken task switched out as preempted
    // ---- read and written less often
    Time first_run = -1;
    // rt-app timer activations: the open iteration, and one waiting for its end
    Time iteration_start = -1, cpu_at_iteration_start = 0;
    TimerActivation pending;
    CpuMask allowed;
  };
  std::vector<char> outside_workload_;        // [task]: TaskInfo::workload was false
  std::vector<std::vector<Time>> last_mark_;  // [mark][task]: its last such mark, or -1
  struct CpuTrack {
    TaskId curr = kNoTask;
    Time since = 0;
    // idle-while-runnable accumulators at the start of the current idle period
    Time global_mark = 0, own_mark = 0;
    int restricted_waiting = 0;  // waiting tasks with a partial mask that allow this CPU
    Time own_acc = 0, own_since = 0;
    bool own_active = false;
  };

  void set_state(TaskId id, State s, Time now);
  void waiting_changed(TaskId id, int delta, Time now);
  Time global_integral(Time now) const;
  Time own_integral(const CpuTrack& c, Time now) const;
  void update_own(CpuId cpu, Time now);
  void close_idle(CpuId cpu, Time now);
  void close_task_metrics();
  // TaskTrack's figures into the task's TaskMetrics, at the end.
  void copy_figures(TaskId id);
  // The CPU time run on tr.cpu since the task came there, into its residency: noted in
  // `residency_due_` and added a batch at a time, when it is full and at the end (a
  // task's residency is a cache miss, which a batch's independent adds overlap).
  void add_residency(TaskId id);
  void add_due_residency();
  // `recorded`: false for a switch the trace lacks (inferred), whose time is an estimate:
  // the delays it ends are not sampled.
  void switched_in(TaskId id, CpuId cpu, Time now, bool recorded);
  void timer_reached(const SchedEvent& e);
  Time cpu_time_at(TaskId id, Time now) const;

  Metrics m_;
  RunInfo info_;
  KernelIds ids_;
  std::vector<TaskTrack> tracks_;
  struct ResidencyDue {
    TaskId task;
    CpuId cpu;
    Time ns;
  };
  static constexpr size_t kResidencyBatch = 512;
  std::vector<ResidencyDue> residency_due_;
  std::vector<CpuTrack> cpus_;
  int waiting_all_ = 0;  // waiting tasks allowed on every CPU
  Time global_acc_ = 0, global_since_ = 0;
  std::vector<CpuId> restricted_cpus_;
};

}  // namespace schedlab
