// ProgramSpans (program_span.h).
#include "extract/program_span.h"

#include <utility>

namespace schedlab {

ProgramSpans::ProgramSpans(std::vector<std::string> programs) : programs_(std::move(programs)) {}

void ProgramSpans::task_created(const TaskInfo& t) {
  for (const std::string& p : programs_)
    if (t.name == p || t.name.rfind(p + ":", 0) == 0 || t.name.rfind(p + "-", 0) == 0)
      program_of_[t.id] = p;
}

void ProgramSpans::touch(TaskId id, Time t) {
  const auto it = program_of_.find(id);
  if (it == program_of_.end()) return;
  Span& s = spans_[it->second];
  if (s.first_ns < 0) s.first_ns = t;
  s.last_ns = t;
}

void ProgramSpans::event(const SchedEvent& e) {
  if (e.type == EventType::kSwitch && e.arg == kStartState) return;  // not a switch
  touch(e.task, e.time);
  // a fork names the child as `other`: its start; a switch, the next task
  if (e.type == EventType::kFork || e.type == EventType::kSwitch || e.type == EventType::kWakeupNew)
    touch(e.other, e.time);
}

const std::vector<std::string>& measured_programs() {
  static const std::vector<std::string> programs = {"hackbench", "x264", "tbench"};
  return programs;
}

}  // namespace schedlab
