// The analyzer: event stream in, metrics out. It sees only the stream (and the task
// table), so simulated and recorded runs are measured by the same code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/latency.h"
#include "events/event.h"

namespace schedlab {

struct TaskMetrics {
  TaskId tid = kNoTask;
  std::string name;
  Time cpu_time_ns = 0, wait_time_ns = 0, sleep_time_ns = 0;
  uint64_t switches_voluntary = 0, switches_involuntary = 0, migrations = 0;
  LatencyStats wakeup_latency;
  // SCHED_DEADLINE jobs ended, and those that ended after their absolute deadline.
  uint64_t dl_jobs = 0, deadline_misses = 0;
  // What pert measures: the gaps from a preemption to running again.
  uint64_t preempted_gaps = 0;
  Time preempted_gap_total_ns = 0, preempted_gap_max_ns = 0;
};

struct CpuMetrics {
  CpuId id = 0;
  Time busy_ns = 0, idle_ns = 0, idle_while_runnable_ns = 0;
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
  std::vector<TaskMetrics> tasks;
  std::vector<CpuMetrics> per_cpu;
  std::map<std::string, MarkMetrics> marks;  // by name
  uint64_t context_switches = 0, migrations = 0, events = 0;
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
  struct TaskTrack {
    State state = State::kWaiting;
    Time since = 0;
    Time woken_at = -1;      // pending wake-up, for latency
    Time preempted_at = -1;  // preempted, not yet running again
    bool all_cpus = true;
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

  Metrics m_;
  RunInfo info_;
  std::vector<TaskTrack> tracks_;
  std::vector<CpuTrack> cpus_;
  int waiting_all_ = 0;  // waiting tasks allowed on every CPU
  Time global_acc_ = 0, global_since_ = 0;
  std::vector<CpuId> restricted_cpus_;
};

}  // namespace schedlab
