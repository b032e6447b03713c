#include "report/table_report.h"

#include <fmt/format.h>

namespace schedlab {

static double ms(Time ns) {
  return static_cast<double>(ns) / 1e6;
}

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
  out += fmt::format("\ncontext switches {}  migrations {}  Jain fairness {:.4f}  events {}\n",
                     m.context_switches, m.migrations, m.jain_fairness, m.events);
  return out;
}

}  // namespace schedlab
