// What a run on the host knows beside its trace: the threads it started (by kernel tid),
// the names of its marks, and the events only the run itself sees (its marks and its
// SCHED_DEADLINE jobs, the same kMark and kDlJob the simulator emits). Times are
// CLOCK_MONOTONIC, the clock the recording sets for the trace (trace_clock "mono"), so
// the parser merges them into the recorded stream in time order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "events/event.h"

namespace schedlab {

// A thread a run started itself: its task name and the CPUs it may use.
struct KnownThread {
  std::string name;
  CpuMask allowed;
};

// One event of the run, by kernel tid: type kMark (arg = mark index, value = count),
// kDlJob (value = end - absolute deadline) or kTimer (as events/event.h: value = expiry,
// arg = period in us, other = c_duration in us).
struct HostEvent {
  Time time_ns = 0;  // CLOCK_MONOTONIC
  int64_t tid = 0;
  CpuId cpu = 0;
  EventType type = EventType::kMark;
  int32_t arg = 0;
  int64_t value = 0;
  int32_t other = kNoTask;
};

struct RunRecord {
  std::string policy = "host";             // the label of the metrics
  std::string generator;                   // RunInfo::generator: the program's own units
  std::map<int64_t, KnownThread> threads;  // empty: every traced task is the workload
  std::vector<std::string> mark_names;     // what a kMark's arg indexes
  std::vector<HostEvent> events;           // in time order
};

}  // namespace schedlab
