// A recording written again (`analyze TRACE --ftrace OUT --trace-dat OUT`): analyze of
// either file gives analyze of the recording, task by task (pid), for every trace under
// tests/data that analyze reads; the tasks running on each CPU when the recording began
// are in the files as the kernel has them, in the name of that CPU's records.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "cli_harness.h"
#include "host/ftrace_parser.h"
#include "host/trace_dat.h"
#include "temp_dir.h"
#include "trace_harness.h"

namespace schedlab {
namespace {

using test::analyze_file;
using test::cli;
using test::expect_same_by_pid;
using test::Names;
using test::TempDir;

const std::string kData = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/";

// Every trace of tests/data: the recording in each layout, the two-hogs recording and
// the replay recordings.
std::vector<std::string> recorded_traces() {
  std::vector<std::string> out;
  for (const std::string dir : {"", "formats/", "replay/"})
    for (const auto& e : std::filesystem::directory_iterator(kData + dir)) {
      const std::string ext = e.path().extension().string();
      if (ext == ".txt" || ext == ".html" || ext == ".dat") out.push_back(e.path().string());
    }
  std::sort(out.begin(), out.end());
  return out;
}

struct Rewritten {
  std::string text, dat;
};

Rewritten rewrite(const std::string& trace, const TempDir& dir) {
  const std::string stem = std::filesystem::path(trace).filename().string();
  Rewritten w{dir.file(stem + ".ftrace.txt"), dir.file(stem + ".dat")};
  const auto r = cli({"analyze", trace, "--ftrace", w.text, "--trace-dat", w.dat});
  EXPECT_EQ(r.code, 0) << trace << ": " << r.err;
  return w;
}

// analyze of both files written gives analyze of the original (names: the text's a comm
// as one token, a trace.dat's the comm itself). An inferred switch is not written, so a
// reader infers it again at the same place; only the sum of recorded and inferred
// switches is compared.
void expect_both_read_back(const Metrics& original, const Rewritten& w, const std::string& what) {
  expect_same_by_pid(original, analyze_file(w.text), what + " --ftrace", Names::kOneToken, false);
  expect_same_by_pid(original, analyze_file(w.dat), what + " --trace-dat", Names::kSame, false);
}

TEST(TraceRewrite, EveryRecordingReadsBackTheSameTaskByTask) {
  const TempDir dir;
  size_t traces = 0;
  for (const std::string& trace : recorded_traces()) {
    const Metrics original = analyze_file(trace);
    expect_both_read_back(original, rewrite(trace, dir), trace);
    ++traces;
  }
  EXPECT_GE(traces, 14u);  // two-loops in 8 layouts, two-hogs, 5 replay recordings
}

// CPU 0 ran `hog` from the start, and the only records on CPU 0 are its wake-ups of `a`,
// which a re-written file records on a's CPU: hog's 1.01 ms are then kept by one record
// in its name on CPU 0 at the end (a wake-up of itself).
TEST(TraceRewrite, AStartTaskWithNoRecordOfItsOwnKeepsItsTime) {
  const TempDir dir;
  const std::string trace =
      dir.write("hog.txt",
                "#P:2\n"
                "hog-20 [000] d..3. 1.000000: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n"
                "<idle>-0 [001] d..2. 1.000010: sched_switch: prev_comm=swapper/1 prev_pid=0 "
                "prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n"
                "a-10 [001] d..2. 1.000500: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
                "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
                "hog-20 [000] d..3. 1.001000: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n"
                "<idle>-0 [001] d..2. 1.001010: sched_switch: prev_comm=swapper/1 prev_pid=0 "
                "prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n");
  const Metrics original = analyze_file(trace);
  ASSERT_EQ(original.tasks.size(), 2u);
  EXPECT_EQ(original.tasks[0].name, "hog");
  EXPECT_EQ(original.tasks[0].cpu_time_ns, 1010000);
  const Rewritten w = rewrite(trace, dir);
  expect_both_read_back(original, w, "");
  EXPECT_NE(test::read_all(w.text).find("hog-20      (     20) [000] ...1     1.001010000: "
                                        "sched_wakeup: comm=hog pid=20 prio=120 target_cpu=000"),
            std::string::npos)
      << test::read_all(w.text);
}

// As on this VM's CPU 1, whose switches out of idle are not traced: `a` sleeps at 1.000000,
// is woken in idle's soft interrupt at 1.000100, and an interrupt in idle on CPU 1 wakes
// `b` onto CPU 0 at 1.000112, so CPU 1 was still idle then: a's switch-in is placed at
// 1.000112 (a ran 1000 us from the trace's start, then 888 us; 12 us waiting). b's
// wake-up has no waker and is written on its target, CPU 0: the files written hold a
// wake-up of `a` (already woken) in idle context on CPU 1 at 1.000112 for the reader to
// place the switch at again, and no other line at that time on CPU 1.
TEST(TraceRewrite, ASwitchOutOfIdleIsPlacedAgainWhereTheRecordingPlacedIt) {
  const TempDir dir;
  const std::string trace = dir.write(
      "idle-exit.txt",
      "#P:2\n"
      "b-11 [000] d..2. 0.999000: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
      "a-10 [001] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
      "<idle>-0 [001] dNs4. 1.000100: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n"
      "<idle>-0 [001] dNh3. 1.000112: sched_wakeup: comm=b pid=11 prio=120 target_cpu=000\n"
      "<idle>-0 [000] d..2. 1.000125: sched_switch: prev_comm=swapper/0 prev_pid=0 "
      "prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120\n"
      "b-11 [000] d..2. 1.000200: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
      "a-10 [001] d..2. 1.001000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
      "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n");
  const Metrics original = analyze_file(trace);
  const TaskMetrics& a = test::task(original, "a");
  EXPECT_EQ(a.cpu_time_ns, 1888000);
  EXPECT_EQ(a.wait_time_ns, 12000);
  const Rewritten w = rewrite(trace, dir);
  expect_both_read_back(original, w, "");
  const std::string text = test::read_all(w.text);
  EXPECT_NE(text.find("[001] d.h3     1.000112000: sched_wakeup: comm=a pid=10 prio=120 "
                      "target_cpu=001"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("[001] d.h3     1.000112000: sched_wakeup: comm=b"), std::string::npos)
      << text;
}

// Two pids share the comm `worker`: analyze names them worker:10 and worker:11, and the
// files written hold the comm itself (the kernel's), read back under the same names.
TEST(TraceRewrite, ASharedCommIsWrittenWithoutThePid) {
  const TempDir dir;
  const std::string trace =
      dir.write("workers.txt",
                "#P:1\n"
                "<idle>-0 [000] d..2. 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 "
                "prev_prio=120 prev_state=R ==> next_comm=worker next_pid=10 next_prio=120\n"
                "worker-10 [000] d..2. 1.000100: sched_switch: prev_comm=worker prev_pid=10 "
                "prev_prio=120 prev_state=R+ ==> next_comm=worker next_pid=11 next_prio=120\n"
                "worker-11 [000] d..2. 1.000300: sched_switch: prev_comm=worker prev_pid=11 "
                "prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n");
  const Metrics original = analyze_file(trace);
  ASSERT_EQ(original.tasks.size(), 2u);
  EXPECT_EQ(original.tasks[0].name, "worker:10");
  EXPECT_EQ(original.tasks[1].name, "worker:11");
  const Rewritten w = rewrite(trace, dir);
  const std::string text = test::read_all(w.text), dat = trace_dat_text(w.dat);
  for (const auto& [what, t] : {std::pair{"--ftrace", text}, std::pair{"--trace-dat", dat}}) {
    EXPECT_NE(t.find("prev_comm=worker prev_pid=10 "), std::string::npos) << what << t;
    EXPECT_NE(t.find("next_comm=worker next_pid=11 "), std::string::npos) << what << t;
    EXPECT_NE(t.find("worker-11 "), std::string::npos) << what << t;
    EXPECT_EQ(t.find("worker:"), std::string::npos) << what << t;
  }
  expect_both_read_back(original, w, "");
}

}  // namespace
}  // namespace schedlab
