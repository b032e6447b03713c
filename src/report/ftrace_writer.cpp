#include "report/ftrace_writer.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab {

namespace {

// The kernel's "%5lu.%09lu" of a nanosecond clock.
std::string stamp(Time ns) {
  return fmt::format("{:>5}.{:09}", ns / kNsPerSec, ns % kNsPerSec);
}

// The latency columns: irqs-off, need-resched, hardirq/softirq, preempt-depth.
std::string flags_of(const KernelRecord& r) {
  std::string f = "....";
  if (r.irqs_off) f[0] = 'd';
  if (r.hardirq) f[2] = 'h';
  if (r.preempt_count > 0) f[3] = static_cast<char>('0' + std::min<int>(r.preempt_count, 9));
  return f;
}

// A comm as one token: Perfetto splits the fields of ftrace text at blanks.
std::string comm_token(std::string comm) {
  std::replace(comm.begin(), comm.end(), ' ', '_');
  return comm;
}

std::string who(const KernelTask& t, const char* prefix = "") {
  return fmt::format("{0}comm={1} {0}pid={2} {0}prio={3}", prefix, comm_token(t.comm), t.pid,
                     t.prio);
}

// sched_switch's prev_state as the kernel prints it.
const char* state_letters(int64_t state) {
  return state == kStatePreempted ? "R+"
         : state == kStateDead    ? "X"
         : state == kStateRunning ? "R"
                                  : "S";
}

const char* event_name(KernelEvent e) {
  switch (e) {
    case KernelEvent::kSwitch:
      return "sched_switch";
    case KernelEvent::kWaking:
      return "sched_waking";
    case KernelEvent::kWakeup:
      return "sched_wakeup";
    case KernelEvent::kWakeupNew:
      return "sched_wakeup_new";
    case KernelEvent::kMigrate:
      return "sched_migrate_task";
    case KernelEvent::kFork:
      return "sched_process_fork";
    case KernelEvent::kExit:
      return "sched_process_exit";
    case KernelEvent::kMark:
      return "tracing_mark_write";
  }
  return "";
}

std::string fields_of(const KernelRecord& r) {
  switch (r.event) {
    case KernelEvent::kSwitch:
      return fmt::format("{} prev_state={} ==> {}", who(r.a, "prev_"), state_letters(r.prev_state),
                         who(r.b, "next_"));
    case KernelEvent::kWaking:
    case KernelEvent::kWakeup:
    case KernelEvent::kWakeupNew:
      return fmt::format("{} target_cpu={:03}", who(r.a), r.target_cpu);
    case KernelEvent::kMigrate:
      return fmt::format("{} orig_cpu={} dest_cpu={}", who(r.a), r.orig_cpu, r.target_cpu);
    case KernelEvent::kFork:
      return fmt::format("comm={} pid={} child_comm={} child_pid={}", comm_token(r.a.comm), r.a.pid,
                         comm_token(r.b.comm), r.b.pid);
    case KernelEvent::kExit:
      return who(r.a);
    case KernelEvent::kMark:
      return r.text;
  }
  return "";
}

}  // namespace

FtraceTextWriter::FtraceTextWriter(std::ostream& out)
    : out_(out), recorder_([this](const KernelRecord& r) { line(r); }) {}

void FtraceTextWriter::begin(const RunInfo& info) {
  recorder_.begin(info);
  out_ << "# tracer: nop\n#\n"
       << fmt::format("# simulated by schedlab ({}, seed {})   #P:{}\n", info.policy, info.seed,
                      info.cpus)
       << "# schedlab: start " << stamp(recorder_.origin_ns()) << "\n"
       << "#\n"
          "#                                      _-----=> irqs-off\n"
          "#                                     / _----=> need-resched\n"
          "#                                    | / _---=> hardirq/softirq\n"
          "#                                    || / _--=> preempt-depth\n"
          "#                                    ||| /     delay\n"
          "#           TASK-PID       TGID   CPU#  ||||   TIMESTAMP  FUNCTION\n"
          "#              | |           |      |   ||||      |         |\n";
}

void FtraceTextWriter::line(const KernelRecord& r) {
  const std::string task = r.running == nullptr
                               ? fmt::format("{:>16}-{:<7} (-------)", "<idle>", 0)
                               : fmt::format("{:>16}-{:<7} ({:>7})", comm_token(r.running->comm),
                                             r.running->pid, r.running->tgid);
  out_ << fmt::format("{} [{:03}] {} {}: {}: {}\n", task, r.cpu, flags_of(r), stamp(r.clock_ns),
                      event_name(r.event), fields_of(r));
}

void FtraceTextWriter::end(Time t) {
  recorder_.end(t);
  out_ << "# schedlab: end " << stamp(recorder_.origin_ns() + t) << "\n";
  out_.flush();
}

}  // namespace schedlab
