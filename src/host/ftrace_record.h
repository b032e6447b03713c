// What one line of an ftrace text trace says, once its fields are converted
// (ftrace_parser.cpp), and the replay of those records into the event stream
// (ftrace_replay.cpp). Internal to src/host.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "host/ftrace_parser.h"
#include "host/run_record.h"

namespace schedlab {

// kOwn: an event of the run itself (RunRecord::events), merged in by time. kLost: a
// "CPU:N [LOST M EVENTS]" line (count in `lost`, -1 when not said). kWaking: a
// sched_waking line, the start of the wake-up its task's next sched_wakeup ends (waker
// and target as there); like kOwn and kLost it is not read for what runs on its CPU.
enum class FtraceKind : uint8_t {
  kSwitch,
  kWakeup,
  kWakeupNew,
  kMigrate,
  kFork,
  kExit,
  kOwn,
  kLost,
  kWaking
};

// A record of the events that say what a CPU ran (its line's task) and change tasks'
// states, as against the run's own events, lost-event lines and wake-ups' starts.
inline bool is_state_record(FtraceKind k) {
  return k != FtraceKind::kOwn && k != FtraceKind::kLost && k != FtraceKind::kWaking;
}

struct FtraceSide {
  int64_t pid = -1;
  int64_t tgid = 0;  // the (TGID) column of the line's running task; 0: not shown
  std::string comm;
  std::optional<int> prio;  // the event's prio field (the kernel's p->prio), where it has one
};

struct FtraceRecord {
  Time time = 0;
  CpuId cpu = 0;
  FtraceKind kind = FtraceKind::kSwitch;
  FtraceSide ctx;              // the task running on the CPU when the event was recorded
  FtraceSide a, b;             // switch: prev, next; fork: parent, child; others: the task in a
  FtraceSide waker;            // wake-up: the task that woke a (pid -1: interrupt, idle or unknown)
  bool waker_softirq = false;  // ... the task a soft interrupt that woke a ran over
  PrevState prev_state = PrevState::kPreempted;
  CpuId target = kNoCpu;  // wake-up target or migration destination
  CpuId orig = kNoCpu;    // migration source
  int64_t lost = 0;
  size_t line = 0;
  const HostEvent* own = nullptr;  // kOwn: the run's event (its task in a)
};

// The time span a trace states for itself (comments written by `run --ftrace`): the
// stream's time 0 and its end, when they are not its first and last events.
struct FtraceSpan {
  Time start_ns = -1, end_ns = -1;
};

// Records sorted by time from a file whose CPUs were merged by time alone (trace.dat):
// each run of one timestamp on several CPUs in an order the tasks' states allow
// (ftrace_ties.cpp).
void order_cpu_ties(std::vector<FtraceRecord>& records);

// Replays records sorted by time into `sink`; fills stats.cpus, inferred_switches, notes.
void replay_ftrace(const std::vector<FtraceRecord>& records, const RunRecord& run, int header_cpus,
                   const FtraceSpan& span, const FtraceOptions& options, EventSink& sink,
                   FtraceStats& stats);

}  // namespace schedlab
