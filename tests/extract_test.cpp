// Workload extraction (docs/replay.md): the round trip of a scenario with known
// dependencies through `run --ftrace`, extract and replay; another scheduler keeps each
// task's CPU work; loop compression; the waker rules of sched_waking; bad input.
#include "extract/extract.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/analyzer.h"
#include "extract/deadline_params.h"
#include "extract/loops.h"
#include "extract/program_span.h"
#include "extract/replay_check.h"
#include "extract_harness.h"
#include "host/ftrace_parser.h"
#include "json/jtree.h"
#include "machine/machine.h"
#include "policy/registry.h"
#include "report/ftrace_writer.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "temp_dir.h"
#include "util/error.h"

namespace schedlab {
namespace {

const std::string kReplay = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/replay/";

std::string simulate_to_ftrace(const Scenario& s, SimulationOptions options = {}) {
  std::ostringstream text;
  FtraceTextWriter writer(text);
  options.check_invariants = true;
  simulate(s, writer, options);
  return text.str();
}

using test::extract_text;

Scenario replay_scenario(const ExtractedWorkload& w, const std::string& policy) {
  Scenario s = scenario_from_text(scenario_json(w, "trace.txt", ""), "extracted.json");
  s.policy = policy;
  return s;
}

Metrics simulate_metrics(const Scenario& s) {
  Analyzer a;
  SimulationOptions o;
  o.check_invariants = true;
  simulate(s, a, o);
  return a.metrics();
}

std::set<std::string> edge_names(const ExtractedWorkload& w) {
  std::set<std::string> out;
  for (const XEdge& e : w.edges) out.insert(edge_name(w, e));
  return out;
}

// The edges named as the replay names their tasks (a forked template's "-0").
std::set<std::string> replayed_edge_names(const ExtractedWorkload& w) {
  std::set<std::string> out;
  for (const XEdge& e : w.edges)
    out.insert(replayed_name(w.tasks[static_cast<size_t>(e.waker)]) + ">" +
               replayed_name(w.tasks[static_cast<size_t>(e.wakee)]));
  return out;
}

const XTask& xtask(const ExtractedWorkload& w, const std::string& name) {
  for (const XTask& t : w.tasks)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

// The scenario of tests/data/replay/roundtrip.json under cfs-2.6.31 on 2 CPUs. Hand
// count: ping runs 50 x 300 us, pong 50 x 200 us, producer 40 x 500 us, consumer
// 40 x 350 us, tick 100 x 1 ms, master 2 + 0.5 ms, each worker 6 + 3 ms.
TEST(Extract, RoundTripKeepsCpuTimeEdgesAndBursts) {
  const Scenario original = load_scenario(kReplay + "roundtrip.json", [] {
    ScenarioOverrides o;
    o.policy = "cfs-2.6.31";
    return o;
  }());
  const std::string trace = simulate_to_ftrace(original);
  const ExtractedWorkload w = extract_text(trace);
  const std::map<std::string, Time> cpu = {{"ping", 15'000'000},     {"pong", 10'000'000},
                                           {"producer", 20'000'000}, {"consumer", 14'000'000},
                                           {"tick", 100'000'000},    {"master", 2'500'000},
                                           {"worker-0", 9'000'000},  {"worker-1", 9'000'000}};
  ASSERT_EQ(w.tasks.size(), cpu.size());
  for (const auto& [name, ns] : cpu) EXPECT_EQ(xtask(w, name).cpu_ns, ns) << name;
  // The ping's first post finds pong not yet blocked (it has not run): no line shows it,
  // so no edge is made of it; the master is woken by whichever worker posts second.
  EXPECT_EQ(edge_names(w), (std::set<std::string>{"ping>pong", "pong>ping", "producer>consumer",
                                                  "worker-1>master"}));
  EXPECT_TRUE(xtask(w, "worker-0").forked);
  EXPECT_EQ(xtask(w, "tick").bursts, 101u);  // 100 periods, then the exit
  // the timer task is periodic: timer steps, one looped phase
  ASSERT_EQ(xtask(w, "tick").phases.size(), 1u);
  EXPECT_EQ(xtask(w, "tick").phases[0].loop, 100);
  EXPECT_EQ(xtask(w, "tick").phases[0].steps[1].kind, XStep::Kind::kTimer);

  // Replayed under the same policy: the same CPU time per task to the nanosecond, and
  // extracting the replay gives the same edges and bursts again, but for what a trace
  // cannot show. pong's post wakes ping on pong's CPU, and ping preempts it there, so most
  // of ping's posts find pong preempted, not blocked: no line shows them. Of ping's two
  // posts the trace did show, the replay's find pong runnable too: the second extraction
  // has no ping>pong edge, and pong runs in one burst.
  const Scenario replay = replay_scenario(w, "cfs-2.6.31");
  const std::string trace2 = simulate_to_ftrace(replay);
  const ExtractedWorkload w2 = extract_text(trace2);
  std::set<std::string> shown = replayed_edge_names(w);
  ASSERT_EQ(shown.erase("ping>pong"), 1u);
  EXPECT_EQ(edge_names(w2), shown);
  for (const XTask& t : w.tasks) {
    const XTask* again = nullptr;
    for (const XTask& u : w2.tasks)
      if (u.name == replayed_name(t)) again = &u;
    ASSERT_NE(again, nullptr) << t.name;
    EXPECT_EQ(again->cpu_ns, t.cpu_ns) << t.name;
    if (t.name == "pong") {
      EXPECT_EQ(t.edges_in, 2u);
      EXPECT_EQ(again->edges_in, 0u);
      EXPECT_EQ(again->bursts, 1u);
      continue;
    }
    EXPECT_EQ(again->bursts, t.bursts) << t.name;
    EXPECT_EQ(again->edges_in, t.edges_in) << t.name;
  }
  const std::vector<ReplaySide> sim = replay_figures(w, simulate_metrics(replay));
  for (size_t i = 0; i < w.tasks.size(); ++i)
    EXPECT_EQ(sim[i].cpu_ns, w.tasks[i].cpu_ns) << w.tasks[i].name;
}

// Another scheduler changes the schedule, never the work: every registered policy runs
// the extracted workload to its end (no deadlock: docs/replay.md) with each task's CPU
// time what the trace showed.
TEST(Extract, EveryPolicyKeepsEachTasksCpuWork) {
  const Scenario original = load_scenario(kReplay + "roundtrip.json", [] {
    ScenarioOverrides o;
    o.policy = "cfs-2.6.31";
    return o;
  }());
  const ExtractedWorkload w = extract_text(simulate_to_ftrace(original));
  std::set<Time> durations;
  for (const PolicyInfo& p : policy_registry()) {
    const Metrics m = simulate_metrics(replay_scenario(w, p.name));
    const std::vector<ReplaySide> sim = replay_figures(w, m);
    for (size_t i = 0; i < w.tasks.size(); ++i)
      EXPECT_EQ(sim[i].cpu_ns, w.tasks[i].cpu_ns) << p.name << " " << w.tasks[i].name;
    durations.insert(m.tasks[1].wait_time_ns);
  }
  EXPECT_GT(durations.size(), 1u) << "every policy gave pong the same wait: no schedule changed";
}

// A periodic task of 1000 periods: one loop, or with --exact every step.
TEST(Extract, LoopCompressionOfAThousandPeriods) {
  const Scenario s = scenario_from_text(
      R"({"machine": {"cpus": 1}, "tasks": {"p": {"loop": 1000, "run": 700,
          "timer": {"ref": "t", "period": 2000}}}})",
      "periodic.json");
  const std::string trace = simulate_to_ftrace(s);
  const ExtractedWorkload looped = extract_text(trace);
  ASSERT_EQ(looped.tasks.size(), 1u);
  const XTask& t = looped.tasks[0];
  ASSERT_EQ(t.phases.size(), 1u);
  EXPECT_EQ(t.phases[0].loop, 1000);
  ASSERT_EQ(t.phases[0].steps.size(), 2u);
  EXPECT_EQ(t.phases[0].steps[0], (XStep{XStep::Kind::kRun, 700'000, 0, false}));
  EXPECT_EQ(t.phases[0].steps[1], (XStep{XStep::Kind::kTimer, 2'000'000, 0, false}));
  ExtractOptions exact;
  exact.exact = true;
  const ExtractedWorkload every = extract_text(trace, exact);
  ASSERT_EQ(every.tasks[0].phases.size(), 1u);
  size_t runs = 0;
  for (const XStep& st : every.tasks[0].phases[0].steps) runs += st.kind == XStep::Kind::kRun;
  EXPECT_EQ(runs, 1000u);
  EXPECT_EQ(every.tasks[0].phases[0].steps.size(), 2000u);
}

// Loops by hand: repeats within the tolerance collapse to their mean; a different edge
// or a step beyond the tolerance breaks the loop.
TEST(Extract, LoopsByHand) {
  using K = XStep::Kind;
  const std::vector<XStep> steps = {{K::kRun, 100'000, 0, false}, {K::kWait, 0, 1, false},
                                    {K::kRun, 104'000, 0, false}, {K::kWait, 0, 1, false},
                                    {K::kRun, 96'000, 0, false},  {K::kWait, 0, 1, false},
                                    {K::kRun, 150'000, 0, false}, {K::kWait, 0, 2, false}};
  const std::vector<XPhase> p = compress_loops(steps, 10, 2000);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].loop, 3);
  EXPECT_EQ(p[0].steps,
            (std::vector<XStep>{{K::kRun, 100'000, 0, false}, {K::kWait, 0, 1, false}}));
  EXPECT_EQ(p[1].loop, 1);
  EXPECT_EQ(p[1].steps.size(), 2u);
  EXPECT_EQ(compress_loops(steps, 3, 2000).size(), 1u);  // 4 % apart: no loop at 3 %
}

// sched_waking names the waker, in the context it ran; interrupt context and the idle
// task are no waker; without a waking line the wake-up line's context is the waker.
TEST(Extract, WakersFromWakingLines) {
  const std::string text =
      "# tracer: nop\n#P:2\n"
      "  a-10 [000] d..2  1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n"
      "  c-12 [001] d..2  1.000000: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
      "  b-11 [000] d..3  1.001000: sched_waking: comm=a pid=10 prio=120 target_cpu=001\n"
      "  <idle>-0 [001] dNh3  1.001010: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n"
      "  <idle>-0 [001] d..2  1.001020: sched_switch: prev_comm=swapper/1 prev_pid=0 "
      "prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n"
      "  b-11 [000] d.h3  1.002000: sched_waking: comm=c pid=12 prio=120 target_cpu=000\n"
      "  b-11 [000] d.h3  1.002000: sched_wakeup: comm=c pid=12 prio=120 target_cpu=000\n"
      "  a-10 [001] d..2  1.003000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
      "  b-11 [000] d..3  1.004000: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n"
      "  b-11 [000] d..2  1.005000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=c next_pid=12 next_prio=120\n";
  const ExtractedWorkload w = extract_text(text);
  EXPECT_EQ(edge_names(w), (std::set<std::string>{"b>a"}));
  EXPECT_EQ(xtask(w, "a").edges_in, 2u);  // once by its waking line, once by its wake-up's
  EXPECT_EQ(xtask(w, "c").sleeps, 1u);    // woken from an interrupt
  EXPECT_EQ(xtask(w, "c").edges_in, 0u);
  // with --comm a only, b is outside: a's wake-ups become sleeps of the observed length
  ExtractOptions only_a;
  only_a.comm_patterns = {"a"};
  const ExtractedWorkload wa = extract_text(text, only_a);
  ASSERT_EQ(wa.tasks.size(), 1u);
  EXPECT_EQ(wa.tasks[0].sleeps, 2u);
  EXPECT_TRUE(wa.edges.empty());
  // analyze's stream is unchanged: no waker unless asked
  struct Wakers : EventSink {
    std::vector<TaskId> others;
    void event(const SchedEvent& e) override {
      if (e.type == EventType::kWakeup) others.push_back(e.other);
    }
  } plain;
  std::istringstream in(text);
  parse_ftrace(in, "t.txt", plain);
  EXPECT_EQ(plain.others, (std::vector<TaskId>{kNoTask, kNoTask, kNoTask}));
}

// A thread its parent forks sets its own policy after it starts (rt-app's threads with
// sched_setattr: prio 120 in their first lines, -1 from then on) and then sleeps on a
// timer whose grid (origin 3.5 ms after the trace's start, a 10 ms period) did not start
// at its fork. Extracted: its steps before the change run as it started (SCHED_OTHER),
// the rest as the deadline task the trace shows; the sleeps, woken from interrupts on the
// grid, are timer steps with that origin; replayed, it wakes on the recorded grid.
TEST(Extract, AForkedThreadsTimerGridAndItsOwnPolicyChange) {
  auto line = [](const std::string& ctx, int cpu, double at, const std::string& flags,
                 const std::string& what) {
    return fmt::format("  {} [{:03d}] {} {:.6f}: {}\n", ctx, cpu, flags, at, what);
  };
  auto sw = [&](int cpu, double at, const std::string& prev, int prev_pid, int prev_prio,
                const char* state, const std::string& next, int next_pid, int next_prio) {
    const std::string ctx = prev_pid == 0 ? "<idle>-0" : fmt::format("{}-{}", prev, prev_pid);
    return line(ctx, cpu, at, "d..2",
                fmt::format("sched_switch: prev_comm={} prev_pid={} prev_prio={} prev_state={} "
                            "==> next_comm={} next_pid={} next_prio={}",
                            prev, prev_pid, prev_prio, state, next, next_pid, next_prio));
  };
  std::string text = "# tracer: nop\n#P:2\n";
  text += sw(1, 1.0, "swapper/1", 0, 120, "R", "m", 10, 120);
  text +=
      line("m-10", 1, 1.001, "....", "sched_process_fork: comm=m pid=10 child_comm=w child_pid=11");
  text += line("m-10", 1, 1.001, "d..2", "sched_wakeup_new: comm=w pid=11 prio=120 target_cpu=000");
  text += sw(0, 1.001, "swapper/0", 0, 120, "R", "w", 11, 120);
  text += sw(0, 1.002, "w", 11, 120, "S", "swapper/0", 0, 120);
  text += line("m-10", 1, 1.0025, "d..3", "sched_waking: comm=w pid=11 prio=120 target_cpu=000");
  text += line("m-10", 1, 1.0025, "d..3", "sched_wakeup: comm=w pid=11 prio=120 target_cpu=000");
  text += sw(0, 1.0025, "swapper/0", 0, 120, "R", "w", 11, 120);
  text += sw(0, 1.004, "w", 11, -1, "S", "swapper/0", 0, 120);  // sched_setattr in this burst
  for (int k = 0; k < 6; ++k) {
    const double at = 1.0135 + 0.01 * k;
    text += line("<idle>-0", 0, at, "d.h3", "sched_waking: comm=w pid=11 prio=-1 target_cpu=000");
    text += line("<idle>-0", 0, at, "dNh3", "sched_wakeup: comm=w pid=11 prio=-1 target_cpu=000");
    text += sw(0, at, "swapper/0", 0, 120, "R", "w", 11, -1);
    text += sw(0, at + 0.001, "w", 11, -1, "S", "swapper/0", 0, 120);
  }
  text += sw(1, 1.07, "m", 10, 120, "S", "swapper/1", 0, 120);
  const ExtractedWorkload w = extract_text(text);
  const XTask& t = xtask(w, "w");
  EXPECT_TRUE(t.forked);
  EXPECT_EQ(t.policy, SchedPolicy::kDeadline);
  ASSERT_TRUE(t.started_as.has_value());
  EXPECT_EQ(t.started_as->policy, SchedPolicy::kOther);
  ASSERT_FALSE(t.phases.empty());
  EXPECT_TRUE(t.phases[0].started_as);
  EXPECT_EQ(t.phases[0].steps, (std::vector<XStep>{{XStep::Kind::kRun, 1'000'000, 0, false},
                                                   {XStep::Kind::kWait, 0, 0, false}}));
  size_t timers = 0;
  for (size_t p = 1; p < t.phases.size(); ++p) {
    EXPECT_FALSE(t.phases[p].started_as) << p;
    for (const XStep& s : t.phases[p].steps)
      if (s.kind == XStep::Kind::kTimer) {
        EXPECT_EQ(s.ns, 10'000'000);
        timers += static_cast<size_t>(t.phases[p].loop);
      }
  }
  EXPECT_EQ(timers, 6u);
  EXPECT_EQ(t.timer_origin_ns, 3'500'000);
  EXPECT_EQ(t.dl_period_ns, 10'000'000);  // inferred from the wake-ups after the change
  const std::string json = scenario_json(w, "trace.txt", "");
  EXPECT_NE(json.find(R"("p0": {"loop": 1, "policy": "SCHED_OTHER", "priority": 0,)"),
            std::string::npos)
      << json;
  // The next phase sets the thread's own policy again: rt-app keeps the phase before's
  // settings in a phase without any.
  const size_t p1 = json.find(R"("p1": {)");
  ASSERT_NE(p1, std::string::npos) << json;
  EXPECT_NE(json.substr(p1, json.find('\n', p1) - p1).find(R"("policy": "SCHED_DEADLINE")"),
            std::string::npos)
      << json;
  // Replayed: w-0 is woken at each boundary of the recorded grid, 13.5 ms on (its jobs
  // are throttled now and then: its inferred runtime is its largest job, 1 ms, and the
  // first after the change runs 1.5 ms).
  Scenario s = replay_scenario(w, "eevdf");
  std::ostringstream trace;
  FtraceTextWriter writer(trace);
  simulate(s, writer, {});
  std::vector<double> wakes_ms;
  std::istringstream lines(trace.str());
  for (std::string l; std::getline(lines, l);)
    if (const size_t at = l.find(": sched_wakeup: comm=w-0 "); at != std::string::npos)
      wakes_ms.push_back(std::round((std::stod(l.substr(at - 13, 13)) - 100.0) * 1e4) / 10);
  EXPECT_EQ(wakes_ms, (std::vector<double>{2.5, 13.5, 23.5, 33.5, 43.5, 53.5, 63.5}));
}

// A wake-up in softirq context (loopback networking) has no waker unless asked.
TEST(Extract, SoftirqWakersOnlyWhenAsked) {
  const std::string text =
      "# tracer: nop\n#P:2\n"
      "  a-10 [000] d..2  1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n"
      "  b-11 [000] d.s3  1.001000: sched_waking: comm=a pid=10 prio=120 target_cpu=001\n"
      "  <idle>-0 [001] d..3  1.001010: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n"
      "  <idle>-0 [001] d..2  1.001020: sched_switch: prev_comm=swapper/1 prev_pid=0 "
      "prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n";
  EXPECT_TRUE(extract_text(text).edges.empty());
  std::istringstream in(text);
  ExtractOptions o;
  WorkloadExtractor x(o);
  FtraceOptions read;
  read.wakers = read.softirq_wakers = true;
  parse_ftrace(in, "trace.txt", x, {}, read);
  EXPECT_EQ(edge_names(x.result("trace.txt")), (std::set<std::string>{"b>a"}));
}

TEST(Extract, BadInputNamesWhatIsMissing) {
  const std::string no_wakeups =
      "# tracer: nop\n#P:1\n"
      "  a-10 [000] d..2  1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n"
      "  b-11 [000] d..2  1.001000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=a next_pid=10 next_prio=120\n";
  try {
    extract_text(no_wakeups);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no sched_wakeup or sched_waking events"),
              std::string::npos)
        << e.what();
  }
  ExtractOptions nobody;
  nobody.comm_patterns = {"nosuch*"};
  try {
    extract_text(no_wakeups, nobody);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("matches the selection"), std::string::npos) << e.what();
  }
}

// A thread seen in the window that did nothing there (a blocks at its first line) has no
// step; with --exact too, its program is a `run 0`, which the reader accepts (an empty
// phase it refuses).
TEST(Extract, AThreadWithNoStepIsARunOfNothingWithExactToo) {
  const std::string text =
      "# tracer: nop\n#P:1\n"
      "  a-10 [000] d..2  1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n"
      "  b-11 [000] d.h3  1.001000: sched_wakeup: comm=b pid=11 prio=120 target_cpu=000\n"
      "  b-11 [000] d..2  1.002000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n";
  for (const bool exact : {false, true}) {
    ExtractOptions o;
    o.exact = exact;
    const ExtractedWorkload w = extract_text(text, o);
    EXPECT_TRUE(xtask(w, "a").phases.empty()) << exact;
    const std::string json = scenario_json(w, "trace.txt", "");
    EXPECT_NO_THROW(scenario_from_text(json, "extracted.json")) << json;
  }
}

TEST(Extract, LostEventsAreCountedAndTheRestExtracted) {
  const std::string text =
      "# tracer: nop\n#P:1\n"
      "  a-10 [000] d..2  1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n"
      "CPU:0 [LOST 7 EVENTS]\n"
      "  b-11 [000] d..3  1.001000: sched_wakeup: comm=a pid=10 prio=120 target_cpu=000\n"
      "  b-11 [000] d..2  1.002000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=a next_pid=10 next_prio=120\n";
  const ExtractedWorkload w = extract_text(text);
  bool said = false;
  for (const std::string& n : w.notes) said |= n.find("7 events were lost") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(edge_names(w), (std::set<std::string>{"b>a"}));
}

// The same trace extracts to the same bytes.
TEST(Extract, Deterministic) {
  const Scenario s = load_scenario(kReplay + "roundtrip.json");
  const std::string trace = simulate_to_ftrace(s);
  EXPECT_EQ(scenario_json(extract_text(trace), "t", ""),
            scenario_json(extract_text(trace), "t", ""));
}

}  // namespace
}  // namespace schedlab

namespace schedlab {
namespace {

struct Totals {
  Time real_cpu = 0, sim_cpu = 0;
  uint64_t real_vol = 0, sim_vol = 0;
};

Totals totals(const ReplayCheck& c, const std::string& prefix) {
  Totals t;
  for (const ReplayRow& r : c.rows) {
    if (r.name.rfind(prefix, 0) != 0) continue;
    t.real_cpu += r.real.cpu_ns;
    t.sim_cpu += r.sim.cpu_ns;
    t.real_vol += r.real.voluntary;
    t.sim_vol += r.sim.voluntary;
  }
  return t;
}

// A real hackbench (rt-tests 2.4, `hackbench -g 2 -f 5 -l 1000 -T`, Linux 6.18 on this
// 2-vCPU VM, recorded on a quiet machine, load average 0.3) extracted whole (its 21
// threads and the 5 other tasks that ran beside them) and replayed under eevdf, the
// running kernel's model, on a flat machine. Measured: every task's CPU time within 1 us
// (loop means); the run 76.23 ms recorded against 75.70 ms replayed (0.993), pinned by the
// other tasks' sleeps of observed length; hackbench's own span (first fork to last exit)
// 76.20 ms against 74.23 ms (0.974), its Time 0.074 s printed
// (tests/data/replay/hackbench-threads.txt.out); hackbench's voluntary switches 1689
// against 409 (0.24: the replay's order keeps the running sender, so the receivers pass
// waits without blocking, see docs/replay.md). Before, on the recording made at load 4
// (31 tasks): the run 1.051, the span 0.703, Time 0.128 s, switches 375 -> 239 (0.64),
// bounds 0.95-1.15, 0.6-0.8, 0.5-0.8. Bounds with a margin; the switches' lower bound
// (0.18) is beyond the issue's target (within 30 %, 0.7), which the replay does not meet.
TEST(ExtractRecorded, HackbenchThreads) {
  const std::string trace = kReplay + "hackbench-threads.txt";
  ReplayCheck c = replay_check(trace, {}, "eevdf", std::nullopt);
  read_program_output(trace, c);
  ASSERT_EQ(c.rows.size(), 26u);
  // a loop's mean drops under 1 ns per repetition
  for (const ReplayRow& r : c.rows)
    EXPECT_LE(std::abs(r.sim.cpu_ns - r.real.cpu_ns), 1000) << r.name;
  const double duration =
      static_cast<double>(c.sim_duration_ns) / static_cast<double>(c.real_duration_ns);
  const double span =
      static_cast<double>(c.sim_span.length()) / static_cast<double>(c.real_span.length());
  const Totals hb = totals(c, "hackbench");
  const double switches = static_cast<double>(hb.sim_vol) / static_cast<double>(hb.real_vol);
  std::cout << "run " << c.real_duration_ns << " -> " << c.sim_duration_ns << " ns (" << duration
            << "), span ratio " << span << ", hackbench voluntary switches " << hb.real_vol
            << " -> " << hb.sim_vol << "\n";
  EXPECT_DOUBLE_EQ(c.program.hackbench_time_s, 0.074);
  EXPECT_GT(duration, 0.95);
  EXPECT_LT(duration, 1.04);
  EXPECT_GT(span, 0.92);
  EXPECT_LT(span, 1.03);
  EXPECT_GT(switches, 0.18);
  EXPECT_LT(switches, 0.32);
}

// Each committed recording's output (TRACE.out, kept by record-workload) gives the
// program's figures, and the program's span is found on both sides. Measured spans
// replayed under eevdf on a flat machine, sim/real: hackbench -T 0.974, -P 0.917, x264
// --threads 1 0.994, 2 0.994, 4 0.936 (before, on the recordings made at load 4: 0.703,
// 0.641, 1.084, 1.018, 0.976, with bounds 0.6-0.8, 0.5-0.8, 0.95-1.15, 0.9-1.1,
// 0.85-1.1). Bounds with a margin;
// -P's lower bound (0.87) is below the issue's target of 10 % (0.9), which it meets by 0.017.
TEST(ExtractRecorded, ProgramFiguresOfTheCommittedRecordings) {
  struct Expected {
    std::string name;
    double time_s, fps;
    double span_low, span_high;
  };
  const Expected recordings[] = {{"hackbench-threads", 0.074, 0, 0.92, 1.03},
                                 {"hackbench-processes", 0.016, 0, 0.87, 0.97},
                                 {"x264-threads1", 0, 250.45, 0.95, 1.04},
                                 {"x264-threads2", 0, 625.90, 0.95, 1.04},
                                 {"x264-threads4", 0, 550.98, 0.9, 0.98}};
  for (const Expected& e : recordings) {
    const std::string trace = kReplay + e.name + ".txt";
    ReplayCheck c = replay_check(trace, {}, "eevdf", std::nullopt);
    read_program_output(trace, c);
    EXPECT_DOUBLE_EQ(c.program.hackbench_time_s, e.time_s) << e.name;
    EXPECT_DOUBLE_EQ(c.program.x264_fps, e.fps) << e.name;
    EXPECT_EQ(c.program.x264_frames, e.fps > 0 ? 40 : 0) << e.name;
    ASSERT_GT(c.real_span.length(), 0) << e.name;
    const double span =
        static_cast<double>(c.sim_span.length()) / static_cast<double>(c.real_span.length());
    std::cout << e.name << ": span " << c.real_span.length() << " -> " << c.sim_span.length()
              << " ns (" << span << ")\n";
    EXPECT_GT(span, e.span_low) << e.name;
    EXPECT_LT(span, e.span_high) << e.name;
    // the span lies inside the run
    EXPECT_LE(c.real_span.length(), c.real_duration_ns) << e.name;
    EXPECT_LE(c.sim_span.length(), c.sim_duration_ns) << e.name;
  }
}

Machine shipped_machine(const std::string& name) {
  const std::string path = std::string(SCHEDLAB_SOURCE_DIR) + "/machines/" + name;
  return read_machine(parse_json_file(path), JsonReader(path), "", 1);
}

// machines/dev-vm.json is this VM as `schedlab calibrate` measured it. Replayed on it with
// the costs the trace already holds left out, each task of the recorded hackbench keeps
// its CPU time (within the 1 us of loop means; measured at most 65 ns off, 1 ns on the
// recording made at load 4); on the whole calibrated machine the waker's send and the
// refills are paid again on top of the recorded bursts (measured 145.27 -> 146.56 ms of
// CPU in all; before 261.13 -> 261.89 ms).
TEST(ExtractRecorded, ThisHostsCalibratedMachineKeepsTheRecordedCpuTime) {
  const Machine calibrated = shipped_machine("dev-vm.json");
  const Machine here = replay_machine_of_this_host(calibrated, true);
  EXPECT_EQ(here.context_switch_ns, 0);
  EXPECT_EQ(here.shared_cache_migration_cost_ns, 0);
  EXPECT_EQ(here.costs.wakeup_send_ns, 0);
  EXPECT_EQ(here.costs.wakeup_return_ns, 0);
  EXPECT_EQ(here.costs.timer_overshoot_ns, 0);
  EXPECT_TRUE(here.background.empty());
  EXPECT_EQ(here.costs.wakeup_ipi_ns, calibrated.costs.wakeup_ipi_ns);
  EXPECT_EQ(here.idle_states.size(), calibrated.idle_states.size());
  EXPECT_EQ(here.capacity, std::vector<int>(2, 1024));
  EXPECT_EQ(replay_machine_of_this_host(calibrated, false).background.size(),
            calibrated.background.size());

  const Recording r = read_recording(kReplay + "hackbench-threads.txt", {});
  ReplayMachine m;
  m.machine = here;
  const ReplayCheck c = replay_check(r, "hackbench-threads.txt", "eevdf", m);
  Time worst = 0;
  for (const ReplayRow& row : c.rows) {
    EXPECT_LE(std::abs(row.sim.cpu_ns - row.real.cpu_ns), 1000) << row.name;
    worst = std::max(worst, std::abs(row.sim.cpu_ns - row.real.cpu_ns));
  }
  m.machine = calibrated;
  const ReplayCheck twice = replay_check(r, "hackbench-threads.txt", "eevdf", m);
  std::cout << "CPU time off by at most " << worst << " ns; on the whole file "
            << totals(twice, "").real_cpu << " -> " << totals(twice, "").sim_cpu << " ns\n";
  EXPECT_GT(totals(twice, "").sim_cpu, totals(twice, "").real_cpu + 100000);
}

// By hand: the recorder (0) forks x264's main thread at 10 (named "x264:7", as the reader
// names a comm several pids share), which forks a worker "x264:8" at 20 (switched in at 25);
// the worker exits at 90, the main thread at 95; the recorder runs on to 120.
TEST(ReplayCheck, ProgramSpanIsFirstForkToLastExit) {
  ProgramSpans spans(measured_programs());
  auto task = [&](TaskId id, const std::string& name) {
    TaskInfo t;
    t.id = id;
    t.name = name;
    spans.task_created(t);
  };
  auto event = [&](Time t, EventType type, TaskId task_id, TaskId other) {
    SchedEvent e;
    e.time = t;
    e.type = type;
    e.task = task_id;
    e.other = other;
    spans.event(e);
  };
  task(0, "schedlab");
  event(5, EventType::kWakeup, 0, kNoTask);
  task(1, "x264:7");
  event(10, EventType::kFork, 0, 1);
  task(2, "x264:8");
  event(20, EventType::kFork, 1, 2);
  event(25, EventType::kSwitch, 1, 2);
  event(90, EventType::kExit, 2, kNoTask);
  event(95, EventType::kExit, 1, kNoTask);
  event(120, EventType::kSwitch, 0, kNoTask);
  ASSERT_EQ(spans.spans().size(), 1u);
  const Span x264 = spans.spans().at("x264");
  EXPECT_EQ(x264.first_ns, 10);
  EXPECT_EQ(x264.last_ns, 95);
  EXPECT_EQ(x264.length(), 85);
}

// machines/dev-vm-replay.json, which the reproduce part replays the recordings on as "this
// machine", is dev-vm.json as replay-check takes this host's calibration.
TEST(ExtractRecorded, DevVmReplayMachineIsCurrent) {
  Machine expected = replay_machine_of_this_host(shipped_machine("dev-vm.json"), true);
  expected.name = "dev-vm-replay";
  EXPECT_EQ(machine_file_text(shipped_machine("dev-vm-replay.json"), ""),
            machine_file_text(expected, ""));
}

TEST(ReplayCheck, ProgramFiguresFromTheOutput) {
  const ProgramFigures hb = program_figures(
      "Running in threaded mode with 2 groups using 10 file descriptors each (== 20 tasks)\n"
      "Each sender will pass 400 messages of 100 bytes\nTime: 0.146\n");
  EXPECT_DOUBLE_EQ(hb.hackbench_time_s, 0.146);
  EXPECT_EQ(hb.x264_frames, 0);
  const ProgramFigures x = program_figures(
      "x264 [info]: profile High, level 3.0\r[50.0%] 20/40 frames, 81.23 fps\n"
      "encoded 40 frames, 77.52 fps, 6123.45 kb/s\n");
  EXPECT_EQ(x.x264_frames, 40);
  EXPECT_DOUBLE_EQ(x.x264_fps, 77.52);
  EXPECT_EQ(x.hackbench_time_s, 0);
  EXPECT_FALSE(program_figures("no figures here\nElapsed Time: 3\n").any());
  const ProgramFigures tb = program_figures(
      "   1     39373   231.02 MB/sec  execute   1 sec  latency 3.842 ms\n"
      "Throughput 231.018 MB/sec  1 clients  1 procs  max_latency=3.842 ms\n");
  EXPECT_DOUBLE_EQ(tb.tbench_mb_per_s, 231.018);
  EXPECT_EQ(tb.program(), "tbench");
  EXPECT_EQ(tb.hackbench_time_s, 0);
}

// tbench 1 against tbench_srv over loopback, 2 s (tests/data/replay/tbench2.txt.xz, 58 MB
// of trace recorded on a quiet machine, so committed compressed and decompressed here with
// xz; skipped without it), with tbench's output (TRACE.out: "Throughput 231.018 MB/sec").
// Measured with --softirq-wakers and tbench's threads selected, under eevdf on a flat
// machine: CPU time within 27 us per task of about 1 s (loop means; 16 us before the
// switches out of idle that CPU 1 does not trace were placed at their wake-ups), the run 2404.4 ms
// recorded against 2404.1 ms replayed, tbench's span 2101.9 against 2101.5 ms, so its throughput
// replayed 231.07 MB/sec (the same bytes over the replayed span). Bounds with a margin.
TEST(ExtractRecorded, TbenchCompressed) {
  const test::TempDir dir;
  const std::string trace = dir.file("tbench2.txt");
  const std::string command = "xz -dc '" + kReplay + "tbench2.txt.xz' > '" + trace +
                              "' 2>/dev/null && cp '" + kReplay + "tbench2.txt.out' '" + trace +
                              ".out'";
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "xz (xz-utils) is not installed";
  ExtractOptions o;
  o.comm_patterns = {"tbench*"};
  o.softirq_wakers = true;
  ReplayCheck c = replay_check(trace, o, "eevdf", std::nullopt);
  read_program_output(trace, c);
  ASSERT_EQ(c.rows.size(), 4u);
  for (const ReplayRow& r : c.rows)
    EXPECT_LE(std::abs(r.sim.cpu_ns - r.real.cpu_ns), 40000) << r.name;
  const double duration =
      static_cast<double>(c.sim_duration_ns) / static_cast<double>(c.real_duration_ns);
  EXPECT_GT(duration, 0.95);
  EXPECT_LT(duration, 1.05);
  EXPECT_GE(c.workload.edges.size(), 1u);
  EXPECT_DOUBLE_EQ(c.program.tbench_mb_per_s, 231.018);
  EXPECT_EQ(c.program.program(), "tbench");
  const double span =
      static_cast<double>(c.sim_span.length()) / static_cast<double>(c.real_span.length());
  EXPECT_GT(c.real_span.length(), 2'000'000'000);  // the 2 s run and its setup
  EXPECT_GT(span, 0.95);
  EXPECT_LT(span, 1.05);
  std::ostringstream out;
  print_replay_check(c, out);
  EXPECT_NE(out.str().find("tbench MB/sec                231.02 "), std::string::npos) << out.str();
}

// A real SCHED_DEADLINE task (tests/data/replay/rtapp-deadline.txt: Debian's rt-app 1.0,
// "dl" with runtime 3 ms, deadline 8 ms and period 10 ms running 2.5 ms of wall-clock time
// per 10 ms of its timer, beside two hogs, 1 s on this 2-vCPU VM under Linux 6.18). rt-app's
// thread makes itself a deadline task after it starts, so its first lines show prio 120.
// Extracted alone: a deadline task, period 10 ms, runtime 2,522 us (its largest whole job;
// measured). The kernel throttled it 50 times: its deadline is constrained (8 of 10 ms),
// so a job woken shortly before its old deadline gets only its density of the time left
// (the revised wake-up rule), and rt-app's wall-clock runtime ends while it waits; and at
// each replenishment it pushed it to the other CPU (6.7's push of a lone task). With its
// real parameters (--dl) the replay under eevdf throttles it as often (measured 51), with
// every task's CPU time kept (loop means, within 1 us), the run 1015.6 -> 1022.2 ms (1.006;
// 1.094 without the push) and 52 migrations (recorded 49; 0 under 6.6's rule). Bounds with
// a margin.
TEST(ExtractRecorded, DeadlineTaskOfRtApp) {
  const std::string trace = kReplay + "rtapp-deadline.txt";
  ExtractOptions alone;
  alone.comm_patterns = {"rt-app"};
  const ExtractedWorkload w = extract_trace_file(trace, alone);
  const XTask& dl = xtask(w, "dl");
  EXPECT_EQ(dl.policy, SchedPolicy::kDeadline);
  EXPECT_TRUE(dl.dl_inferred);
  EXPECT_EQ(dl.dl_period_ns, 10'000'000);
  EXPECT_EQ(dl.dl_runtime_ns, 2'522'000);

  ExtractOptions given = alone;
  given.dl.push_back(parse_dl_option("dl=3000:8000:10000"));
  const ReplayCheck c = replay_check(trace, given, "eevdf", std::nullopt);
  const ReplayRow* row = nullptr;
  for (const ReplayRow& r : c.rows) {
    EXPECT_LE(std::abs(r.sim.cpu_ns - r.real.cpu_ns), 1000) << r.name;
    if (r.name == "dl") row = &r;
  }
  ASSERT_NE(row, nullptr);
  std::cout << "dl involuntary switches " << row->real.involuntary << " -> " << row->sim.involuntary
            << ", run " << c.real_duration_ns << " -> " << c.sim_duration_ns << " ns\n";
  EXPECT_EQ(row->real.involuntary, 50u);
  // Extracted: dl's setup runs as SCHED_OTHER (its first lines show prio 120: rt-app calls
  // sched_setattr once its threads have met), the rest as the deadline task, sleeping on
  // rt-app's timer, whose grid starts where dl took t_zero, 12.473 ms into the trace.
  const XTask& given_dl = xtask(c.workload, "dl");
  ASSERT_GE(given_dl.phases.size(), 2u);
  EXPECT_TRUE(given_dl.phases[0].started_as);
  EXPECT_FALSE(given_dl.phases[1].started_as);
  EXPECT_EQ(given_dl.timer_origin_ns, 12'473'000);
  // Replayed, dl wakes on that grid, every 10 ms from 22.473 ms (its first wake-up is the
  // end of rt-app's thread barrier).
  struct Wakes : EventSink {
    TaskId dl = kNoTask;
    std::vector<Time> at;
    void task_created(const TaskInfo& t) override {
      if (t.name == "dl-0") dl = t.id;
    }
    void event(const SchedEvent& e) override {
      if (e.type == EventType::kWakeup && e.task == dl) at.push_back(e.time);
    }
  } wakes;
  simulate(replay_scenario(c.workload, "eevdf"), wakes, {});
  ASSERT_EQ(wakes.at.size(), 101u);
  for (size_t k = 1; k < wakes.at.size(); ++k)
    EXPECT_EQ(wakes.at[k], 12'473'000 + static_cast<Time>(k) * 10'000'000) << k;
  // What the replay does not reproduce (docs/replay.md): the kernel throttled dl in half
  // its jobs, from a budget debt that began when its first activation came 5.6 ms after
  // the barrier; the replay activates it at once (6.x's SIS_UTIL, which kept it on its busy
  // CPU, needs PELT, which the model lacks) and so gives it a fresh period at each
  // wake-up: no throttles, so no pushes at replenishments (the kernel moved dl 49 times).
  EXPECT_LE(row->sim.involuntary, 5u);
  const double duration =
      static_cast<double>(c.sim_duration_ns) / static_cast<double>(c.real_duration_ns);
  EXPECT_GT(duration, 1.0);
  EXPECT_LT(duration, 1.1);
}

// The committed extraction is what extract writes today, byte for byte.
TEST(ExtractRecorded, CommittedWorkloadsAreCurrent) {
  const std::pair<std::string, std::string> recordings[] = {
      {"hackbench-threads", "hackbench*"}, {"hackbench-processes", "hackbench*"},
      {"x264-threads1", "x264*"},          {"x264-threads2", "x264*"},
      {"x264-threads4", "x264*"},          {"rtapp-example4", "rt-app"},
      {"rtapp-deadline", "rt-app"}};
  for (const auto& [name, comm] : recordings) {
    const std::string trace = "tests/data/replay/" + name + ".txt";
    ExtractOptions o;
    o.comm_patterns = {comm};
    const ExtractedWorkload w =
        extract_trace_file(std::string(SCHEDLAB_SOURCE_DIR) + "/" + trace, o);
    std::ifstream in(std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/replay/" + name + ".json");
    std::stringstream committed;
    committed << in.rdbuf();
    EXPECT_EQ(scenario_json(w, trace, ""), committed.str()) << name;
  }
  // scenarios/replay/, which E1 D replays: the x264 extractions with the 40 frames x264
  // reported marked at the end (extract --end-mark frames=40)
  for (const char* name : {"x264-threads1", "x264-threads2", "x264-threads4"}) {
    const std::string trace = std::string("tests/data/replay/") + name + ".txt";
    ExtractOptions o;
    o.comm_patterns = {"x264*"};
    ExtractedWorkload w = extract_trace_file(std::string(SCHEDLAB_SOURCE_DIR) + "/" + trace, o);
    w.end_mark = "frames";
    w.end_mark_count = 40;
    std::ifstream in(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/replay/" + name + ".json");
    std::stringstream committed;
    committed << in.rdbuf();
    EXPECT_EQ(scenario_json(w, trace, ""), committed.str()) << name;
  }
}

// --cpus: every task pinned where the user says (a trace does not show affinity); the
// replay then runs everything on CPU 1 and keeps each task's CPU time.
TEST(Extract, CpusPinEveryTask) {
  const Scenario s = load_scenario(kReplay + "roundtrip.json");
  ExtractedWorkload w = extract_text(simulate_to_ftrace(s));
  const Metrics free_run = simulate_metrics(replay_scenario(w, "cfs-2.6.31"));
  w.cpus_of_every_task = {1};
  const std::string text = scenario_json(w, "trace.txt", "");
  size_t pinned = 0;
  for (size_t at = text.find("\"cpus\": [1],"); at != std::string::npos;
       at = text.find("\"cpus\": [1],", at + 1))
    ++pinned;
  EXPECT_EQ(pinned, w.tasks.size());
  const Metrics m = simulate_metrics(replay_scenario(w, "cfs-2.6.31"));
  ASSERT_EQ(m.per_cpu.size(), 2u);
  EXPECT_EQ(m.per_cpu[0].busy_ns, 0);
  EXPECT_GT(free_run.per_cpu[0].busy_ns, 0);  // unpinned, both CPUs ran
  ASSERT_EQ(m.tasks.size(), free_run.tasks.size());
  for (size_t i = 0; i < m.tasks.size(); ++i)
    EXPECT_EQ(m.tasks[i].cpu_time_ns, free_run.tasks[i].cpu_time_ns) << m.tasks[i].name;
}

// --end-mark's phase: the replay counts the mark once, at the first task's end.
TEST(Extract, EndMarkIsCountedOnceInTheReplay) {
  const Scenario s = load_scenario(kReplay + "roundtrip.json");
  ExtractedWorkload w = extract_text(simulate_to_ftrace(s));
  w.end_mark = "frames";
  w.end_mark_count = 40;
  const Metrics m = simulate_metrics(replay_scenario(w, "cfs-2.6.31"));
  ASSERT_EQ(m.marks.count("frames"), 1u);
  EXPECT_EQ(m.marks.at("frames").count, 40u);
}

}  // namespace
}  // namespace schedlab
