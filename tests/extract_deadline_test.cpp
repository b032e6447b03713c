// SCHED_DEADLINE in workload extraction (docs/replay.md): a trace shows a deadline task
// only by its prio (-1), so its runtime, deadline and period are given (--dl) or inferred
// from its wake-ups. Round trips through the simulator: `run --ftrace`, extract, replay.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyzer.h"
#include "extract/deadline_params.h"
#include "extract/extract.h"
#include "extract_harness.h"
#include "host/ftrace_parser.h"
#include "report/ftrace_writer.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {
namespace {

// One CPU: a deadline task runs 2.5 ms of every 10 ms period (its timer), 20 periods,
// beside a SCHED_OTHER hog of 100 ms that it preempts at each activation. Hand count:
// dl 20 x 2.5 ms = 50 ms of CPU in 20 jobs, none late (each ends 2.5 ms after its
// activation, before the 8 ms deadline).
constexpr const char* kScenario = R"({"machine": {"cpus": 1, "hz": 1000},
  "tasks": {
    "dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-deadline": 8000,
           "dl-period": 10000, "loop": 20, "run": 2500,
           "timer": {"ref": "unique", "period": 10000}},
    "hog": {"loop": 100, "run": 1000}}})";

Metrics simulate_metrics(const Scenario& s, std::ostream* ftrace = nullptr) {
  Analyzer a;
  SinkList sinks;
  sinks.add(&a);
  std::unique_ptr<FtraceTextWriter> writer;
  if (ftrace) {
    writer = std::make_unique<FtraceTextWriter>(*ftrace);
    sinks.add(writer.get());
  }
  SimulationOptions o;
  o.check_invariants = true;
  simulate(s, sinks, o);
  return a.metrics();
}

using test::extract_text;

const TaskMetrics& task(const Metrics& m, const std::string& name) {
  for (const TaskMetrics& t : m.tasks)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

const XTask& xtask(const ExtractedWorkload& w, const std::string& name) {
  for (const XTask& t : w.tasks)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

struct RoundTrip {
  Metrics original, replay;
  ExtractedWorkload workload;
};

RoundTrip round_trip(const ExtractOptions& o) {
  RoundTrip r;
  std::ostringstream trace;
  r.original = simulate_metrics(scenario_from_text(kScenario, "dl.json"), &trace);
  EXPECT_NE(trace.str().find("comm=dl pid=1000 prio=-1"), std::string::npos);
  r.workload = extract_text(trace.str(), o);
  r.replay = simulate_metrics(
      scenario_from_text(scenario_json(r.workload, "trace.txt", ""), "extracted.json"));
  return r;
}

TEST(ExtractDeadline, GivenParametersReplayTheSameCpuTimeAndJobs) {
  ExtractOptions o;
  o.dl.push_back(parse_dl_option("dl=3000:8000:10000"));
  const RoundTrip r = round_trip(o);
  const XTask& dl = xtask(r.workload, "dl");
  EXPECT_EQ(dl.policy, SchedPolicy::kDeadline);
  EXPECT_EQ(dl.dl_runtime_ns, 3'000'000);
  EXPECT_EQ(dl.dl_deadline_ns, 8'000'000);
  EXPECT_EQ(dl.dl_period_ns, 10'000'000);
  EXPECT_FALSE(dl.dl_inferred);
  EXPECT_NE(scenario_json(r.workload, "t", "")
                .find(R"("policy": "SCHED_DEADLINE", )"
                      R"("dl-runtime": 3000, "dl-deadline": 8000, )"
                      R"("dl-period": 10000)"),
            std::string::npos);
  EXPECT_EQ(task(r.original, "dl").cpu_time_ns, 50'000'000);
  EXPECT_EQ(task(r.original, "dl").dl_jobs, 20u);
  EXPECT_EQ(task(r.original, "dl").deadline_misses, 0u);
  for (const char* name : {"dl", "hog"}) {
    EXPECT_EQ(task(r.replay, name).cpu_time_ns, task(r.original, name).cpu_time_ns) << name;
    EXPECT_EQ(task(r.replay, name).dl_jobs, task(r.original, name).dl_jobs) << name;
    EXPECT_EQ(task(r.replay, name).deadline_misses, task(r.original, name).deadline_misses);
    EXPECT_EQ(task(r.replay, name).switches_involuntary,
              task(r.original, name).switches_involuntary)
        << name;
  }
}

// Without --dl: period 10 ms (every interval between its 20 wake-ups), runtime 2.5 ms (each
// job's CPU), deadline = period; the replay keeps the CPU time and the 20 jobs.
TEST(ExtractDeadline, InferredParametersOfAPeriodicTask) {
  const RoundTrip r = round_trip({});
  const XTask& dl = xtask(r.workload, "dl");
  EXPECT_EQ(dl.policy, SchedPolicy::kDeadline);
  EXPECT_TRUE(dl.dl_inferred);
  EXPECT_EQ(dl.dl_period_ns, 10'000'000);
  EXPECT_EQ(dl.dl_deadline_ns, 10'000'000);
  EXPECT_EQ(dl.dl_runtime_ns, 2'500'000);
  bool noted = false;
  for (const std::string& n : r.workload.notes)
    noted |= n.find("dl: SCHED_DEADLINE parameters inferred") == 0;
  EXPECT_TRUE(noted);
  EXPECT_EQ(task(r.replay, "dl").cpu_time_ns, 50'000'000);
  EXPECT_EQ(task(r.replay, "dl").dl_jobs, 20u);
  EXPECT_EQ(task(r.replay, "dl").deadline_misses, 0u);
  EXPECT_EQ(task(r.replay, "hog").cpu_time_ns, 100'000'000);
}

// Hand-made wake-ups: at 0, 10, 21, 30, 40 ms with CPU so far 1, 3, 4, 8, 9 ms and 10 ms in
// all. Intervals 10, 11, 9, 10: median 10 ms; whole jobs 2, 1, 4, 1 (the 1 ms before the
// first wake-up and the 1 ms after the last are not counted): the most is 4 ms.
TEST(ExtractDeadline, InferenceIsTheMedianIntervalAndTheLargestJob) {
  const std::vector<std::pair<Time, Time>> wakes = {{0, 1'000'000},
                                                    {10'000'000, 3'000'000},
                                                    {21'000'000, 4'000'000},
                                                    {30'000'000, 8'000'000},
                                                    {40'000'000, 9'000'000}};
  const std::optional<DlInferred> dl = infer_dl(wakes);
  ASSERT_TRUE(dl);
  EXPECT_EQ(dl->period_ns, 10'000'000);
  EXPECT_EQ(dl->runtime_ns, 4'000'000);
  // a job above the period is cut to it; the runtime is rounded up to the microsecond
  EXPECT_EQ(infer_dl({{0, 0}, {1'000'000, 1'500'000}})->runtime_ns, 1'000'000);
  EXPECT_EQ(infer_dl({{0, 0}, {9'000'000, 1'000'001}})->runtime_ns, 1'001'000);
  EXPECT_FALSE(infer_dl({{0, 0}}));
  // 7 ms of setup before the first wake-up, then 1 ms a job: the runtime is 1 ms
  EXPECT_EQ(infer_dl({{10'000'000, 7'000'000}, {20'000'000, 8'000'000}, {30'000'000, 9'000'000}})
                ->runtime_ns,
            1'000'000);
}

// A thread that makes itself a deadline task after it starts, as rt-app's do with
// sched_setattr, by hand: "dl" (pid 20) sets itself up at prio 120 from 1.000 s: it runs
// 2 ms, blocks, is woken at 1.003 (rt-app's threads wait for each other at their start)
// and runs 4 ms more; it blocks at 1.007, its switch-out line already showing prio -1, and
// is woken from interrupt context at 1.010, 1.020 and 1.030 s, running 2 ms each time. Its
// lines: four at prio 120, ten at -1, so it is a deadline task (its first line made it
// SCHED_OTHER before); period the median of its wake-ups' intervals from its first -1
// line on (10, 10 ms); runtime the most of its whole jobs from then, 2 and 2 ms (counted
// from its first wake-up the 4 ms of setup after 1.003 made it 4 ms). "enc" (pid 21) shows
// prio 120 once and 130 after it: nice 10.
TEST(ExtractDeadline, AThreadThatBecomesADeadlineTaskIsOne) {
  std::string text = "# tracer: nop\n#P:2\n";
  auto line = [&](const std::string& who, int cpu, double at, const std::string& rest) {
    text += fmt::format("  {} [{:03}] d..2 {:.6f}: {}\n", who, cpu, at, rest);
  };
  auto switch_line = [&](const std::string& who, int cpu, double at, const std::string& prev,
                         int prev_pid, int prev_prio, const char* state, const std::string& next,
                         int next_pid, int next_prio) {
    line(who, cpu, at,
         fmt::format("sched_switch: prev_comm={} prev_pid={} prev_prio={} prev_state={} ==> "
                     "next_comm={} next_pid={} next_prio={}",
                     prev, prev_pid, prev_prio, state, next, next_pid, next_prio));
  };
  switch_line("<idle>-0", 0, 1.000, "swapper/0", 0, 120, "R", "dl", 20, 120);
  switch_line("<idle>-0", 1, 1.000, "swapper/1", 0, 120, "R", "enc", 21, 120);
  switch_line("dl-20", 0, 1.002, "dl", 20, 120, "S", "swapper/0", 0, 120);
  line("enc-21", 1, 1.003, "sched_wakeup: comm=dl pid=20 prio=120 target_cpu=000");
  switch_line("<idle>-0", 0, 1.003, "swapper/0", 0, 120, "R", "dl", 20, 120);
  switch_line("dl-20", 0, 1.007, "dl", 20, -1, "S", "swapper/0", 0, 120);
  for (double at : {1.010, 1.020, 1.030}) {
    text += fmt::format(
        "  <idle>-0 [000] dNh3 {:.6f}: sched_wakeup: comm=dl pid=20 prio=-1 "
        "target_cpu=000\n",
        at);
    switch_line("<idle>-0", 0, at, "swapper/0", 0, 120, "R", "dl", 20, -1);
    switch_line("dl-20", 0, at + 0.002, "dl", 20, -1, "S", "swapper/0", 0, 120);
    switch_line("enc-21", 1, at + 0.001, "enc", 21, 130, "R", "enc", 21, 130);
  }
  const ExtractedWorkload w = extract_text(text);
  const XTask& dl = xtask(w, "dl");
  EXPECT_EQ(dl.policy, SchedPolicy::kDeadline);
  EXPECT_TRUE(dl.dl_inferred);
  EXPECT_EQ(dl.dl_period_ns, 10'000'000);
  EXPECT_EQ(dl.dl_runtime_ns, 2'000'000);
  EXPECT_EQ(xtask(w, "enc").policy, SchedPolicy::kOther);
  EXPECT_EQ(xtask(w, "enc").nice, 10);
}

TEST(ExtractDeadline, BadOptionsNameTheOption) {
  const DlGiven g = parse_dl_option("worker:12=100:200:300");
  EXPECT_EQ(g.who, "worker:12");
  EXPECT_EQ(g.runtime_ns, 100'000);
  EXPECT_EQ(g.deadline_ns, 200'000);
  EXPECT_EQ(g.period_ns, 300'000);
  for (const char* bad : {"dl", "=1:2:3", "dl=1:2", "dl=1:2:3:4", "dl=a:2:3", "dl=0:2:3",
                          "dl=3:2:3", "dl=1:4:3", "dl=1:2:3x", "dl=-1:2:3"}) {
    try {
      parse_dl_option(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), std::string("--dl ") + bad);
    }
  }
  // --dl naming no thread of the selection
  std::ostringstream trace;
  simulate_metrics(scenario_from_text(kScenario, "dl.json"), &trace);
  ExtractOptions o;
  o.dl.push_back(parse_dl_option("nobody=1:2:3"));
  try {
    extract_text(trace.str(), o);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--dl nobody");
  }
  // a pid names the thread too (the simulator's first task is pid 1000)
  ExtractOptions by_pid;
  by_pid.dl.push_back(parse_dl_option("1000=3000:8000:10000"));
  EXPECT_EQ(xtask(extract_text(trace.str(), by_pid), "dl").dl_deadline_ns, 8'000'000);
}

}  // namespace
}  // namespace schedlab
