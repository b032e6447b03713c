// The ftrace text format (the tracefs `trace` file, or what `trace_pipe` printed) read
// into the event stream, so a recorded run is measured by the same analyzer as a
// simulated one (docs/traces.md).
//
// Understood: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_process_fork and sched_process_exit, in the key=value layout of 2.6.31 onwards
// (prev_state R, R+, S, D, ..., `success=1` and zero-padded target_cpu of 2.6.3x) and the
// `task comm:pid [prio] (state)` layout of 2.6.28-2.6.30; an optional flags column and a
// `(tgid)` column. sched_waking and other events are skipped. Tasks are named by the
// last comm seen (a child carries its parent's until it execs); a comm used by more than
// one pid is suffixed `:pid`. Every line names the task running
// on its CPU: that gives what ran before the first event, and a switch the trace lost is
// inferred where a line shows another task running than the last switch left there.
#pragma once

#include <istream>
#include <string>

#include "events/event.h"
#include "host/run_record.h"

namespace schedlab {

struct FtraceStats {
  int cpus = 0;
  size_t lines = 0, events = 0, switches = 0, skipped_lines = 0, lost_events = 0;
  size_t inferred_switches = 0;    // switches not in the trace, implied by what ran next
  Time first_ns = 0, last_ns = 0;  // trace clock of the first and last event
};

// Reads the whole trace, then replays it into `sink` with times relative to the first
// event. `run` is what a run on the host adds (host/run_record.h): its threads are named
// as the run named them and are the only tasks in the task metrics, and its own events
// (marks, SCHED_DEADLINE jobs) are merged into the stream in time order. Throws
// InputError naming `file` and the line for a malformed sched event line, and when the
// text holds no sched_switch at all.
FtraceStats parse_ftrace(std::istream& in, const std::string& file, EventSink& sink,
                         const RunRecord& run = {});

}  // namespace schedlab
