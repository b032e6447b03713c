// Kernel scheduler traces read into the event stream, so a recorded run is measured by
// the same analyzer as a simulated one (docs/traces.md).
//
// Read: the tracefs `trace` / `trace_pipe` text of 2.6.28 onwards; `trace-cmd report` in
// its default layout (the sched plugins' `a:1 [120] S ==> b:2 [120]`), with -R (raw
// fields, numeric prev_state), -N, -l (latency columns), -t, --ts-diff and an
// instance's `name:` prefix; systrace/atrace HTML (the trace-data sections); and
// trace.dat itself through libtracecmd (trace_dat.h). Understood: sched_switch,
// sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_fork and
// sched_process_exit; sched_waking gives the waker of the next wake-up of its task (with
// FtraceOptions::wakers); other events are skipped. Tasks are named by the
// last comm seen; a comm used by more than one pid is suffixed `:pid`. Every line names
// the task running on its CPU: that gives what ran before the first event, and a switch
// the trace lost is inferred where a line shows another task running than the last
// switch left there. A task first seen mid-trace starts at its first appearance.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "events/event.h"
#include "host/run_record.h"

namespace schedlab {

struct FtraceStats {
  int cpus = 0;
  size_t lines = 0, events = 0, switches = 0, skipped_lines = 0, lost_events = 0;
  size_t inferred_switches = 0;    // switches not in the trace, implied by what ran next
  Time first_ns = 0, last_ns = 0;  // trace clock of the first and last event
  std::string format;              // "ftrace text", "trace-cmd report", "systrace HTML", ...
  std::vector<std::string> notes;  // for the user: a cut last line, missing events
};

// What a reader of the stream wants beyond what `analyze` reads.
struct FtraceOptions {
  // A wake-up's `other` is its waker (the task a sched_waking line, or else the
  // sched_wakeup line, ran in; kNoTask from interrupt context or the idle task), as
  // workload extraction needs; off, `other` stays kNoTask as analyze has always had it.
  bool wakers = false;
  // A wake-up in soft-interrupt context is the interrupted task's (loopback networking
  // delivers in the sender's softirq; a timer softirq would make a false waker).
  bool softirq_wakers = false;
};

// Reads the whole trace, then replays it into `sink` with times relative to the first
// event (RunInfo::origin_ns holds that event's time). `run` is what a run on the host
// adds (host/run_record.h): its threads are named as the run named them and are the only
// tasks in the task metrics, and its own events (marks, SCHED_DEADLINE jobs, timer steps)
// are merged into the stream in time order. Throws InputError naming `file` and the line
// for a malformed sched event line, and when the text holds no sched_switch at all. A
// last line cut short (no newline) that cannot be read is left out with a note.
FtraceStats parse_ftrace(std::istream& in, const std::string& file, EventSink& sink,
                         const RunRecord& run = {}, const FtraceOptions& options = {});

// A trace file by its content: trace.dat (libtracecmd), systrace HTML or ftrace text. A
// trace.dat's per-CPU buffers are merged by time; records of one nanosecond on several
// CPUs are put in an order the tasks' states allow (order_cpu_ties in ftrace_record.h).
FtraceStats parse_trace_file(const std::string& path, EventSink& sink, const RunRecord& run = {},
                             const FtraceOptions& options = {});

}  // namespace schedlab
