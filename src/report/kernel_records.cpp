#include "report/kernel_records.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab {

namespace {

// A mark's name as one token: Perfetto splits the fields of ftrace text at blanks.
std::string token_of(const std::string& name) {
  std::string out = name.empty() ? std::string("task") : name;
  std::replace(out.begin(), out.end(), ' ', '_');
  return out;
}

// The kernel's name of a task: a recording's own comm (not its "comm:pid"), else its name.
std::string comm_of(const TaskInfo& t) {
  if (!t.comm.empty()) return t.comm;
  return t.name.empty() ? std::string("task") : t.name;
}

}  // namespace

int prio_of(const TaskInfo& t) {
  if (t.policy == SchedPolicy::kDeadline) return -1;
  if (is_rt(t.policy)) return 99 - t.rt_priority;
  return 120 + t.nice;
}

void KernelRecorder::begin(const RunInfo& info) {
  info_ = info;
  origin_ = info.origin_ns > 0 ? info.origin_ns : kSimClockBaseNs;
  curr_.assign(static_cast<size_t>(info.cpus), kNoTask);
  start_unshown_.assign(static_cast<size_t>(info.cpus), false);
  idle_record_at_.assign(static_cast<size_t>(info.cpus), -1);
}

void KernelRecorder::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= threads_.size()) threads_.resize(t.id + 1);
  KernelTask& th = threads_[t.id];
  th.comm = comm_of(t);
  const KernelIds::Ids& ids = ids_.add(t);
  th.pid = ids.pid;
  th.tgid = ids.tgid;
  th.prio = prio_of(t);
  ++live_threads_[th.tgid];
}

KernelTask KernelRecorder::idle(CpuId cpu) const {
  KernelTask t;
  t.comm = fmt::format("swapper/{}", cpu);
  return t;
}

CpuId KernelRecorder::cpu_running(TaskId id) const {
  for (size_t c = 0; c < curr_.size(); ++c)
    if (id != kNoTask && curr_[c] == id) return static_cast<CpuId>(c);
  return kNoCpu;
}

void KernelRecorder::record(KernelRecord& r, CpuId cpu, Time at) {
  if (cpu < 0 || cpu >= static_cast<CpuId>(curr_.size())) cpu = 0;
  r.cpu = cpu;
  r.clock_ns = origin_ + at;
  const TaskId running = curr_.empty() ? kNoTask : curr_[cpu];
  r.running = running == kNoTask ? nullptr : &threads_[running];
  if (running == kNoTask) idle_record_at_[static_cast<size_t>(cpu)] = at;
  if (r.event != KernelEvent::kMark) start_unshown_[cpu] = false;  // a reader skips markers
  emit_(r);
}

// A task that ran on a CPU from the start and is still there with no record on that CPU
// (its wake-ups of others are recorded on their targets) would be lost to a reader, who
// learns what a CPU ran from the task its records name: one record in its name, the
// sched_waking and sched_wakeup the kernel traces when a task wakes itself
// (try_to_wake_up's p == current path), which changes no task's state.
void KernelRecorder::end(Time t) {
  for (size_t c = 0; c < curr_.size(); ++c) {
    if (!start_unshown_[c] || curr_[c] == kNoTask) continue;
    const auto cpu = static_cast<CpuId>(c);
    KernelRecord r;
    r.preempt_count = 1;
    r.a = threads_[curr_[c]];
    r.target_cpu = cpu;
    r.event = KernelEvent::kWaking;
    record(r, cpu, t);
    r.event = KernelEvent::kWakeup;
    record(r, cpu, t);
  }
}

// A switch out of idle that the recording lacked is not written (a reader infers it
// again), and a reader places it after the task's last wake-up or migration record, or
// after the CPU's last record in idle context if later (host/ftrace_replay.cpp,
// place_idle_exits). The records that put it there in the recording may be written
// elsewhere here: a wake-up with no waker in the stream goes to its target CPU, a
// migration to its destination (this VM's recordings: an interrupt in idle on CPU 1 waking
// a task onto CPU 0 after the wake-up of the task that then ran on CPU 1). When no record
// written so far gives the switch's time, one is written that does: a sched_wakeup of the
// task, already woken (which changes no state), in idle context on the CPU at that time.
void KernelRecorder::idle_exit_evidence(const SchedEvent& e) {
  const auto cpu = static_cast<size_t>(e.cpu);
  if (std::max(idle_record_at_[cpu], woken_at(e.other)) >= e.time) return;
  KernelRecord r;
  r.event = KernelEvent::kWakeup;
  r.irqs_off = true;
  r.hardirq = true;
  r.preempt_count = 3;
  r.a = threads_[e.other];
  r.target_cpu = e.cpu;
  record(r, e.cpu, e.time);
  mark_woken(e.other, e.time);
}

Time KernelRecorder::woken_at(TaskId id) const {
  const auto i = static_cast<size_t>(id);
  return i < woken_at_.size() ? woken_at_[i] : -1;
}

void KernelRecorder::mark_woken(TaskId id, Time at) {
  const auto i = static_cast<size_t>(id);
  if (i >= woken_at_.size()) woken_at_.resize(i + 1, -1);
  woken_at_[i] = at;
}

void KernelRecorder::marker(CpuId cpu, Time at, std::string text) {
  KernelRecord r;
  r.event = KernelEvent::kMark;
  r.text = std::move(text);
  record(r, cpu, at);
}

void KernelRecorder::event(const SchedEvent& e) {
  KernelRecord r;
  switch (e.type) {
    case EventType::kSwitch: {
      if (e.cpu < 0 || e.cpu >= static_cast<CpuId>(curr_.size())) break;
      if (e.arg == kStartState) {  // not a record: the CPU's next records are in its name
        curr_[e.cpu] = e.other;
        start_unshown_[e.cpu] = e.other != kNoTask;
        break;
      }
      if (e.arg == kInferredSwitch) {  // not in the trace rewritten: a reader infers it again
        if (e.task == kNoTask && e.other != kNoTask) idle_exit_evidence(e);
        curr_[e.cpu] = e.other;
        break;
      }
      r.event = KernelEvent::kSwitch;
      r.irqs_off = true;
      r.preempt_count = 2;
      r.a = e.task == kNoTask ? idle(e.cpu) : threads_[e.task];
      r.b = e.other == kNoTask ? idle(e.cpu) : threads_[e.other];
      const auto state = static_cast<PrevState>(e.detail);
      r.prev_state = e.task == kNoTask                ? kStateRunning
                     : state == PrevState::kPreempted ? kStatePreempted
                     : state == PrevState::kExited    ? kStateDead
                                                      : kStateSleeping;
      record(r, e.cpu, e.time);
      curr_[e.cpu] = e.other;
      break;
    }
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew: {
      // Recorded by the waker where it runs; a timer's wake-up on the target CPU, in
      // hard-interrupt context (as hrtimer_wakeup runs), so that a reader takes no task
      // for its waker. A simulated wake-up's sched_waking comes with its sched_wakeup; a
      // recording's where the recording had it (kWaking, on the waker's CPU).
      const CpuId waker_cpu = cpu_running(e.other);
      r.irqs_off = true;
      r.hardirq = e.type != EventType::kWakeupNew && waker_cpu == kNoCpu;
      r.preempt_count = 3;
      r.a = threads_[e.task];
      r.target_cpu = e.type == EventType::kWaking && e.arg >= 0 ? e.arg : e.cpu;
      const CpuId at = waker_cpu != kNoCpu ? waker_cpu : e.cpu;
      const auto task = static_cast<size_t>(e.task);
      if (task >= waking_written_.size()) waking_written_.resize(task + 1, 0);
      if (e.type == EventType::kWaking) {
        r.event = KernelEvent::kWaking;
        record(r, at, e.time);
        waking_written_[task] = 1;
        break;
      }
      if (e.type == EventType::kWakeup) {
        r.event = KernelEvent::kWaking;
        if (!waking_written_[task]) record(r, at, e.time);
        r.event = KernelEvent::kWakeup;
      } else {
        r.event = KernelEvent::kWakeupNew;
      }
      waking_written_[task] = 0;
      record(r, at, e.time);
      mark_woken(e.task, e.time);
      break;
    }
    case EventType::kMigrate:
      r.event = KernelEvent::kMigrate;
      r.irqs_off = true;
      r.preempt_count = 2;
      r.a = threads_[e.task];
      r.orig_cpu = e.cpu;
      r.target_cpu = e.arg;
      record(r, e.arg, e.time);
      mark_woken(e.task, e.time);
      break;
    case EventType::kFork:
      r.event = KernelEvent::kFork;
      r.a = threads_[e.task];
      r.b = threads_[e.other];
      record(r, e.cpu, e.time);
      break;
    case EventType::kExit: {
      r.event = KernelEvent::kExit;
      r.a = threads_[e.task];
      r.group_dead = --live_threads_[r.a.tgid] <= 0;
      record(r, e.cpu, e.time);
      break;
    }
    case EventType::kMark: {
      if (e.task == kNoTask || e.arg < 0 || static_cast<size_t>(e.arg) >= info_.mark_names.size())
        break;
      const KernelTask& th = threads_[e.task];
      int64_t& total = mark_totals_[{th.tgid, e.arg}];
      total += e.value;
      r.event = KernelEvent::kMark;
      r.text = fmt::format("C|{}|{}|{}", th.tgid, token_of(info_.mark_names[e.arg]), total);
      record(r, e.cpu, e.time);
      break;
    }
    default:
      break;
  }
}

}  // namespace schedlab
