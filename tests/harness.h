// Runs scenarios given as JSON text with the invariant checker on, and keeps what
// came out: the metrics, the events and the task names.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "policy/registry.h"
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
  // When the task exited (-1: it did not), and when it blocked for `reason`.
  Time exit_ns(const std::string& name) const;
  std::vector<Time> block_times(const std::string& name, BlockReason reason) const;
};

RunOutput run_text(const std::string& json, const ScenarioOverrides& o = {});

// Rebuilt from the event stream alone: every switch-out is of the task that CPU ran, and
// no task runs on two CPUs at once.
void expect_one_cpu_per_task(const RunOutput& r);

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
  void migrate_queued(Task&, CpuId, uint32_t) override {}
  void set_now(Time t) { now_ = t; }
  void set_tasks(ChunkedStore<Task>* tasks) { task_store_ = tasks; }  // for task(id)
  void set_curr(CpuId cpu, Task* t) {
    SchedContext::set_curr(cpu, t);
    idle_cpus_.set(static_cast<size_t>(cpu), t == nullptr);
  }
  std::set<CpuId> pending;

 private:
  Rng rng_storage_{1};
};

// One CPU whose policy's hooks the test calls itself, playing the engine's part.
template <typename Policy>
struct HandDriven {
  explicit HandDriven(const std::string& name) : machine(make_machine(1)), ctx(machine) {
    owned = make_policy(name, {}, "test");
    policy = dynamic_cast<Policy*>(owned.get());
    policy->attach(ctx);
    ctx.set_tasks(&tasks);
  }
  // A new task, queued (custom slice and nice as sched_setattr would set them).
  Task& add(const std::string& name, Time custom_slice = 0, const Task* parent = nullptr,
            int nice = 0) {
    Task& t = tasks.emplace_back();
    t.id = static_cast<TaskId>(tasks.size() - 1);
    t.name = name;
    t.allowed = all_cpus(1);
    t.nr_cpus_allowed = 1;
    t.runnable = true;
    t.cpu = 0;
    t.custom_slice_ns = custom_slice;
    t.nice = nice;
    policy->task_new(t, parent);
    policy->enqueue(0, t, EnqueueFlags{EnqueueKind::kNew, WakeInfo{WakeKind::kFork, 0, false}});
    t.queued = true;
    return t;
  }
  Task* pick() {
    Task* t = policy->pick_next(0);
    if (t) {
      t->queued = false;
      t->on_cpu = true;
    }
    ctx.set_curr(0, t);
    ctx.pending.clear();
    return t;
  }
  void run(Task& t, Time ns) {  // the engine charges the time, then ticks
    t.sum_exec_ns += ns;
    ctx.set_now(ctx.now() + ns);
    policy->task_tick(0, t);
  }
  void put_back(Task& t) {
    policy->put_prev(0, t);
    t.on_cpu = false;
    t.queued = true;
    ctx.set_curr(0, nullptr);
  }
  void sleep(Task& t) {
    policy->dequeue(0, t, DequeueKind::kSleep);
    t.runnable = false;
    t.on_cpu = false;
    ctx.set_curr(0, nullptr);
  }
  // A wake-up; `from_timer`: from interrupt context (no waking task), else by a task (the
  // one running here, if any; which one does not matter to the classes tested by hand).
  void wake(Task& t, bool from_timer = false) {
    t.runnable = true;
    const Task* curr = ctx.curr(0);
    const WakeInfo how{WakeKind::kWakeup, 0, false, from_timer ? kNoTask : curr ? curr->id : t.id};
    if (from_timer) policy->select_cpu(t, 0, how);
    policy->enqueue(0, t, EnqueueFlags{EnqueueKind::kWakeup, how});
    t.queued = true;
  }
  Machine machine;
  FakeContext ctx;
  std::unique_ptr<SchedClass> owned;
  Policy* policy = nullptr;
  ChunkedStore<Task> tasks;
};

}  // namespace schedlab::test
