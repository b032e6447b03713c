// Chrome/Perfetto trace JSON (docs/traces.md), written as the events arrive: a
// "CPUs" process with one track per CPU showing which task runs, and a "tasks" process
// with one track per task showing running and runnable slices, wake-ups and marks.
// Open it in ui.perfetto.dev or chrome://tracing. A recording's tasks keep their kernel
// ids (a track per thread `tid` = pid, in a process per tgid; the CPUs are process 0) and
// its absolute timestamps, unless `from_zero` starts the timeline at 0.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "events/event.h"

namespace schedlab {

class PerfettoTraceWriter final : public EventSink {
 public:
  explicit PerfettoTraceWriter(std::ostream& out, bool from_zero = false)
      : out_(out), from_zero_(from_zero) {}
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  void end(Time t) override;

 private:
  void write(const std::string& json);
  void slice(int pid, int tid, const std::string& name, Time start, Time end,
             const std::string& args = "");
  void close_cpu(CpuId cpu, Time now);
  int pid_of(TaskId id) const;
  int tid_of(TaskId id) const;
  std::string ts(Time t) const;

  struct CpuSlice {
    TaskId task = kNoTask;
    Time since = 0;
  };
  struct TaskSlice {
    Time running_since = -1, runnable_since = -1;
  };

  std::ostream& out_;
  bool from_zero_ = false;
  bool recorded_ = false;  // kernel ids and clock (RunInfo::origin_ns > 0)
  Time origin_ = 0;
  int cpu_pid_ = 1;
  std::vector<int64_t> pids_, tgids_;
  std::set<int64_t> named_processes_;
  bool first_ = true;
  RunInfo info_;
  std::vector<std::string> names_;
  std::vector<CpuSlice> cpus_;
  std::vector<TaskSlice> tasks_;
};

}  // namespace schedlab
