// The raw event stream as CSV, one row per event, written as the events arrive.
// Columns: time_ns,event,cpu,tid,task,other_tid,other_task,info
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "events/event.h"

namespace schedlab {

class EventsCsvWriter final : public EventSink {
 public:
  explicit EventsCsvWriter(std::ostream& out) : out_(out) {}
  void begin(const RunInfo& info) override;
  void task_created(const TaskInfo& t) override;
  void event(const SchedEvent& e) override;
  void end(Time t) override;

 private:
  std::string name(TaskId id) const;
  std::ostream& out_;
  RunInfo info_;
  std::vector<std::string> names_;
};

}  // namespace schedlab
