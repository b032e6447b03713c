#include "harness.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace schedlab::test {

std::vector<std::string> RunOutput::switch_ins() const {
  std::vector<std::string> out;
  for (const SchedEvent& e : events)
    if (e.type == EventType::kSwitch)
      out.push_back(fmt::format("{:g} {} {}", static_cast<double>(e.time) / 1e6, e.cpu,
                                e.other == kNoTask ? std::string("idle") : names[e.other]));
  return out;
}

const TaskMetrics& RunOutput::task(const std::string& name) const {
  for (const TaskMetrics& t : metrics.tasks)
    if (t.name == name) return t;
  throw std::out_of_range("no task " + name);
}

Time RunOutput::exit_ns(const std::string& name) const {
  const TaskId id = task(name).tid;
  for (const SchedEvent& e : events)
    if (e.type == EventType::kExit && e.task == id) return e.time;
  return -1;
}

std::vector<Time> RunOutput::block_times(const std::string& name, BlockReason reason) const {
  const TaskId id = task(name).tid;
  std::vector<Time> out;
  for (const SchedEvent& e : events)
    if (e.type == EventType::kBlock && e.task == id && e.detail == static_cast<uint8_t>(reason))
      out.push_back(e.time);
  return out;
}

void expect_one_cpu_per_task(const RunOutput& r) {
  std::vector<TaskId> curr(static_cast<size_t>(r.metrics.cpus), kNoTask);
  std::map<TaskId, CpuId> running_on;
  for (const SchedEvent& e : r.events) {
    if (e.type != EventType::kSwitch) continue;
    ASSERT_EQ(curr[e.cpu], e.task) << "switch-out of a task the CPU was not running";
    if (e.task != kNoTask) running_on.erase(e.task);
    if (e.other != kNoTask) {
      ASSERT_EQ(running_on.count(e.other), 0u) << r.names[e.other] << " on two CPUs";
      running_on[e.other] = e.cpu;
    }
    curr[e.cpu] = e.other;
  }
}

RunOutput run_text(const std::string& json, const ScenarioOverrides& o) {
  const Scenario s = scenario_from_text(json, "test.json", o);
  Analyzer analyzer;
  Recorder recorder;
  SinkList sinks;
  sinks.add(&analyzer);
  sinks.add(&recorder);
  SimulationOptions options;
  options.check_invariants = true;
  RunOutput out;
  out.result = simulate(s, sinks, options);
  out.metrics = analyzer.metrics();
  out.events = std::move(recorder.events);
  out.names = std::move(recorder.names);
  return out;
}

}  // namespace schedlab::test
