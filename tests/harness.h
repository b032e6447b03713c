// Runs scenarios given as JSON text with the invariant checker on, and keeps what
// came out: the metrics, the events and the task names.
#pragma once

#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"

namespace schedlab::test {

class Recorder final : public EventSink {
 public:
  void task_created(const TaskInfo& t) override { names.push_back(t.name); }
  void event(const SchedEvent& e) override { events.push_back(e); }
  std::vector<SchedEvent> events;
  std::vector<std::string> names;
};

struct RunOutput {
  Metrics metrics;
  std::vector<SchedEvent> events;
  std::vector<std::string> names;
  EngineResult result;

  // "time_ms cpu name" for every task switched in (name "idle" when a CPU idles).
  std::vector<std::string> switch_ins() const;
  const TaskMetrics& task(const std::string& name) const;
};

RunOutput run_text(const std::string& json, const ScenarioOverrides& o = {});

}  // namespace schedlab::test
