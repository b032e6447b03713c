// Traces in and out: one recording made here (tests/data/formats: two shell loops pinned
// to CPU 1 beside a sleeper, Linux 6.18) in every layout read gives the same metrics;
// hand-written traces for the rules (a task born mid-trace, a cut last line, lost
// events, trace-cmd's plugin and raw layouts); and the round trip of every shipped
// scenario through `run --ftrace` and `analyze`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyzer.h"
#include "cli/cli.h"
#include "extract/extract.h"
#include "host/ftrace_parser.h"
#include "host/ftrace_record.h"
#include "report/ftrace_writer.h"
#include "report/json_report.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "trace_harness.h"
#include "util/error.h"

namespace schedlab {
namespace {

using test::analyze_file;
using test::analyze_text;
using test::task;

const std::string kFormats = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/formats/";

// Every per-task figure and the per-CPU ones, named for the failure message.
void expect_same_metrics(const Metrics& a, const Metrics& b, const std::string& what) {
  ASSERT_EQ(a.tasks.size(), b.tasks.size()) << what;
  EXPECT_EQ(a.context_switches, b.context_switches) << what;
  EXPECT_EQ(a.inferred_switches, b.inferred_switches) << what;
  EXPECT_EQ(a.migrations, b.migrations) << what;
  EXPECT_EQ(a.duration_ns, b.duration_ns) << what;
  for (size_t i = 0; i < a.tasks.size(); ++i) {
    const TaskMetrics &x = a.tasks[i], &y = b.tasks[i];
    EXPECT_EQ(x.name, y.name) << what;
    EXPECT_EQ(x.pid, y.pid) << what << " " << x.name;
    EXPECT_EQ(x.cpu_time_ns, y.cpu_time_ns) << what << " " << x.name;
    EXPECT_EQ(x.wait_time_ns, y.wait_time_ns) << what << " " << x.name;
    EXPECT_EQ(x.sleep_time_ns, y.sleep_time_ns) << what << " " << x.name;
    EXPECT_EQ(x.switches_voluntary, y.switches_voluntary) << what << " " << x.name;
    EXPECT_EQ(x.switches_involuntary, y.switches_involuntary) << what << " " << x.name;
    EXPECT_EQ(x.wakeup_latency.count(), y.wakeup_latency.count()) << what << " " << x.name;
    EXPECT_EQ(x.wakeup_latency.max(), y.wakeup_latency.max()) << what << " " << x.name;
    EXPECT_EQ(x.wakeup_latency.percentile(0.5), y.wakeup_latency.percentile(0.5))
        << what << " " << x.name;
  }
  for (size_t c = 0; c < a.per_cpu.size(); ++c)
    EXPECT_EQ(a.per_cpu[c].busy_ns, b.per_cpu[c].busy_ns) << what << " cpu " << c;
}

// The tracefs text and trace-cmd report's default, -R, -N and -l layouts print
// microseconds; report -t and trace.dat itself nanoseconds. Within each group the
// metrics are identical; every layout holds the same 165 switches.
// A trace.dat's tie at 2 ms: CPU 0 records A's switch-out as it blocks, CPU 1 records
// B waking A, and the merge puts CPU 0 first. Whether A slept depends on what follows:
// when A's next record is another wake-up (at 3 ms), A was asleep after the tie, which
// only the order wake-up, then switch-out allows (the wake-up found A still on its CPU
// and ended no sleep); when it is A's switch-in, the merged order stands (A woken from
// the sleep it began).
TEST(TraceFormats, ATieIsOrderedByWhetherTheTaskSleptAfterIt) {
  const auto rec = [](Time ms, CpuId cpu, FtraceKind kind, int64_t a, int64_t b = -1) {
    FtraceRecord r;
    r.time = ms * kNsPerMs;
    r.cpu = cpu;
    r.kind = kind;
    r.a.pid = a;
    r.b.pid = b;
    if (kind == FtraceKind::kSwitch && a > 0) r.prev_state = PrevState::kBlocked;
    return r;
  };
  constexpr int64_t A = 10, idle = 0;
  const auto ordered = [&](FtraceRecord after) {
    std::vector<FtraceRecord> recs{rec(1, 0, FtraceKind::kSwitch, idle, A),
                                   rec(2, 0, FtraceKind::kSwitch, A, idle),
                                   rec(2, 1, FtraceKind::kWaking, A),
                                   rec(2, 1, FtraceKind::kWakeup, A),
                                   std::move(after),
                                   rec(4, 0, FtraceKind::kSwitch, idle, A)};
    order_cpu_ties(recs);
    std::vector<FtraceKind> kinds;
    for (size_t i = 1; i < 4; ++i) kinds.push_back(recs[i].kind);
    return kinds;
  };
  using K = FtraceKind;
  EXPECT_EQ(ordered(rec(3, 1, K::kWakeup, A)),
            (std::vector<K>{K::kWaking, K::kWakeup, K::kSwitch}));
  EXPECT_EQ(ordered(rec(3, 1, K::kMigrate, 99)),
            (std::vector<K>{K::kSwitch, K::kWaking, K::kWakeup}));
}

TEST(TraceFormats, OneRecordingInEveryLayoutGivesTheSameMetrics) {
  FtraceStats base_stats;
  const Metrics base = analyze_file(kFormats + "two-loops.tracefs.txt", &base_stats);
  EXPECT_EQ(base_stats.switches, 165u);
  EXPECT_EQ(base.context_switches, base_stats.switches + base_stats.inferred_switches);
  EXPECT_EQ(base.inferred_switches, base_stats.inferred_switches);
  for (const char* f : {"two-loops.report.txt", "two-loops.report-R.txt", "two-loops.report-N.txt",
                        "two-loops.report-l.txt", "two-loops.systrace.html"}) {
    FtraceStats stats;
    const Metrics m = analyze_file(kFormats + f, &stats);
    EXPECT_EQ(stats.switches, 165u) << f;
    expect_same_metrics(base, m, f);
  }
  FtraceStats dat_stats;
  const Metrics dat = analyze_file(kFormats + "two-loops.dat", &dat_stats);
  EXPECT_EQ(dat_stats.format, "trace.dat");
  EXPECT_EQ(dat_stats.switches, 165u);
  expect_same_metrics(analyze_file(kFormats + "two-loops.report-t.txt"), dat, "trace.dat");
  // ns against us: the same tasks and switches, CPU times within 1 us per switch
  ASSERT_EQ(dat.tasks.size(), base.tasks.size());
  for (size_t i = 0; i < dat.tasks.size(); ++i)
    EXPECT_NEAR(static_cast<double>(dat.tasks[i].cpu_time_ns),
                static_cast<double>(base.tasks[i].cpu_time_ns),
                1000.0 * static_cast<double>(1 + base.tasks[i].switches_voluntary +
                                             base.tasks[i].switches_involuntary));
}

// trace-cmd report's default layout has no flags column: its 65 sched_waking lines, none
// in the idle task, all name a task as the waker, though `-l` shows 19 of them in a hard
// interrupt and 28 in a soft one. Extraction says so; -l, tracefs text and analyze
// (which asks for no waker) say nothing.
TEST(TraceFormats, WakersFromALayoutWithoutTheFlagsColumnAreNoted) {
  const auto note_of = [](const FtraceStats& s) {
    for (const std::string& n : s.notes)
      if (n.find("without the flags column") != std::string::npos) return n;
    return std::string();
  };
  FtraceStats stats;
  extract_trace_file(kFormats + "two-loops.report.txt", ExtractOptions{}, &stats);
  EXPECT_NE(note_of(stats).find("two-loops.report.txt: 65 wake-ups name their waker"),
            std::string::npos)
      << note_of(stats);
  for (const char* f : {"two-loops.report-l.txt", "two-loops.tracefs.txt"}) {
    FtraceStats flagged;
    extract_trace_file(kFormats + f, ExtractOptions{}, &flagged);
    EXPECT_EQ(note_of(flagged), "") << f;
  }
  FtraceStats analyzed;
  analyze_file(kFormats + "two-loops.report.txt", &analyzed);
  EXPECT_EQ(note_of(analyzed), "");
}

// trace-cmd's sched plugins, an instance prefix, --ts-diff, and -R's numbers: 0 running,
// 256 (TASK_REPORT_MAX) preempted, 1 asleep, 16 dead.
TEST(TraceFormats, PluginAndRawLayoutsAndTheirStates) {
  const std::string plugin = R"(cpus=1
inst:          a-10    [000]  1.000000: sched_wakeup:         b:11 [120] CPU:000
inst:          a-10    [000]  1.001000: (+1000) sched_switch:         a:10 [120] R ==> b:11 [120]
inst:          b-11    [000]  1.003000: sched_switch:         b:11 [120] S ==> a:10 [120]
inst:          a-10    [000]  1.004000: sched_switch:         a:10 [120] X ==> swapper/0:0 [120]
)";
  const std::string raw = R"(cpus=1
               a-10    [000]  1.000000: sched_wakeup:          comm=b pid=11 prio=120 target_cpu=000
               a-10    [000]  1.001000: sched_switch:          prev_comm=a prev_pid=10 prev_prio=120 prev_state=256 next_comm=b next_pid=11 next_prio=120
               b-11    [000]  1.003000: sched_switch:          prev_comm=b prev_pid=11 prev_prio=120 prev_state=1 next_comm=a next_pid=10 next_prio=120
               a-10    [000]  1.004000: sched_switch:          prev_comm=a prev_pid=10 prev_prio=120 prev_state=16 next_comm=swapper/0 next_pid=0 next_prio=120
)";
  for (const std::string& text : {plugin, raw}) {
    const Metrics m = analyze_text(text);
    EXPECT_EQ(m.context_switches, 3u);
    EXPECT_EQ(task(m, "a").switches_involuntary, 1u);
    EXPECT_EQ(task(m, "a").switches_voluntary, 1u);
    EXPECT_EQ(task(m, "a").cpu_time_ns, 1'000'000 + 1'000'000);
    EXPECT_EQ(task(m, "a").wait_time_ns, 2'000'000);
    EXPECT_EQ(task(m, "b").cpu_time_ns, 2'000'000);
    EXPECT_EQ(task(m, "b").wakeup_latency.max(), 1'000'000);
    EXPECT_EQ(task(m, "b").sleep_time_ns, 1'000'000);  // asleep 3-4 ms
  }
}

// LISA's kind of trace: no fork or wakeup_new events. c is first seen at 5 ms being
// switched in: it starts there, with no wait before (not runnable since the start). Only
// b's wait (0-1 ms, woken at the start) counts as idle while runnable, once per idle CPU.
TEST(TraceFormats, ATaskBornMidTraceStartsAtItsFirstAppearance) {
  const std::string trace = R"(#P:2
          <idle>-0     [000] d.h2.     1.000000: sched_wakeup: comm=b pid=11 prio=120 target_cpu=001
          <idle>-0     [001] d..2.     1.001000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
          <idle>-0     [000] d..2.     1.005000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=c next_pid=12 next_prio=120
               b-11    [001] d..2.     1.007000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               c-12    [000] d..2.     1.009000: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";
  FtraceStats stats;
  const Metrics m = analyze_text(trace, &stats);
  EXPECT_EQ(task(m, "c").wait_time_ns, 0);
  EXPECT_EQ(task(m, "c").cpu_time_ns, 4'000'000);
  EXPECT_EQ(task(m, "c").wakeup_latency.count(), 0u);
  EXPECT_EQ(task(m, "b").wait_time_ns, 1'000'000);
  for (const CpuMetrics& c : m.per_cpu) EXPECT_EQ(c.idle_while_runnable_ns, 1'000'000) << c.id;
  ASSERT_EQ(stats.notes.size(), 1u);
  EXPECT_NE(stats.notes[0].find("no sched_process_fork or sched_wakeup_new"), std::string::npos);
}

// trace_pipe cut mid-line: the last line, without its newline, is left out with a note;
// the same line with a newline is an error naming it.
TEST(TraceFormats, ACutLastLineIsLeftOutWithANote) {
  const std::string good =
      "  a-10 [000] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n";
  const std::string cut = "  b-11 [000] d..2. 1.002000: sched_switch: prev_comm=b prev_pid=";
  FtraceStats stats;
  const Metrics m = analyze_text(good + cut, &stats);
  EXPECT_EQ(m.context_switches, 1u);
  ASSERT_EQ(stats.notes.size(), 2u);  // the cut line, and no sched_wakeup at all
  EXPECT_EQ(stats.notes[0],
            "test.txt: line 2 is cut short (no newline: sched_switch without a valid "
            "prev_pid=) and was left out");
  EXPECT_THROW(analyze_text(good + cut + "\n"), InputError);
}

// Lost events by CPU: trace_pipe's count, and trace-cmd's "[EVENTS DROPPED]" without one.
// A first line that starts with "<idle>" is ftrace text, not HTML; a legacy systrace HTML
// file holds its text in `var linuxPerfData`; Android adds keys after target_cpu.
TEST(TraceFormats, HtmlIsToldFromTextAndLegacySystraceIsRead) {
  const std::string line =
      "          <idle>-0     [000] d..2  1.000000: sched_switch: prev_comm=swapper/0 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n"
      "               a-10    [000] d..5  1.001000: sched_wakeup: comm=b pid=11 prio=120 "
      "success=1 target_cpu=000 state=W\n"
      "               a-10    [000] d..3  1.002000: sched_switch: prev_comm=a prev_pid=10 "
      "prev_prio=120 prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n";
  FtraceStats stats;
  const Metrics text = analyze_text(line, &stats);
  EXPECT_EQ(stats.format, "ftrace text");
  EXPECT_EQ(text.context_switches, 2u);
  EXPECT_EQ(task(text, "b").wakeup_latency.max(), 1'000'000);
  const Metrics legacy = analyze_text(
      "<!DOCTYPE HTML>\n<html>\n<body>\n  <script>\n  var linuxPerfData = \"\\\n# tracer: nop\n" +
          line + "  </script>\n</body>\n</html>\n",
      &stats);
  EXPECT_EQ(stats.format, "systrace HTML");
  EXPECT_EQ(legacy.context_switches, 2u);
}

TEST(TraceFormats, LostEventsAreCountedPerCpu) {
  const std::string trace = R"(CPU:1 [LOST 12 EVENTS]
               a-10    [001] d..2.     1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
CPU:0 [EVENTS DROPPED]
               b-11    [000] d..2.     1.001000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
CPU:1 [LOST 3 EVENTS]
)";
  FtraceStats stats;
  const Metrics m = analyze_text(trace, &stats);
  EXPECT_EQ(stats.lost_events, 15u);
  EXPECT_EQ(m.per_cpu[1].lost_events, 15u);
  EXPECT_EQ(m.per_cpu[0].lost_events, 0u);
  EXPECT_TRUE(m.per_cpu[0].lost_uncounted);
  const auto j = nlohmann::json::parse(metrics_json(m));
  EXPECT_EQ(j["summary"]["lost_events"], 15);
  EXPECT_EQ(j["per_cpu"][1]["lost_events"], 15);
}

// An inferred switch: a's line at 3 ms shows b running although the last switch left
// idle on CPU 0. Recorded and inferred switches are reported apart.
TEST(TraceFormats, InferredSwitchesAreReportedApart) {
  const std::string trace = R"(#P:1
               a-10    [000] d..2.     1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
               b-11    [000] d..2.     1.003000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";
  FtraceStats stats;
  const Metrics m = analyze_text(trace, &stats);
  EXPECT_EQ(stats.switches, 2u);
  EXPECT_EQ(stats.inferred_switches, 1u);
  EXPECT_EQ(m.context_switches, 3u);
  const auto j = nlohmann::json::parse(metrics_json(m));
  EXPECT_EQ(j["summary"]["recorded_switches"], 2);
  EXPECT_EQ(j["summary"]["inferred_switches"], 1);
}

// This VM's kernel never traces the switch out of the idle task on CPU 1. a is woken
// onto idle CPU 1 at 2.002 ms and next seen switching out at 5 ms: an idle CPU runs a
// task woken onto it at once, so a ran from its wake-up (2.998 ms of CPU, no latency
// sample: the switch-in's time is inferred). b has no wake-up in the trace after the CPU
// went idle, so its switch-in stays at its first line (0 CPU time), as for lost events.
TEST(TraceFormats, AnUntracedSwitchOutOfIdleIsPlacedAtTheWakeup) {
  const std::string trace = R"(#P:2
               a-10    [001] d..2.     1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0     [001] d.h3.     1.002000: sched_waking: comm=a pid=10 prio=120 target_cpu=001
          <idle>-0     [001] dNh4.     1.002002: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001
               c-12    [000] d..2.     1.003000: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=c next_pid=12 next_prio=120
               a-10    [001] d..2.     1.005000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               b-11    [001] d..2.     1.006000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
)";
  FtraceStats stats;
  const Metrics m = analyze_text(trace, &stats);
  EXPECT_EQ(stats.inferred_switches, 2u);
  EXPECT_EQ(task(m, "a").cpu_time_ns, 2'998'000);
  EXPECT_EQ(task(m, "a").wakeup_latency.count(), 0u);
  EXPECT_EQ(task(m, "b").cpu_time_ns, 0);
  EXPECT_EQ(m.per_cpu[1].busy_ns, 2'998'000);
  ASSERT_FALSE(stats.notes.empty());
  EXPECT_NE(stats.notes.back().find("1 switch(es) out of the idle task are not in the trace"),
            std::string::npos)
      << stats.notes.back();
}

// As this VM's kernel (6.18) traces a remote wake-up: sched_waking on the waker's CPU 0
// at 1.000100, the IPI, sched_wakeup on the target CPU 1 at 1.000104, and the switch at
// 1.000105. The wake-up latency runs from the waking (5 us, as perf sched timehist
// counts it), not from the sched_wakeup (1 us).
TEST(TraceFormats, AWakeUpIsTimedFromItsSchedWaking) {
  const std::string trace = R"(#P:2
               b-11    [001] d..2.     1.000000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=c next_pid=12 next_prio=120
               a-10    [000] d..2.     1.000100: sched_waking: comm=b pid=11 prio=120 target_cpu=001
               c-12    [001] dNh2.     1.000104: sched_wakeup: comm=b pid=11 prio=120 target_cpu=001
               c-12    [001] d..2.     1.000105: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
               b-11    [001] d..2.     1.000200: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=c next_pid=12 next_prio=120
)";
  const Metrics m = analyze_text(trace);
  ASSERT_EQ(task(m, "b").wakeup_latency.count(), 1u);
  EXPECT_EQ(task(m, "b").wakeup_latency.max(), 5'000);
  EXPECT_EQ(task(m, "b").wait_time_ns, 5'000);
  EXPECT_EQ(task(m, "b").sleep_time_ns, 100'000);
}

// A task woken while it is still on its way to sleep (try_to_wake_up waits for it to leave
// its CPU) is woken from its switch-out: b's waking on CPU 0 at 1.000100 comes before
// its switch-out on CPU 1 at that microsecond, and its wake-up latency is 3 us, from
// 1.000100 to 1.000103, in either order of the two lines (a trace.dat's merge by time
// may give either).
TEST(TraceFormats, AWakingOfATaskStillRunningCountsFromItsSwitchOut) {
  const std::string head = "#P:2\n";
  const std::string waking =
      "a-10 [000] d..2. 1.000100: sched_waking: comm=b pid=11 prio=120 target_cpu=001\n";
  const std::string sleeps =
      "b-11 [001] d..2. 1.000100: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=c next_pid=12 next_prio=120\n";
  const std::string rest =
      "c-12 [001] dNh2. 1.000102: sched_wakeup: comm=b pid=11 prio=120 target_cpu=001\n"
      "c-12 [001] d..2. 1.000103: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 "
      "prev_state=R ==> next_comm=b next_pid=11 next_prio=120\n";
  const std::string start =
      "b-11 [001] d..2. 1.000000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=R ==> next_comm=b next_pid=11 next_prio=120\n";
  for (const std::string& order : {waking + sleeps, sleeps + waking}) {
    const Metrics m = analyze_text(head + start + order + rest);
    ASSERT_EQ(task(m, "b").wakeup_latency.count(), 1u) << order;
    EXPECT_EQ(task(m, "b").wakeup_latency.max(), 3'000) << order;
    EXPECT_EQ(task(m, "b").sleep_time_ns, 0) << order;
  }
  // A waking whose task does not sleep (its sched_wakeup comes while it runs) is no wake-up.
  const Metrics m = analyze_text(head + start + waking +
                                 "c-12 [001] d..2. 1.000102: sched_wakeup: comm=b pid=11 "
                                 "prio=120 target_cpu=001\n" +
                                 sleeps.substr(0, sleeps.find("1.000100")) + "1.000110" +
                                 sleeps.substr(sleeps.find("1.000100") + 8));
  EXPECT_EQ(task(m, "b").wakeup_latency.count(), 0u);
}

// A waking line after its own sched_wakeup (the CPUs' clocks apart, or a tie a trace.dat's
// merge put the other way): b is woken at 1.000100 and runs at 1.000101, and the waking
// from CPU 0 comes at 1.000101. It is dropped, not held for b's next sleep: b sleeps
// again from 1.000300 until its next wake-up at 1.000500, switched in 2 us later.
TEST(TraceFormats, AWakingAfterItsOwnWakeUpIsDropped) {
  const Metrics m = analyze_text(R"(#P:2
               b-11    [001] d..2.     1.000000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=c next_pid=12 next_prio=120
               c-12    [001] d..3.     1.000100: sched_wakeup: comm=b pid=11 prio=120 target_cpu=001
               c-12    [001] d..2.     1.000101: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
               a-10    [000] d..2.     1.000101: sched_waking: comm=b pid=11 prio=120 target_cpu=001
               b-11    [001] d..2.     1.000300: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=c next_pid=12 next_prio=120
               c-12    [001] d..3.     1.000500: sched_wakeup: comm=b pid=11 prio=120 target_cpu=001
               c-12    [001] d..2.     1.000502: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
)");
  ASSERT_EQ(task(m, "b").wakeup_latency.count(), 2u);
  EXPECT_EQ(task(m, "b").wakeup_latency.max(), 2'000);
  EXPECT_EQ(task(m, "b").sleep_time_ns, 300'000);
}

// Every shipped scenario, simulated for 0.3 s under its own scheduler, written as ftrace
// text and read back: the same per-task CPU, wait and sleep time, switches and wake-up
// latency percentiles as the simulation's own metrics. A machine's background tasks
// (machine/costs.h) are in the text as kernel threads are in a recording, and the text
// does not say which tasks are the workload: read back, they are tasks too, one per CPU
// of each source, named like kernel threads, beside the workload's.
TEST(TraceRoundTrip, EveryShippedScenarioThroughFtraceAndBack) {
  int scenarios = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ScenarioOverrides o;
    o.duration_s = 0.3;
    const Scenario s = load_scenario(entry.path().string(), o);
    Analyzer direct;
    std::ostringstream text;
    FtraceTextWriter writer(text);
    SinkList sinks;
    sinks.add(&direct);
    sinks.add(&writer);
    simulate(s, sinks, {});
    std::istringstream in(text.str());
    Analyzer back;
    parse_ftrace(in, entry.path().filename().string() + ".ftrace", back);
    const Metrics& a = direct.metrics();
    const Metrics& b = back.metrics();
    const std::string what = entry.path().filename().string();
    size_t background = 0;
    for (const BackgroundSource& src : s.machine.background)
      background += src.cpus ? src.cpus->size() : static_cast<size_t>(s.machine.cpus);
    ASSERT_EQ(a.tasks.size() + background, b.tasks.size()) << what;
    EXPECT_EQ(a.context_switches, b.context_switches) << what;
    EXPECT_EQ(b.inferred_switches, 0u) << what;
    EXPECT_EQ(a.duration_ns, b.duration_ns) << what;
    std::map<int64_t, const TaskMetrics*> read_back;
    for (const TaskMetrics& y : b.tasks) read_back[y.pid] = &y;
    for (const TaskMetrics& x : a.tasks) read_back.erase(x.pid);
    for (const auto& [pid, y] : read_back)
      EXPECT_NE(y->name.find('/'), std::string::npos) << what << " " << y->name;
    for (size_t i = 0; i < a.tasks.size(); ++i) {
      const TaskMetrics& x = a.tasks[i];
      const auto found = std::find_if(b.tasks.begin(), b.tasks.end(),
                                      [&x](const TaskMetrics& y) { return y.pid == x.pid; });
      ASSERT_NE(found, b.tasks.end()) << what << " " << x.name;
      const TaskMetrics& y = *found;
      EXPECT_EQ(x.pid, y.pid) << what << " " << x.name;
      EXPECT_EQ(x.cpu_time_ns, y.cpu_time_ns) << what << " " << x.name;
      EXPECT_EQ(x.wait_time_ns, y.wait_time_ns) << what << " " << x.name;
      EXPECT_EQ(x.sleep_time_ns, y.sleep_time_ns) << what << " " << x.name;
      EXPECT_EQ(x.switches_voluntary, y.switches_voluntary) << what << " " << x.name;
      EXPECT_EQ(x.switches_involuntary, y.switches_involuntary) << what << " " << x.name;
      EXPECT_EQ(x.migrations, y.migrations) << what << " " << x.name;
      for (double p : {0.5, 0.9, 0.99})
        EXPECT_EQ(x.wakeup_latency.percentile(p), y.wakeup_latency.percentile(p))
            << what << " " << x.name << " p" << p;
      EXPECT_EQ(x.wakeup_latency.count(), y.wakeup_latency.count()) << what << " " << x.name;
    }
    ++scenarios;
  }
  EXPECT_GE(scenarios, 19);
}

// The --ftrace file in the kernel's layout: a header with #P, each line's task running on
// its CPU, R+ for a preemption, the waking/wakeup pair and pids from kFirstPid.
TEST(TraceRoundTrip, FtraceLinesAreInTheKernelsLayout) {
  const Scenario s = scenario_from_text(
      R"({"global": {"duration": 1},
          "tasks": {"hog": {"loop": 1, "run": 5000, "sleep": 2000}}})",
      "inline.json", [] {
        ScenarioOverrides o;
        o.cpus = 1;
        return o;
      }());
  std::ostringstream text;
  FtraceTextWriter writer(text);
  simulate(s, writer, {});
  const std::string t = text.str();
  EXPECT_NE(t.find("# tracer: nop\n"), std::string::npos);
  EXPECT_NE(t.find("#P:1\n"), std::string::npos);
  EXPECT_NE(t.find("          <idle>-0       (-------) [000] d..3   100.000000000: "
                   "sched_wakeup_new: comm=hog pid=1000 prio=120 target_cpu=000\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R "
                   "==> next_comm=hog next_pid=1000 next_prio=120\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("             hog-1000    (   1000) [000] d..2   100.005"), std::string::npos)
      << t;
}

// A task's records show the prio it has when they are written: "t" runs a phase at nice 0,
// one at nice 10 (prio 130), then as SCHED_FIFO 50 (prio 49), each 1 ms and a 1 ms sleep.
// A phase's attributes are set as the task enters it, running, after the wake-up that
// ends the previous phase: its switch-ins show 120 (0 ms), 120 (2 ms, then nice 10), 130
// (4 ms, then FIFO) and 49 (6 ms).
TEST(TraceRoundTrip, RecordsShowThePrioATaskHasAfterItChangesItsOwn) {
  const Scenario s = scenario_from_text(
      R"({"tasks": {"t": {"loop": 1, "phases": {
          "a": {"run": 1000, "sleep": 1000},
          "b": {"priority": 10, "run": 1000, "sleep": 1000},
          "c": {"policy": "SCHED_FIFO", "priority": 50, "run": 1000, "sleep": 1000}}}}})",
      "inline.json", [] {
        ScenarioOverrides o;
        o.cpus = 1;
        o.policy = "eevdf";
        return o;
      }());
  std::ostringstream text;
  FtraceTextWriter writer(text);
  simulate(s, writer, {});
  std::vector<std::string> prios;
  std::istringstream lines(text.str());
  const std::string in = "next_comm=t next_pid=1000 next_prio=";
  for (std::string l; std::getline(lines, l);)
    if (const size_t at = l.find(in); at != std::string::npos)
      prios.push_back(l.substr(at + in.size()));
  EXPECT_EQ(prios, (std::vector<std::string>{"120", "120", "130", "49"})) << text.str();
}

// `analyze --trace` keeps the trace's pids and absolute clock; --trace-from-zero shifts.
TEST(TraceRoundTrip, AnalyzeTraceKeepsPidsAndTheClock) {
  const auto dir = std::filesystem::temp_directory_path() / "schedlab-traces-test";
  std::filesystem::create_directories(dir);
  const std::string trace = (dir / "t.json").string(), zero = (dir / "z.json").string();
  std::ostringstream out, err;
  ASSERT_EQ(cli_main({"analyze", kFormats + "two-loops.tracefs.txt", "--trace", trace}, out, err),
            0)
      << err.str();
  ASSERT_EQ(cli_main({"analyze", kFormats + "two-loops.tracefs.txt", "--trace", zero,
                      "--trace-from-zero"},
                     out, err),
            0)
      << err.str();
  std::ifstream a(trace), b(zero);
  const auto ja = nlohmann::json::parse(a), jb = nlohmann::json::parse(b);
  double min_a = 1e18, min_b = 1e18;
  bool real_pid = false;
  for (const auto& e : ja["traceEvents"]) {
    if (e.contains("ts")) min_a = std::min(min_a, e["ts"].get<double>());
    if (e["name"] == "thread_name" && e["tid"].get<int>() > 15000) real_pid = true;
  }
  for (const auto& e : jb["traceEvents"])
    if (e.contains("ts")) min_b = std::min(min_b, e["ts"].get<double>());
  EXPECT_TRUE(real_pid);
  EXPECT_GT(min_a, 8000e6);  // the recording's CLOCK_MONOTONIC, about 8292 s, in us
  EXPECT_LT(min_b, 1e6);
}

}  // namespace
}  // namespace schedlab
