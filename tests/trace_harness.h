// Reads ftrace text given in a test (or a trace file) through the parser into the
// analyzer, finds a task's figures by name, and compares the figures of two traces of
// one run task by task.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "analysis/analyzer.h"
#include "host/ftrace_parser.h"

namespace schedlab::test {

inline Metrics analyze_text(const std::string& text, FtraceStats* stats = nullptr) {
  std::istringstream in(text);
  Analyzer analyzer;
  const FtraceStats s = parse_ftrace(in, "test.txt", analyzer);
  if (stats) *stats = s;
  return analyzer.metrics();
}

inline Metrics analyze_file(const std::string& path, FtraceStats* stats = nullptr) {
  Analyzer analyzer;
  const FtraceStats s = parse_trace_file(path, analyzer);
  if (stats) *stats = s;
  return analyzer.metrics();
}

inline const TaskMetrics& task(const Metrics& m, const std::string& name) {
  for (const TaskMetrics& t : m.tasks)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

// How a trace written again names the original's tasks: the same; with blanks as
// underscores (the ftrace text writes a comm as one token); or by the kernel's first 15
// characters (a trace.dat of a simulated run holds the comm as the kernel cuts it).
enum class Names { kSame, kOneToken, kFirst15 };

// The figures of `analyze` of two traces of one run, per CPU and per pid (tasks first
// seen in one nanosecond on two CPUs may be numbered in another order). `inferred`: the
// inferred switches match too (a re-written recording writes them as switches, so only
// the sum is kept).
inline void expect_same_by_pid(const Metrics& a, const Metrics& b, const std::string& what,
                               Names names, bool inferred) {
  EXPECT_EQ(a.context_switches, b.context_switches) << what;
  if (inferred) {
    EXPECT_EQ(a.inferred_switches, b.inferred_switches) << what;
  }
  EXPECT_EQ(a.migrations, b.migrations) << what;
  EXPECT_EQ(a.duration_ns, b.duration_ns) << what;
  ASSERT_EQ(a.per_cpu.size(), b.per_cpu.size()) << what;
  const int cpus = static_cast<int>(a.per_cpu.size());
  for (size_t c = 0; c < a.per_cpu.size(); ++c) {
    EXPECT_EQ(a.per_cpu[c].busy_ns, b.per_cpu[c].busy_ns) << what << " cpu " << c;
    EXPECT_EQ(a.per_cpu[c].idle_ns, b.per_cpu[c].idle_ns) << what << " cpu " << c;
  }
  ASSERT_EQ(a.tasks.size(), b.tasks.size()) << what;
  std::map<int64_t, const TaskMetrics*> by_pid;
  for (const TaskMetrics& y : b.tasks) by_pid[y.pid] = &y;
  for (const TaskMetrics& x : a.tasks) {
    const std::string who = what + " " + x.name;
    ASSERT_TRUE(by_pid.count(x.pid)) << who;
    const TaskMetrics& y = *by_pid[x.pid];
    std::string name = x.name;
    if (names == Names::kOneToken) std::replace(name.begin(), name.end(), ' ', '_');
    if (names == Names::kFirst15) {
      EXPECT_EQ(name.substr(0, 15), y.name.substr(0, 15)) << who;
    } else {
      EXPECT_EQ(name, y.name) << who;
    }
    EXPECT_EQ(x.cpu_time_ns, y.cpu_time_ns) << who;
    EXPECT_EQ(x.wait_time_ns, y.wait_time_ns) << who;
    EXPECT_EQ(x.sleep_time_ns, y.sleep_time_ns) << who;
    EXPECT_EQ(x.switches_voluntary, y.switches_voluntary) << who;
    EXPECT_EQ(x.switches_involuntary, y.switches_involuntary) << who;
    EXPECT_EQ(x.migrations, y.migrations) << who;
    EXPECT_EQ(x.cpu_residency.dense(cpus), y.cpu_residency.dense(cpus)) << who;
    EXPECT_EQ(x.wakeup_latency.count(), y.wakeup_latency.count()) << who;
    for (double p : {0.5, 0.9, 0.99, 1.0})
      EXPECT_EQ(x.wakeup_latency.percentile(p), y.wakeup_latency.percentile(p)) << who << " " << p;
  }
}

// One line of ftrace text by its columns, "COMM-PID (TGID) [CPU] FLAGS SECS: EVENT: FIELDS"
// (the TGID column optional, as the trace.dat reader prints it), with the comm, the
// running task's pid, the CPU, the flags (at most four characters), the time as written
// and in ns, the event and its fields; false for a comment or an empty line.
struct FtraceLine {
  std::string task;
  int64_t ctx_pid = 0;
  int cpu = 0;
  std::string flags, time;
  int64_t ns = 0;
  std::string event, fields;
};

inline bool read_ftrace_line(const std::string& text, FtraceLine& l) {
  if (text.empty() || text[0] == '#') return false;
  const size_t open = text.find(" [");
  const size_t close = text.find("] ", open);
  std::string ctx = text.substr(0, open);
  if (const size_t paren = ctx.rfind(" ("); paren != std::string::npos) ctx.resize(paren);
  while (!ctx.empty() && ctx.back() == ' ') ctx.pop_back();
  const size_t dash = ctx.rfind('-'), first = ctx.find_first_not_of(' ');
  l.task = ctx.substr(first, dash - first);
  l.ctx_pid = std::stoll(ctx.substr(dash + 1));
  l.cpu = std::stoi(text.substr(open + 2, close - open - 2));
  const size_t colon = text.find(": ", close);
  const std::string before = text.substr(close + 2, colon - close - 2);
  l.time = before.substr(before.rfind(' ') + 1);
  const size_t dot = l.time.find('.');
  l.ns = std::stoll(l.time.substr(0, dot)) * 1'000'000'000LL + std::stoll(l.time.substr(dot + 1));
  l.flags = before.substr(0, std::min<size_t>(4, before.find(' ')));
  const size_t colon2 = text.find(": ", colon + 2);
  l.event = text.substr(colon + 2, colon2 - colon - 2);
  l.fields = colon2 == std::string::npos ? "" : text.substr(colon2 + 2);
  return true;
}

}  // namespace schedlab::test
