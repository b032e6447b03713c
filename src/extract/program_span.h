// The span of a program in an event stream, recorded or simulated alike: from the first
// event of any of its threads (the fork that started it) to the last (its exit). The
// program's own throughput figures (x264's fps, hackbench's Time; replay_check.h) are
// set beside the replay's over this span rather than over the whole run, which in a
// recording also holds the recorder's start and stop.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "events/event.h"

namespace schedlab {

struct Span {
  Time first_ns = -1, last_ns = -1;
  Time length() const { return first_ns < 0 ? 0 : last_ns - first_ns; }
};

// Spans of the programs named: a thread is a program's when its name is the program's
// name or starts with it and ':' or '-' (the reader's "comm:pid"; a replay's forked
// "comm-0" and "comm:pid-0").
class ProgramSpans final : public EventSink {
 public:
  explicit ProgramSpans(std::vector<std::string> programs);
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  const std::map<std::string, Span>& spans() const { return spans_; }

 private:
  void touch(TaskId id, Time t);
  std::vector<std::string> programs_;
  std::map<TaskId, std::string> program_of_;
  std::map<std::string, Span> spans_;
};

// The programs whose figures replay-check reads (program_figures).
const std::vector<std::string>& measured_programs();

}  // namespace schedlab
