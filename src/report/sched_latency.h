// What `perf sched latency` and `perf sched timehist` print (tools/perf/builtin-sched.c),
// made from schedlab's stream: the latency table from the analyzer's metrics (`--latency`),
// and one row per context switch as the events arrive (`--timehist`). Times are the
// trace clock (a simulation's starts at 100 s, as its --ftrace does).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "events/event.h"
#include "events/kernel_ids.h"

namespace schedlab {

// Per task: CPU time, switches (times switched out), average and maximum delay from
// becoming runnable to running, and when the maximum began and ended; sorted as perf's
// default "avg, max, switch, runtime", largest first; then the totals.
std::string sched_latency_table(const Metrics& m);

// perf sched timehist: at each switch, the task switched out (or <idle>) with its wait
// (asleep until woken; 0 after a preemption), scheduling delay (woken or preempted until
// it ran) and run time, in ms.
class TimehistWriter final : public EventSink {
 public:
  explicit TimehistWriter(std::ostream& out) : out_(out) {}
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  void end(Time) override { out_.flush(); }

 private:
  struct Track {
    std::string label;         // comm[pid] or comm[tid/pid]
    Time out_at = -1;          // last switched out
    Time ready_at = -1;        // woken or preempted
    Time in_at = -1;           // last switched in
    Time wait = 0, delay = 0;  // of the current run
  };
  std::ostream& out_;
  Time origin_ = 0;
  KernelIds ids_;
  std::vector<Track> tracks_;
  std::vector<Time> idle_since_;  // [cpu]
};

}  // namespace schedlab
