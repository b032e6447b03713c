// The event stream as the records the kernel's sched tracepoints write, for the writers
// that give a run the kernel's own trace formats: ftrace text (ftrace_writer.h) and
// trace.dat (trace_dat_writer.h). One place decides what the kernel would have recorded:
// on which CPU, in whose name (the task running there), with which irq flags and
// preempt count, and each task's pid, tgid and prio (events/kernel_ids.h). Both writers
// then only lay the records out. What a recorded CPU ran when the recording began
// (kStartState) is, as in the kernel's trace, the task that CPU's first records are in
// the name of: a reader of the file infers it from them (host/ftrace_parser.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/kernel_ids.h"

namespace schedlab {

enum class KernelEvent : uint8_t {
  kSwitch,     // sched_switch: a = prev, b = next
  kWaking,     // sched_waking: a
  kWakeup,     // sched_wakeup: a
  kWakeupNew,  // sched_wakeup_new: a
  kMigrate,    // sched_migrate_task: a from orig_cpu to target_cpu
  kFork,       // sched_process_fork: a = parent, b = child
  kExit,       // sched_process_exit: a
  kMark,       // a write to trace_marker (ftrace's print event): text
};

// A task as the tracepoints name it; pid 0 is the idle task (comm swapper/N).
struct KernelTask {
  std::string comm;  // blanks and all, as a trace.dat holds it (the text writes them as _)
  int64_t pid = 0, tgid = 0;
  int prio = 120;  // 120 + nice, 99 - rt_priority, -1 for SCHED_DEADLINE
};

// The prio field of a task's records: 120 + nice, 99 - rt_priority, -1 for SCHED_DEADLINE.
int prio_of(const TaskInfo& t);

// The kernel's prev_state of a sched_switch (4.14+: TASK_REPORT_MAX for a preemption).
inline constexpr int64_t kStateRunning = 0, kStateSleeping = 0x1, kStateDead = 0x10,
                         kStatePreempted = 0x100;

struct KernelRecord {
  KernelEvent event = KernelEvent::kSwitch;
  CpuId cpu = 0;
  Time clock_ns = 0;                    // the trace clock (the run's origin + the event's time)
  const KernelTask* running = nullptr;  // the task running on `cpu`; nullptr: idle
  bool irqs_off = false, hardirq = false;
  uint8_t preempt_count = 0;
  KernelTask a, b;
  int64_t prev_state = kStateRunning;
  CpuId target_cpu = kNoCpu, orig_cpu = kNoCpu;
  bool group_dead = false;  // sched_process_exit: the last thread of its process
  std::string text;         // kMark: the marker's text
};

class KernelRecorder {
 public:
  using Emit = std::function<void(const KernelRecord&)>;
  explicit KernelRecorder(Emit emit) : emit_(std::move(emit)) {}

  void begin(const RunInfo& info);
  void task_created(const TaskInfo& t);
  // Its later records show the new prio.
  void sched_changed(const TaskInfo& t) { threads_[static_cast<size_t>(t.id)].prio = prio_of(t); }
  void event(const SchedEvent& e);
  // A write to trace_marker on `cpu` at the stream's time `at`.
  void marker(CpuId cpu, Time at, std::string text);
  // The stream's end at `t`: a record for each task that ran on a CPU from the start of a
  // recording (kStartState) and was never named by a record there.
  void end(Time t);

  const RunInfo& info() const { return info_; }
  Time origin_ns() const { return origin_; }
  int cpus() const { return static_cast<int>(curr_.size()); }
  // Every task seen, by task id (for trace.dat's saved_cmdlines).
  const std::vector<KernelTask>& tasks() const { return threads_; }

 private:
  void record(KernelRecord& r, CpuId cpu, Time at);
  KernelTask idle(CpuId cpu) const;
  CpuId cpu_running(TaskId id) const;
  void idle_exit_evidence(const SchedEvent& e);
  Time woken_at(TaskId id) const;
  void mark_woken(TaskId id, Time at);

  Emit emit_;
  RunInfo info_;
  Time origin_ = kSimClockBaseNs;
  KernelIds ids_;
  std::vector<KernelTask> threads_;
  std::vector<TaskId> curr_;             // [cpu]
  std::vector<bool> start_unshown_;      // [cpu]: its start task is named by no record yet
  std::vector<Time> idle_record_at_;     // [cpu]: the time of its last record in idle context
  std::vector<Time> woken_at_;           // [task]: its last wake-up or migration record
  std::vector<char> waking_written_;     // [task]: its wake-up's sched_waking is written
  std::map<int64_t, int> live_threads_;  // tgid -> threads alive
  std::map<std::pair<int64_t, int32_t>, int64_t> mark_totals_;  // (tgid, mark) -> count
};

}  // namespace schedlab
