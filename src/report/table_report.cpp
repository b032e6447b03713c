#include "report/table_report.h"

#include <fmt/format.h>

#include "report/program_units.h"

namespace schedlab {

static double ms(Time ns) {
  return static_cast<double>(ns) / 1e6;
}

// schbench's block (schbench.c of 2016, show_latencies): nearest-rank percentiles in
// microseconds, the 99th starred.
std::string percentile_block(const std::string& title, const LatencyStats& s) {
  std::string out = fmt::format("\n{} percentiles (usec), {} samples\n", title, s.count());
  int64_t values[std::size(kPercentileBlock)];
  s.percentiles(kPercentileBlock, values);
  for (size_t i = 0; i < std::size(kPercentileBlock); ++i)
    out += fmt::format("\t{}{:.4f}th: {}\n", kPercentileBlock[i] == 0.99 ? "*" : "",
                       kPercentileBlock[i] * 100, values[i] / 1000);
  out += fmt::format("\tmin={}, max={}\n", s.min() / 1000, s.max() / 1000);
  return out;
}

namespace {

std::string residency_block(const Metrics& m) {
  if (m.cpus > 8 || m.tasks.empty()) return "";
  std::string out = fmt::format("\n{:<20}", "cpu residency ms");
  for (int c = 0; c < m.cpus; ++c) out += fmt::format(" {:>10}", fmt::format("cpu{}", c));
  out += "\n";
  for (const TaskMetrics& t : m.tasks) {
    out += fmt::format("{:<20}", t.name);
    for (Time r : t.cpu_residency.dense(m.cpus)) out += fmt::format(" {:>10.3f}", ms(r));
    out += "\n";
  }
  return out;
}

std::string switch_line(const Metrics& m) {
  uint64_t lost = 0;
  bool uncounted = false;
  std::string by_cpu;
  for (const CpuMetrics& c : m.per_cpu) {
    lost += c.lost_events;
    uncounted |= c.lost_uncounted;
    if (c.lost_events || c.lost_uncounted)
      by_cpu += fmt::format(
          "{}cpu{} {}", by_cpu.empty() ? "" : ", ", c.id,
          c.lost_uncounted && !c.lost_events ? std::string("some") : std::to_string(c.lost_events));
  }
  std::string out = fmt::format("\ncontext switches {}", m.context_switches);
  if (m.inferred_switches > 0 || m.policy.rfind("host", 0) == 0)
    out += fmt::format(" ({} recorded, {} inferred)", m.context_switches - m.inferred_switches,
                       m.inferred_switches);
  out += fmt::format("  migrations {}  Jain fairness {:.4f}  events {}\n", m.migrations,
                     m.jain_fairness, m.events);
  if (lost > 0 || uncounted)
    out += fmt::format("lost events {}{}: {}\n", lost, uncounted ? " and more" : "", by_cpu);
  return out;
}

}  // namespace

std::string metrics_table(const Metrics& m, const std::string& policy_note) {
  const bool recorded = m.policy.rfind("host", 0) == 0;
  std::string out =
      fmt::format("policy {}  seed {}  cpus {}  {} {:.3f} s\n\n", m.policy, m.seed, m.cpus,
                  recorded ? "recorded" : "simulated", static_cast<double>(m.duration_ns) / 1e9);
  if (!policy_note.empty()) out.insert(out.size() - 1, "policy: " + policy_note + "\n");
  out += fmt::format("{:<20} {:>5} {:>11} {:>11} {:>11} {:>7} {:>7} {:>6} {:>10} {:>10}\n", "task",
                     "tid", "cpu ms", "wait ms", "sleep ms", "vol", "invol", "migr", "lat p50 us",
                     "lat p99 us");
  for (const TaskMetrics& t : m.tasks)
    out += fmt::format(
        "{:<20} {:>5} {:>11.3f} {:>11.3f} {:>11.3f} {:>7} {:>7} {:>6} {:>10.1f} {:>10.1f}\n",
        t.name, t.tid, ms(t.cpu_time_ns), ms(t.wait_time_ns), ms(t.sleep_time_ns),
        t.switches_voluntary, t.switches_involuntary, t.migrations,
        static_cast<double>(t.wakeup_latency.percentile(0.5)) / 1e3,
        static_cast<double>(t.wakeup_latency.percentile(0.99)) / 1e3);
  out += fmt::format("\n{:<5} {:>11} {:>11} {:>22}\n", "cpu", "busy ms", "idle ms",
                     "idle while runnable ms");
  for (const CpuMetrics& c : m.per_cpu)
    out += fmt::format("{:<5} {:>11.3f} {:>11.3f} {:>22.3f}\n", c.id, ms(c.busy_ns), ms(c.idle_ns),
                       ms(c.idle_while_runnable_ns));
  bool any_dl = false;
  for (const TaskMetrics& t : m.tasks) any_dl |= t.dl_jobs > 0;
  if (any_dl) {
    out += fmt::format("\n{:<20} {:>10} {:>16}\n", "deadline task", "jobs", "deadline misses");
    for (const TaskMetrics& t : m.tasks)
      if (t.dl_jobs > 0)
        out += fmt::format("{:<20} {:>10} {:>16}\n", t.name, t.dl_jobs, t.deadline_misses);
  }
  if (!m.marks.empty()) {
    out += fmt::format("\n{:<20} {:>10} {:>12}\n", "mark", "count", "per second");
    const double seconds = static_cast<double>(m.duration_ns) / 1e9;
    for (const auto& [name, mk] : m.marks)
      out += fmt::format("{:<20} {:>10} {:>12.2f}\n", name, mk.count,
                         seconds > 0 ? static_cast<double>(mk.count) / seconds : 0.0);
  }
  bool any_timer = false;
  for (const TaskMetrics& t : m.tasks) any_timer |= !t.activations.empty();
  if (any_timer) {
    out += fmt::format("\n{:<20} {:>11} {:>14} {:>14}\n", "timer task", "activations",
                       "missed periods", "min slack us");
    for (const TaskMetrics& t : m.tasks) {
      if (t.activations.empty()) continue;
      Time slack = t.activations.front().slack_ns;
      for (const TimerActivation& a : t.activations) slack = std::min(slack, a.slack_ns);
      out += fmt::format("{:<20} {:>11} {:>14} {:>14.1f}\n", t.name, t.activations.size(),
                         t.missed_periods, static_cast<double>(slack) / 1e3);
    }
  }
  out += residency_block(m);
  if (m.wakeup_latency.count() > 0) out += percentile_block("Wakeup latency", m.wakeup_latency);
  for (const auto& [name, mk] : m.marks)
    if (mk.interval.count() > 0) out += percentile_block("Mark " + name + " interval", mk.interval);
  if (const ProgramFigure f = program_figure(m); !f.name.empty())
    out += fmt::format("\n{}: {}\n", f.name, f.line);
  out += switch_line(m);
  return out;
}

}  // namespace schedlab
