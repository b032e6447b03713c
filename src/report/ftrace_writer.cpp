#include "report/ftrace_writer.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab {

namespace {

// A comm as one token: Perfetto splits the fields at blanks.
std::string comm_of(const std::string& name) {
  std::string out = name.empty() ? std::string("task") : name;
  std::replace(out.begin(), out.end(), ' ', '_');
  return out;
}

int prio_of(const TaskInfo& t) {
  if (t.policy == SchedPolicy::kDeadline) return -1;
  if (is_rt(t.policy)) return 99 - t.rt_priority;
  return 120 + t.nice;
}

// The kernel's "%5lu.%09lu" of a nanosecond clock.
std::string stamp(Time ns) {
  return fmt::format("{:>5}.{:09}", ns / kNsPerSec, ns % kNsPerSec);
}

}  // namespace

void FtraceTextWriter::begin(const RunInfo& info) {
  info_ = info;
  origin_ = info.origin_ns > 0 ? info.origin_ns : kSimClockBaseNs;
  curr_.assign(static_cast<size_t>(info.cpus), kNoTask);
  out_ << "# tracer: nop\n#\n"
       << fmt::format("# simulated by schedlab ({}, seed {})   #P:{}\n", info.policy, info.seed,
                      info.cpus)
       << "# schedlab: start " << stamp(origin_) << "\n"
       << "#\n"
          "#                                      _-----=> irqs-off\n"
          "#                                     / _----=> need-resched\n"
          "#                                    | / _---=> hardirq/softirq\n"
          "#                                    || / _--=> preempt-depth\n"
          "#                                    ||| /     delay\n"
          "#           TASK-PID       TGID   CPU#  ||||   TIMESTAMP  FUNCTION\n"
          "#              | |           |      |   ||||      |         |\n";
}

void FtraceTextWriter::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= threads_.size()) threads_.resize(t.id + 1);
  Thread& th = threads_[t.id];
  th.comm = comm_of(t.name);
  const KernelIds::Ids& ids = ids_.add(t);
  th.pid = ids.pid;
  th.tgid = ids.tgid;
  th.prio = prio_of(t);
}

void FtraceTextWriter::line(CpuId cpu, const char* flags, Time at, const char* event,
                            const std::string& fields) {
  if (cpu < 0 || cpu >= static_cast<CpuId>(curr_.size())) cpu = 0;
  const TaskId running = curr_[cpu];
  const std::string task = running == kNoTask
                               ? fmt::format("{:>16}-{:<7} (-------)", "<idle>", 0)
                               : fmt::format("{:>16}-{:<7} ({:>7})", threads_[running].comm,
                                             threads_[running].pid, threads_[running].tgid);
  out_ << fmt::format("{} [{:03}] {} {}: {}: {}\n", task, cpu, flags, stamp(origin_ + at), event,
                      fields);
}

std::string FtraceTextWriter::who(TaskId id, CpuId) const {
  const Thread& th = threads_[id];
  return fmt::format("comm={} pid={} prio={}", th.comm, th.pid, th.prio);
}

CpuId FtraceTextWriter::cpu_running(TaskId id) const {
  for (size_t c = 0; c < curr_.size(); ++c)
    if (id != kNoTask && curr_[c] == id) return static_cast<CpuId>(c);
  return kNoCpu;
}

void FtraceTextWriter::event(const SchedEvent& e) {
  switch (e.type) {
    case EventType::kSwitch: {
      if (e.arg == kStartState || e.cpu < 0 || e.cpu >= static_cast<CpuId>(curr_.size())) break;
      const auto side = [&](TaskId id, const char* which) {
        if (id == kNoTask)
          return fmt::format("{0}_comm=swapper/{1} {0}_pid=0 {0}_prio=120", which, e.cpu);
        const Thread& th = threads_[id];
        return fmt::format("{0}_comm={1} {0}_pid={2} {0}_prio={3}", which, th.comm, th.pid,
                           th.prio);
      };
      const auto state = static_cast<PrevState>(e.detail);
      // 4.14+: "R+" for a preempted task (TASK_REPORT_MAX), "X" for a dead one
      const char* letter = e.task == kNoTask                ? "R"
                           : state == PrevState::kPreempted ? "R+"
                           : state == PrevState::kExited    ? "X"
                                                            : "S";
      line(e.cpu, "d..2", e.time, "sched_switch",
           fmt::format("{} prev_state={} ==> {}", side(e.task, "prev"), letter,
                       side(e.other, "next")));
      curr_[e.cpu] = e.other;
      break;
    }
    case EventType::kWakeup:
    case EventType::kWakeupNew: {
      // Recorded by the waker where it runs; a timer's wake-up on the target CPU.
      const CpuId waker_cpu = cpu_running(e.other);
      const CpuId at = waker_cpu != kNoCpu ? waker_cpu : e.cpu;
      const std::string fields = fmt::format("{} target_cpu={:03}", who(e.task, e.cpu), e.cpu);
      if (e.type == EventType::kWakeup) {
        // no running waker: a timer's expiry, in hard-interrupt context ('h', as
        // hrtimer_wakeup runs), so that a reader takes no task for its waker
        const char* flags = waker_cpu != kNoCpu ? "d..3" : "d.h3";
        line(at, flags, e.time, "sched_waking", fields);
        line(at, flags, e.time, "sched_wakeup", fields);
      } else {
        line(at, "d..3", e.time, "sched_wakeup_new", fields);
      }
      break;
    }
    case EventType::kMigrate:
      line(e.arg, "d..2", e.time, "sched_migrate_task",
           fmt::format("{} orig_cpu={} dest_cpu={}", who(e.task, e.cpu), e.cpu, e.arg));
      break;
    case EventType::kFork:
      line(e.cpu, "....", e.time, "sched_process_fork",
           fmt::format("comm={} pid={} child_comm={} child_pid={}", threads_[e.task].comm,
                       threads_[e.task].pid, threads_[e.other].comm, threads_[e.other].pid));
      break;
    case EventType::kExit:
      line(e.cpu, "....", e.time, "sched_process_exit", who(e.task, e.cpu));
      break;
    case EventType::kMark: {
      if (e.task == kNoTask || e.arg < 0 || static_cast<size_t>(e.arg) >= info_.mark_names.size())
        break;
      const Thread& th = threads_[e.task];
      int64_t& total = mark_totals_[{th.tgid, e.arg}];
      total += e.value;
      line(e.cpu, "....", e.time, "tracing_mark_write",
           fmt::format("C|{}|{}|{}", th.tgid, comm_of(info_.mark_names[e.arg]), total));
      break;
    }
    default:
      break;
  }
}

void FtraceTextWriter::end(Time t) {
  out_ << "# schedlab: end " << stamp(origin_ + t) << "\n";
  out_.flush();
}

}  // namespace schedlab
