// The analyses scheduler people expect, on cases computed by hand: perf sched latency and
// timehist on a hand-written trace, rt-app's per-activation log of a periodic task with
// one overrun, schbench's percentile block and the seed programs' units.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyzer.h"
#include "host/ftrace_parser.h"
#include "report/json_report.h"
#include "report/program_units.h"
#include "report/rtapp_log.h"
#include "report/sched_latency.h"
#include "report/table_report.h"

namespace schedlab {
namespace {

// One CPU, times in ms from 1 s:
//   1.000 a woken (from idle)       1.001 idle -> a        (a's delay 1 ms)
//   1.004 b woken (a runs)          1.005 a preempted -> b (b's delay 1 ms)
//   1.008 b sleeps -> a (a's delay 3 ms)                   1.010 a sleeps -> idle
// a: runtime 4 + 2 = 6 ms, 2 switches, delays 1 and 3 ms: avg 2, max 3 (1.005 -> 1.008).
// b: runtime 3 ms, 1 switch, delay 1 ms (1.004 -> 1.005).
const char* kTrace = R"(#P:1
          <idle>-0     [000] d.h2.     1.000000: sched_wakeup: comm=a pid=10 prio=120 target_cpu=000
          <idle>-0     [000] d..2.     1.001000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120
               a-10    [000] d.h2.     1.004000: sched_wakeup: comm=b pid=11 prio=120 target_cpu=000
               a-10    [000] d..2.     1.005000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=R+ ==> next_comm=b next_pid=11 next_prio=120
               b-11    [000] d..2.     1.008000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=a next_pid=10 next_prio=120
               a-10    [000] d..2.     1.010000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";

TEST(SchedLatency, ThePerfTableOfAHandWrittenTrace) {
  std::istringstream in(kTrace);
  Analyzer analyzer;
  std::ostringstream rows;
  TimehistWriter timehist(rows);
  SinkList sinks;
  sinks.add(&analyzer);
  sinks.add(&timehist);
  parse_ftrace(in, "latency.txt", sinks);
  const std::string table = sched_latency_table(analyzer.metrics());
  EXPECT_NE(table.find("  a:10                  |      6.000 ms |        2 | avg:   2.000 ms | "
                       "max:   3.000 ms | max start:     1.005000 s | max end:     1.008000 s\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("  b:11                  |      3.000 ms |        1 | avg:   1.000 ms | "
                       "max:   1.000 ms | max start:     1.004000 s | max end:     1.005000 s\n"),
            std::string::npos)
      << table;
  EXPECT_LT(table.find("  a:10 "), table.find("  b:11 "));  // larger average first
  EXPECT_NE(table.find("  TOTAL:                |      9.000 ms |        3 |\n"), std::string::npos)
      << table;

  // timehist: at 1.005 a leaves after 4 ms (woken at 1.000, in at 1.001: delay 1 ms);
  // at 1.008 b after 3 ms; at 1.010 a after 2 ms (preempted 1.005, in 1.008: delay 3).
  const std::string r = rows.str();
  EXPECT_NE(r.find("       1.001000 [0000]  <idle>                              0.000      0.000"
                   "      1.000\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("       1.005000 [0000]  a[10]                               0.000      1.000"
                   "      4.000\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("       1.008000 [0000]  b[11]                               0.000      1.000"
                   "      3.000\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("       1.010000 [0000]  a[10]                               0.000      3.000"
                   "      2.000\n"),
            std::string::npos)
      << r;
}

// A periodic task (rt-app: run 3 ms, timer 10 ms) on one CPU whose third iteration runs
// 15 ms: slack 7, 7, -5 (late: no sleep, the iteration ends at its timer), 2, 7 ms.
//   iteration  start  timer  expiry  end   run  period  slack  wu_lat
//       1        0      3      10     10     3     10      7      0
//       2       10     13      20     20     3     10      7      0
//       3       20     35      30     35    15     15     -5      0
//       4       35     38      40     41     3      6      2      1   (runs 1 ms late)
//       5       41     44      50     50     3      9      6      0
TEST(RtAppLog, APeriodicTaskWithOneOverrun) {
  Analyzer a;
  RunInfo info;
  info.cpus = 1;
  a.begin(info);
  TaskInfo t;
  t.id = 0;
  t.name = "periodic";
  t.allowed = all_cpus(1);
  a.task_created(t);
  const Time ms = kNsPerMs;
  auto sw = [&](Time at, TaskId prev, TaskId next) {
    a.event(
        {at, EventType::kSwitch, static_cast<uint8_t>(PrevState::kBlocked), 0, prev, next, 0, 0});
  };
  auto timer = [&](Time at, Time expiry, int32_t c_duration_us) {
    a.event({at, EventType::kTimer, 0, 0, 0, c_duration_us, 10000, expiry});
  };
  auto wake = [&](Time at) { a.event({at, EventType::kWakeup, 0, 0, 0, kNoTask, 0, 0}); };
  a.event({0, EventType::kWakeupNew, 0, 0, 0, kNoTask, 0, 0});
  sw(0, kNoTask, 0);
  timer(3 * ms, 10 * ms, 3000);
  sw(3 * ms, 0, kNoTask);
  wake(10 * ms);
  sw(10 * ms, kNoTask, 0);
  timer(13 * ms, 20 * ms, 3000);
  sw(13 * ms, 0, kNoTask);
  wake(20 * ms);
  sw(20 * ms, kNoTask, 0);
  timer(35 * ms, 30 * ms, 15000);  // late: goes on
  timer(38 * ms, 40 * ms, 3000);
  sw(38 * ms, 0, kNoTask);
  wake(40 * ms);
  sw(41 * ms, kNoTask, 0);
  timer(44 * ms, 50 * ms, 3000);
  sw(44 * ms, 0, kNoTask);
  wake(50 * ms);
  sw(50 * ms, kNoTask, 0);
  a.end(51 * ms);
  const TaskMetrics& m = a.metrics().tasks[0];
  ASSERT_EQ(m.activations.size(), 5u);
  EXPECT_EQ(m.missed_periods, 1u);
  const std::string log = rtapp_log_text(a.metrics(), m, 0);
  std::istringstream lines(log);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header,
            "#idx     perf      run   period           start             end          rel_st"
            "      slack c_duration   c_period     wu_lat");
  // idx perf run period start end rel_st slack c_duration c_period wu_lat (us; start and
  // end on the clock of a simulation, which starts at 100 s)
  const int64_t expected[5][11] = {
      {0, 3000, 3000, 10000, 100000000, 100010000, 0, 7000, 3000, 10000, 0},
      {0, 3000, 3000, 10000, 100010000, 100020000, 10000, 7000, 3000, 10000, 0},
      {0, 15000, 15000, 15000, 100020000, 100035000, 20000, -5000, 15000, 10000, 0},
      {0, 3000, 3000, 6000, 100035000, 100041000, 35000, 2000, 3000, 10000, 1000},
      {0, 3000, 3000, 9000, 100041000, 100050000, 41000, 6000, 3000, 10000, 0},
  };
  for (const auto& row : expected) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line));
    std::istringstream cols(line);
    for (int64_t want : row) {
      int64_t got = 0;
      cols >> got;
      EXPECT_EQ(got, want) << line;
    }
  }
  const auto j = nlohmann::json::parse(metrics_json(a.metrics()));
  EXPECT_EQ(j["tasks"][0]["timer"]["activations"], 5);
  EXPECT_EQ(j["tasks"][0]["timer"]["missed_periods"], 1);
  EXPECT_EQ(j["tasks"][0]["timer"]["slack_min_ns"], -5 * ms);
}

// schbench's block: nearest-rank of 1..1000 us.
TEST(PercentileBlock, AsSchbenchPrintsIt) {
  LatencyStats s;
  for (int v = 1; v <= 1000; ++v) s.add(v * 1000);
  EXPECT_EQ(percentile_block("Wakeup latency", s),
            "\nWakeup latency percentiles (usec), 1000 samples\n"
            "\t50.0000th: 500\n\t75.0000th: 750\n\t90.0000th: 900\n\t95.0000th: 950\n"
            "\t*99.0000th: 990\n\t99.5000th: 995\n\t99.9000th: 999\n\tmin=1, max=1000\n");
  LatencyStats other;
  other.add(2'000'000);
  s.merge(other);
  EXPECT_EQ(s.count(), 1001u);
  EXPECT_EQ(s.max(), 2'000'000);
  EXPECT_EQ(s.min(), 1000);
}

TEST(ProgramUnits, TbenchMegabytesAndHackbenchSeconds) {
  Metrics m;
  m.duration_ns = 2 * kNsPerSec;
  m.generator = "tbench";
  m.marks["tbench_bytes"].count = 300'000'000;
  EXPECT_EQ(program_figure(m).line, "Throughput 150.000 MB/sec");
  m.generator = "hackbench";
  m.marks["messages"].last_ns = 1'234'000'000;
  EXPECT_EQ(program_figure(m).line, "Time: 1.234");
  EXPECT_DOUBLE_EQ(program_figure(m).value, 1.234);
  m.generator = "x264";
  EXPECT_TRUE(program_figure(m).name.empty());
}

}  // namespace
}  // namespace schedlab
