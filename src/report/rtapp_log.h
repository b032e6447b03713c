// rt-app's per-thread log (`--rtapp-log DIR`): one file per task that ran timer
// activations, named as rt-app names them (<log_basename>-<thread name>-<index>.log, the
// basename "rt-app"), with rt-app's header and columns (rt-app.c thread_body,
// rt-app_utils.c log_timing): idx perf run period start end rel_st slack c_duration
// c_period wu_lat, in microseconds, start and end on the trace clock (a simulation's
// starts at 100 s). `perf` is the CPU time of the run part in us (rt-app counts its
// calibrated loops there); `run` the time from the iteration's start to its timer step.
#pragma once

#include <string>
#include <vector>

#include "analysis/analyzer.h"

namespace schedlab {

// One task's log text.
std::string rtapp_log_text(const Metrics& m, const TaskMetrics& t, int index);

// Writes the logs into `dir` (created if missing) and returns the files written;
// InputError naming a file that cannot be written.
std::vector<std::string> write_rtapp_logs(const Metrics& m, const std::string& dir);

}  // namespace schedlab
