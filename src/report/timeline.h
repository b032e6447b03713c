// The timeline of a single run: one lane per CPU with the slices each task ran there and
// the wake-ups onto it, over a window of the run, drawn by gnuplot (report/gnuplot.h).
// It is an EventSink, so a simulated run and a recorded one draw the same way.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"

namespace schedlab {

struct Timeline {
  int cpus = 1;
  Time from_ns = 0, to_ns = 0;  // the window (to: clipped to the end of the run)
  std::string policy;
  std::vector<std::string> names;  // by task id
  struct Slice {
    CpuId cpu;
    TaskId task;
    Time start_ns, end_ns;  // within the window
  };
  struct Wakeup {
    CpuId cpu;
    TaskId task;
    Time time_ns;
  };
  std::vector<Slice> slices;
  std::vector<Wakeup> wakeups;
  std::vector<Time> busy_ns;  // by task id: CPU time within the window
};

class TimelineRecorder final : public EventSink {
 public:
  TimelineRecorder(Time from_ns, Time to_ns);
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  void end(Time t) override;
  const Timeline& timeline() const { return t_; }

 private:
  void close(CpuId cpu, Time now);
  Timeline t_;
  std::vector<TaskId> running_;  // by CPU
  std::vector<Time> since_;
};

struct TimelineOptions {
  std::string title;
  int width = 1000;  // pixels; the height follows the CPU count
};

// The script without its terminal line. Tasks get a colour each, or a colour per family
// ("worker-3" is of "worker") when there are more than 12, the busiest first; the rest
// share grey. A window with more than 4000 slices is drawn at the picture's resolution:
// each lane in 1000 columns, each column the task that ran most of it.
std::string timeline_script(const Timeline& t, const TimelineOptions& o);
// Its height in pixels for `t`'s CPU count.
int timeline_height(const Timeline& t);

// "Run of scenario X under P: CPUs 0-3 from 0 to 100 ms; triangles: wake-ups."
std::string timeline_caption(const Timeline& t, const std::string& what);

}  // namespace schedlab
