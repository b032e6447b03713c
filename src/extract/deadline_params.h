// SCHED_DEADLINE parameters of an extracted task (docs/replay.md): a trace shows a
// deadline task only by its prio (-1; sched_switch and sched_wakeup carry no runtime,
// deadline or period), so they are given (extract --dl) or inferred from the task's
// wake-ups.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/types.h"

namespace schedlab {

// Given for a thread: extract --dl NAME_OR_PID=RUNTIME:DEADLINE:PERIOD (microseconds).
struct DlGiven {
  std::string who;  // a thread's name or comm, or its pid
  Time runtime_ns = 0, deadline_ns = 0, period_ns = 0;
};

// Reads "NAME_OR_PID=RUNTIME:DEADLINE:PERIOD" with 0 < runtime <= deadline <= period
// (sched_setattr's rule). Throws InputError (key "--dl TEXT") otherwise.
DlGiven parse_dl_option(const std::string& text);

// Inferred from a task's wake-ups as a deadline task (the caller leaves out those before
// its lines show prio -1), each (time, the task's CPU time so far): the period is the
// median interval between wake-ups, the runtime the most CPU time of one whole job (from a
// wake-up to the next: before the first a thread may set itself up, after the last tear
// down), rounded up to the microsecond and at most the period; the deadline is the period
// (implicit deadlines). Nothing with fewer than two wake-ups.
struct DlInferred {
  Time runtime_ns = 0, period_ns = 0;
};
std::optional<DlInferred> infer_dl(const std::vector<std::pair<Time, Time>>& wakes);

}  // namespace schedlab
