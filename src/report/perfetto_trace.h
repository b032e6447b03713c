// Chrome/Perfetto trace JSON (docs/traces.md), written as the events arrive: a
// "CPUs" process with one track per CPU showing which task runs, and a "tasks" process
// with one track per task showing running and runnable slices, wake-ups and marks.
// Open it in ui.perfetto.dev or chrome://tracing.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "events/event.h"

namespace schedlab {

class PerfettoTraceWriter final : public EventSink {
 public:
  explicit PerfettoTraceWriter(std::ostream& out) : out_(out) {}
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  void end(Time t) override;

 private:
  void write(const std::string& json);
  void slice(int pid, int tid, const std::string& name, Time start, Time end,
             const std::string& args = "");
  void close_cpu(CpuId cpu, Time now);

  struct CpuSlice {
    TaskId task = kNoTask;
    Time since = 0;
  };
  struct TaskSlice {
    Time running_since = -1, runnable_since = -1;
  };

  std::ostream& out_;
  bool first_ = true;
  RunInfo info_;
  std::vector<std::string> names_;
  std::vector<CpuSlice> cpus_;
  std::vector<TaskSlice> tasks_;
};

}  // namespace schedlab
