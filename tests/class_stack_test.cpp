// The class stack as data: which class takes which policy, a policy that replaced every
// class (BFS), refusals of policies no class takes, class timers reaching the class that
// started them, and the deadline class's own admission control.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "cli_harness.h"
#include "harness.h"
#include "policy/deadline/deadline.h"
#include "policy/rt/rt.h"
#include "sim/engine.h"
#include "util/error.h"

namespace schedlab::test {
namespace {

using Lines = std::vector<std::string>;

TEST(ClassStack, TheUsualStackIsDeadlineThenRtThenTheNormalClass) {
  const ClassStack s = make_stack("cfs-2.6.32", {}, "test");
  ASSERT_EQ(s.classes.size(), 3u);
  EXPECT_NE(dynamic_cast<DlClass*>(s.classes[0].get()), nullptr);
  EXPECT_NE(dynamic_cast<RtClass*>(s.classes[1].get()), nullptr);
  EXPECT_EQ(s.class_for(SchedPolicy::kDeadline), s.classes[0].get());
  EXPECT_EQ(s.class_for(SchedPolicy::kFifo), s.classes[1].get());
  EXPECT_EQ(s.class_for(SchedPolicy::kRR), s.classes[1].get());
  for (SchedPolicy p : {SchedPolicy::kOther, SchedPolicy::kBatch, SchedPolicy::kIdle})
    EXPECT_EQ(s.class_for(p), s.classes[2].get());
  EXPECT_EQ(s.class_for(SchedPolicy::kIso), nullptr);
}

// BFS replaced every class: it is the whole stack and takes RT and ISO tasks itself.
TEST(ClassStack, BfsIsTheWholeStackAndTakesRtTasks) {
  const ClassStack s = make_stack("bfs", {}, "test");
  ASSERT_EQ(s.classes.size(), 1u);
  EXPECT_EQ(dynamic_cast<RtClass*>(s.classes[0].get()), nullptr);
  for (SchedPolicy p : {SchedPolicy::kOther, SchedPolicy::kFifo, SchedPolicy::kRR,
                        SchedPolicy::kIso, SchedPolicy::kIdle})
    EXPECT_EQ(s.class_for(p), s.classes[0].get()) << policy_name(p);
  EXPECT_EQ(s.class_for(SchedPolicy::kDeadline), nullptr);
}

// By behaviour: two SCHED_RR tasks of one priority on one CPU at 1000 Hz. Under BFS they
// share its one queue and alternate every rr_interval (6 ms, unscaled on one CPU); under
// CFS they are in the RT class, whose RR timeslice is 100 ms.
TEST(ClassStack, RtTasksUnderBfsAreScheduledByBfs) {
  const std::string two_rr = R"({"machine": {"cpus": 1, "hz": 1000}, "tasks": {
      "a": {"policy": "SCHED_RR", "priority": 10, "loop": -1, "run": 100000},
      "b": {"policy": "SCHED_RR", "priority": 10, "loop": -1, "run": 100000}}})";
  ScenarioOverrides o;
  o.policy = "bfs";
  o.duration_s = 0.025;
  EXPECT_EQ(run_text(two_rr, o).switch_ins(),
            (Lines{"0 0 a", "6 0 b", "12 0 a", "18 0 b", "24 0 a"}));
  o.policy = "cfs-2.6.32";
  o.duration_s = 0.25;
  EXPECT_EQ(run_text(two_rr, o).switch_ins(), (Lines{"0 0 a", "100 0 b", "200 0 a"}));
}

const char* const kDeadlineTask = R"({"tasks": {"a": {"policy": "SCHED_DEADLINE",
    "dl-runtime": 1000, "dl-period": 10000, "loop": 1, "run": 100}}})";

TEST(ClassStack, ADeadlineTaskUnderAPolicyWithoutADeadlineClassIsRefused) {
  ScenarioOverrides o;
  o.policy = "bfs";
  try {
    run_text(kDeadlineTask, o);
    FAIL() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "tasks.a.policy");
    EXPECT_EQ(e.reason(),
              "SCHED_DEADLINE needs the kernel's deadline class, which 'bfs' replaces (it "
              "schedules every policy itself)");
  }
}

TEST(ClassStack, TheCliRefusesADeadlineTaskUnderBfsWithExitCode2) {
  const std::string file = write_temp("dl_under_bfs.json", kDeadlineTask);
  std::ostringstream out, err;
  EXPECT_EQ(cli_main({"run", file, "--policy", "bfs"}, out, err), 2);
  EXPECT_EQ(err.str(), "schedlab: " + file +
                           ": tasks.a.policy: SCHED_DEADLINE needs the kernel's deadline class, "
                           "which 'bfs' replaces (it schedules every policy itself)\n");
}

// The message of before the class list, kept: SCHED_ISO is known only where BFS is.
TEST(ClassStack, SchedIsoOutsideBfsIsRefusedNamingWhereItExists) {
  ScenarioOverrides o;
  o.policy = "cfs-2.6.32";
  try {
    run_text(R"({"tasks": {"iso": {"policy": "SCHED_ISO", "loop": 1, "run": 100}}})", o);
    FAIL() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "tasks.iso.policy");
    EXPECT_EQ(e.reason(),
              "SCHED_ISO exists only in the -ck kernels' schedulers (bfs here), not in "
              "'cfs-2.6.32'");
  }
}

// A normal class for the tests: one CPU, FIFO, no preemption. On task_new it starts a
// class timer for the task `timer_after_ns` later, and it records every firing it gets.
class TimerClass final : public SchedClass {
 public:
  explicit TimerClass(Time timer_after_ns) : timer_after_ns_(timer_after_ns) {}
  void task_new(Task& t, const Task*) override {
    ctx_->start_timer(*this, t.id, ctx_->now() + timer_after_ns_);
  }
  CpuId select_cpu(Task&, CpuId, const WakeInfo&) override { return 0; }
  void enqueue(CpuId, Task& t, const EnqueueFlags&) override { queue_.push_back(&t); }
  void dequeue(CpuId, Task& t, DequeueKind) override { std::erase(queue_, &t); }
  void check_preempt(CpuId, Task&, Task&, const WakeInfo&) override {}
  Task* pick_next(CpuId) override {
    if (queue_.empty()) return nullptr;
    Task* t = queue_.front();
    queue_.erase(queue_.begin());
    return t;
  }
  void put_prev(CpuId, Task& t) override { queue_.insert(queue_.begin(), &t); }
  void task_tick(CpuId, Task&) override {}
  void timer_fired(TaskId id) override { fired.emplace_back(id, ctx_->now()); }

  std::vector<std::pair<TaskId, Time>> fired;

 private:
  Time timer_after_ns_;
  std::vector<Task*> queue_;
};

// Runs `json` on a stack built by hand: the deadline and RT classes above a TimerClass.
std::vector<std::pair<TaskId, Time>> timer_firings(const std::string& json, bool upper_classes) {
  const Scenario s = scenario_from_text(json, "test", {});
  ClassStack stack;
  if (upper_classes) {
    stack.classes.push_back(std::make_unique<DlClass>());
    stack.classes.push_back(std::make_unique<RtClass>());
  }
  auto timers = std::make_unique<TimerClass>(3 * kNsPerMs);
  TimerClass* probe = timers.get();
  stack.classes.push_back(std::move(timers));
  EngineOptions eo;
  eo.check_invariants = true;
  eo.end_ns = 20 * kNsPerMs;
  Recorder sink;
  Engine engine(s.machine, s.workload, std::move(stack), eo, sink);  // owns the probe
  engine.run();
  return probe->fired;
}

// "a" starts at 0 and "b" at 2 ms: their timers fire at 3 and 5 ms, in the class that
// started them, below the deadline class (which used to receive every class timer).
TEST(ClassStack, AClassTimerReachesTheClassThatStartedIt) {
  const std::string json = R"({"machine": {"cpus": 1}, "tasks": {
      "a": {"loop": 1, "run": 10000}, "b": {"delay": 2000, "loop": 1, "run": 1000}}})";
  const std::vector<std::pair<TaskId, Time>> expected = {{0, 3 * kNsPerMs}, {1, 5 * kNsPerMs}};
  EXPECT_EQ(timer_firings(json, true), expected);
  EXPECT_EQ(timer_firings(json, false), expected);
}

// A stack built by hand that takes no SCHED_FIFO: the engine refuses the task, naming it.
TEST(ClassStack, AnEngineRefusesATaskWhosePolicyNoClassTakes) {
  const Scenario s = scenario_from_text(
      R"({"tasks": {"rt": {"policy": "SCHED_FIFO", "priority": 5, "loop": 1, "run": 100}}})",
      "test", {});
  ClassStack stack;
  stack.classes.push_back(std::make_unique<TimerClass>(kNsPerMs));
  Recorder sink;
  try {
    Engine(s.machine, s.workload, std::move(stack), EngineOptions{}, sink);
    FAIL() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "tasks.rt.policy");
    EXPECT_EQ(e.reason(), "no scheduling class of this scheduler takes SCHED_FIFO");
  }
}

// The deadline class's admission control, asked as the engine asks every class: on two
// CPUs 95 % of each may be reserved (1.900 CPUs); four tasks of 50 % ask for 2.000. The
// refusal names the task and the figures; an exit or a change of policy gives the
// bandwidth back.
TEST(ClassStack, TheDeadlineClassRefusesWhatItCannotAdmitNamingTheTaskAndFigures) {
  const Machine m = make_machine(2);
  FakeContext ctx(m);
  DlClass dl;
  dl.attach(ctx);
  ChunkedStore<Task> tasks;
  ctx.set_tasks(&tasks);
  SchedSettings half;
  half.policy = SchedPolicy::kDeadline;
  half.dl_runtime_ns = 5 * kNsPerMs;
  half.dl_deadline_ns = half.dl_period_ns = 10 * kNsPerMs;
  auto add = [&](const std::string& name) -> Task& {
    Task& t = tasks.emplace_back();
    t.id = static_cast<TaskId>(tasks.size() - 1);
    t.name = name;
    t.allowed = all_cpus(2);
    return t;
  };
  for (const char* name : {"a", "b", "c"}) EXPECT_EQ(dl.sched_setattr(add(name), half), "");
  Task& d = add("d");
  EXPECT_EQ(dl.sched_setattr(d, half),
            "SCHED_DEADLINE admission control refuses 'd' (dl-runtime 5000 us / dl-period "
            "10000 us): deadline tasks would reserve 2.000 CPUs, more than 95 % of 2 CPUs "
            "(1.900)");
  dl.task_exiting(tasks[0]);  // a's bandwidth is free again
  EXPECT_EQ(dl.sched_setattr(d, half), "");
  Task& e = add("e");
  EXPECT_NE(dl.sched_setattr(e, half), "");
  EXPECT_EQ(dl.sched_setattr(tasks[1], SchedSettings{}), "");  // b becomes SCHED_OTHER
  EXPECT_EQ(dl.sched_setattr(e, half), "");
  Task& narrow = add("narrow");
  narrow.allowed = all_cpus(1);
  SchedSettings tiny = half;
  tiny.dl_runtime_ns = kNsPerMs / 10;
  EXPECT_NE(dl.sched_setattr(narrow, tiny).find("must be allowed on every CPU"), std::string::npos);
}

}  // namespace
}  // namespace schedlab::test
