// Runs scenarios given as JSON text with the invariant checker on, and keeps what
// came out: the metrics, the events and the task names.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "policy/sched_class.h"
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

// A SchedContext a test drives by hand: it sets the clock and each CPU's current task,
// and sees the reschedules a policy asks for.
class FakeContext final : public SchedContext {
 public:
  explicit FakeContext(const Machine& m) {
    machine_ = &m;
    tick_ns_ = m.tick_ns();
    cpu_curr_.assign(m.cpus, nullptr);
    idle_cpus_ = all_cpus(m.cpus);
    rng_ = &rng_storage_;
  }
  void resched(CpuId cpu) override { pending.insert(cpu); }
  bool resched_pending(CpuId cpu) const override { return pending.count(cpu) > 0; }
  void migrate_queued(Task&, CpuId) override {}
  void set_now(Time t) { now_ = t; }
  void set_curr(CpuId cpu, Task* t) {
    cpu_curr_[cpu] = t;
    idle_cpus_.set(static_cast<size_t>(cpu), t == nullptr);
  }
  std::set<CpuId> pending;

 private:
  Rng rng_storage_{1};
};

}  // namespace schedlab::test
