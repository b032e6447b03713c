// One metrics path: a synthetic host recording (the ftrace lines the kernel writes, plus
// the marks and SCHED_DEADLINE jobs the host runner's threads record, as a RunRecord)
// goes through parse_ftrace into the same Analyzer as a simulation, and every figure
// `host run` prints is the analyzer's own. Needs no root.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyzer.h"
#include "host/ftrace_parser.h"
#include "report/json_report.h"
#include "trace_harness.h"

namespace schedlab {
namespace {

using test::task;

// Times in ms from the first event (1.000000 s). a (pid 100) and b (pid 101) are the
// run's threads; kworker (pid 50) is the rest of the machine.
//   CPU 0: a runs 0-4, is preempted by kworker (4-5), runs 5-10 and sleeps.  a: 9 ms
//   CPU 1: b, woken at 0, runs 1-7 and sleeps.                                b: 6 ms
// The run's events: marks "frames" by a at 2 (1), 6 (1), 9 (2) and by b at 3 (1); b's
// deadline jobs end at 4 (0.5 ms early) and 6.5 (0.2 ms late: a miss).
const char* kTrace = R"(# tracer: nop
#P:2
               a-100     [000] d..2.     1.000000: sched_wakeup: comm=b pid=101 prio=120 target_cpu=001
          <idle>-0       [001] d..2.     1.001000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=101 next_prio=120
               a-100     [000] d..2.     1.004000: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=R ==> next_comm=kworker next_pid=50 next_prio=120
         kworker-50      [000] d..2.     1.005000: sched_switch: prev_comm=kworker prev_pid=50 prev_prio=120 prev_state=S ==> next_comm=a next_pid=100 next_prio=120
               b-101     [001] d..2.     1.007000: sched_switch: prev_comm=b prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               a-100     [000] d..2.     1.010000: sched_switch: prev_comm=a prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";

constexpr Time ms(double v) {
  return static_cast<Time>(v * 1e6);
}
constexpr Time at(double v) {
  return kNsPerSec + ms(v);
}  // CLOCK_MONOTONIC, as the trace

RunRecord synthetic_run() {
  RunRecord run;
  run.policy = "host test";
  run.threads[100].name = "a";
  run.threads[101].name = "b";
  run.mark_names = {"frames"};
  run.events = {
      {at(2), 100, 0, EventType::kMark, 0, 1},          {at(3), 101, 1, EventType::kMark, 0, 1},
      {at(4), 101, 1, EventType::kDlJob, 0, -ms(0.5)},  {at(6), 100, 0, EventType::kMark, 0, 1},
      {at(6.5), 101, 1, EventType::kDlJob, 0, ms(0.2)}, {at(9), 100, 0, EventType::kMark, 0, 2},
  };
  return run;
}

// Checks the stream stays in time order once the run's events are merged in.
class OrderCheck final : public EventSink {
 public:
  void event(const SchedEvent& e) override {
    if (e.time < last) ++out_of_order;
    last = e.time;
    if (e.type == EventType::kMark || e.type == EventType::kDlJob) own.push_back(e);
  }
  Time last = 0;
  int out_of_order = 0;
  std::vector<SchedEvent> own;
};

Metrics analyze(const RunRecord& run, OrderCheck* order = nullptr) {
  std::istringstream in(kTrace);
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  if (order) sinks.add(order);
  parse_ftrace(in, "host.txt", sinks, run);
  return analyzer.metrics();
}

TEST(HostMetrics, TheRunsEventsAreMergedInTimeOrderWithTheirTasks) {
  OrderCheck order;
  analyze(synthetic_run(), &order);
  EXPECT_EQ(order.out_of_order, 0);
  ASSERT_EQ(order.own.size(), 6u);
  const Time expected_times[] = {ms(2), ms(3), ms(4), ms(6), ms(6.5), ms(9)};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(order.own[i].time, expected_times[i]) << i;
  EXPECT_EQ(order.own[1].cpu, 1);
  EXPECT_NE(order.own[0].task, order.own[1].task);  // a's and b's task ids
}

TEST(HostMetrics, TheAnalyzerComputesEveryFigureOfHostRun) {
  const Metrics m = analyze(synthetic_run());
  EXPECT_EQ(m.policy, "host test");
  EXPECT_EQ(m.duration_ns, ms(10));
  // Only the run's own threads are listed; kworker still counts for switches and CPUs.
  ASSERT_EQ(m.tasks.size(), 2u);
  EXPECT_EQ(task(m, "a").cpu_time_ns, ms(9));
  EXPECT_EQ(task(m, "b").cpu_time_ns, ms(6));
  EXPECT_EQ(m.context_switches, 5u);
  EXPECT_EQ(m.per_cpu[0].busy_ns, ms(10));
  // Jain's index over a and b: (9 + 6)^2 / (2 (81 + 36)) = 225 / 234.
  EXPECT_DOUBLE_EQ(m.jain_fairness, 225.0 / 234.0);
  // b's jobs: one met, one missed; a has none.
  EXPECT_EQ(task(m, "b").dl_jobs, 2u);
  EXPECT_EQ(task(m, "b").deadline_misses, 1u);
  EXPECT_EQ(task(m, "a").dl_jobs, 0u);
  // Marks: 5 in all, first at 2 ms, last at 9 ms; a's intervals 4 and 3 ms (b marked once).
  const MarkMetrics& frames = m.marks.at("frames");
  EXPECT_EQ(frames.count, 5u);
  EXPECT_EQ(frames.first_ns, ms(2));
  EXPECT_EQ(frames.last_ns, ms(9));
  EXPECT_EQ(frames.interval.count(), 2u);
  EXPECT_EQ(frames.interval.max(), ms(4));
  const auto j = nlohmann::json::parse(metrics_json(m));
  EXPECT_DOUBLE_EQ(j["marks"]["frames"]["per_second"].get<double>(), 500.0);  // 5 in 10 ms
}

// A thread's rt-app timer step, on CLOCK_MONOTONIC like the trace: a reaches its timer at
// 2 ms with the expiry at 2.5 ms (slack 0.5 ms) and runs again at 5 ms (wu_lat 2.5 ms).
TEST(HostMetrics, TimerStepsAreOnTheTraceClock) {
  RunRecord run = synthetic_run();
  run.events.insert(run.events.begin() + 1,
                    HostEvent{at(2), 100, 0, EventType::kTimer, 10000, at(2.5), 1500});
  const Metrics m = analyze(run);
  const TaskMetrics& a = task(m, "a");
  ASSERT_EQ(a.activations.size(), 1u);
  EXPECT_EQ(a.activations[0].slack_ns, ms(0.5));
  EXPECT_EQ(a.activations[0].end_ns, ms(5));
  EXPECT_EQ(a.activations[0].wakeup_latency_ns, ms(2.5));
  EXPECT_EQ(a.activations[0].c_duration_us, 1500);
  EXPECT_EQ(a.missed_periods, 0u);
}

// Without a run (`analyze` of a recorded trace) every traced task is listed.
TEST(HostMetrics, WithoutARunEveryTaskIsTheWorkload) {
  const Metrics m = analyze(RunRecord{});
  EXPECT_EQ(m.policy, "host");
  ASSERT_EQ(m.tasks.size(), 3u);
  EXPECT_EQ(task(m, "kworker").cpu_time_ns, ms(1));
  EXPECT_DOUBLE_EQ(m.jain_fairness, 256.0 / (3 * (81 + 36 + 1)));  // (9+6+1)^2 / 3 sum x^2
  EXPECT_TRUE(m.marks.empty());
}

}  // namespace
}  // namespace schedlab
