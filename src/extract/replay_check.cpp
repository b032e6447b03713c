// replay-check (replay_check.h).
#include "extract/replay_check.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "host/ftrace_parser.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {

namespace {

ReplaySide side_of(const TaskMetrics& t) {
  ReplaySide s;
  s.cpu_ns = t.cpu_time_ns;
  s.voluntary = t.switches_voluntary;
  s.involuntary = t.switches_involuntary;
  s.wake_p50_ns = t.wakeup_latency.count() ? t.wakeup_latency.percentile(0.5) : 0;
  s.wake_p99_ns = t.wakeup_latency.count() ? t.wakeup_latency.percentile(0.99) : 0;
  return s;
}

double ms(Time ns) {
  return static_cast<double>(ns) / 1e6;
}
double us(Time ns) {
  return static_cast<double>(ns) / 1e3;
}

std::string ratio(double real, double sim) {
  return real > 0 ? fmt::format("{:.3f}", sim / real) : "-";
}

}  // namespace

std::string replayed_name(const XTask& t) {
  return t.forked ? t.name + "-0" : t.name;
}

std::vector<ReplaySide> replay_figures(const ExtractedWorkload& w, const Metrics& sim) {
  std::map<std::string, const TaskMetrics*> by_name;
  for (const TaskMetrics& t : sim.tasks) by_name[t.name] = &t;
  std::vector<ReplaySide> out;
  for (const XTask& t : w.tasks) {
    const auto it = by_name.find(replayed_name(t));
    out.push_back(it == by_name.end() ? ReplaySide{} : side_of(*it->second));
  }
  return out;
}

ReplayCheck replay_check(const std::string& trace, const ExtractOptions& options,
                         const std::string& policy, const std::optional<Machine>& machine,
                         const std::string& machine_file) {
  ReplayCheck c;
  WorkloadExtractor extractor(options);
  Analyzer real;
  SinkList both;
  both.add(&extractor);
  both.add(&real);
  FtraceOptions read;
  read.wakers = true;
  read.softirq_wakers = options.softirq_wakers;
  parse_trace_file(trace, both, {}, read);
  c.workload = extractor.result(trace);
  c.scenario =
      scenario_json(c.workload, trace,
                    machine_file.empty() ? "" : std::filesystem::absolute(machine_file).string());
  Scenario s = scenario_from_text(c.scenario, trace + " (extracted)");
  if (machine) s.machine = *machine;
  s.policy = policy;
  c.policy = policy;
  c.cpus = s.machine.cpus;
  Analyzer sim;
  in_scenario(s.file, [&] { return simulate(s, sim, SimulationOptions{}); });
  const Metrics& rm = real.metrics();
  std::map<std::string, const TaskMetrics*> real_by_name;
  for (const TaskMetrics& t : rm.tasks) real_by_name[t.name] = &t;
  const std::vector<ReplaySide> sims = replay_figures(c.workload, sim.metrics());
  for (size_t i = 0; i < c.workload.tasks.size(); ++i) {
    const XTask& t = c.workload.tasks[i];
    ReplayRow row;
    row.name = t.name;
    if (const auto it = real_by_name.find(t.name); it != real_by_name.end())
      row.real = side_of(*it->second);
    row.real.cpu_ns = t.cpu_ns;  // within the window, as extracted
    row.sim = sims[i];
    c.rows.push_back(row);
  }
  c.real_duration_ns = c.workload.span_ns;
  c.sim_duration_ns = sim.metrics().duration_ns;
  return c;
}

void print_replay_check(const ReplayCheck& c, std::ostream& out) {
  out << fmt::format("replayed under {} on {} CPUs: {} tasks, {} wake-up edges\n\n", c.policy,
                     c.cpus, c.rows.size(), c.workload.edges.size());
  out << fmt::format(
      "{:<24} {:>10} {:>10} {:>6}  {:>7} {:>7}  {:>7} {:>7}  {:>8} {:>8}  {:>8} {:>8}\n", "task",
      "cpu ms", "sim", "ratio", "vol sw", "sim", "invol", "sim", "wake p50", "sim", "p99 us",
      "sim");
  Time real_total = 0, sim_total = 0;
  for (const ReplayRow& r : c.rows) {
    real_total += r.real.cpu_ns;
    sim_total += r.sim.cpu_ns;
    out << fmt::format(
        "{:<24} {:>10.3f} {:>10.3f} {:>6}  {:>7} {:>7}  {:>7} {:>7}  {:>8.1f} {:>8.1f}  {:>8.1f} "
        "{:>8.1f}\n",
        r.name.size() > 24 ? r.name.substr(0, 24) : r.name, ms(r.real.cpu_ns), ms(r.sim.cpu_ns),
        ratio(static_cast<double>(r.real.cpu_ns), static_cast<double>(r.sim.cpu_ns)),
        r.real.voluntary, r.sim.voluntary, r.real.involuntary, r.sim.involuntary,
        us(r.real.wake_p50_ns), us(r.sim.wake_p50_ns), us(r.real.wake_p99_ns),
        us(r.sim.wake_p99_ns));
  }
  out << fmt::format("{:<24} {:>10.3f} {:>10.3f} {:>6}\n", "total", ms(real_total), ms(sim_total),
                     ratio(static_cast<double>(real_total), static_cast<double>(sim_total)));
  out << fmt::format(
      "{:<24} {:>10.3f} {:>10.3f} {:>6}   (duration, ms)\n", "run", ms(c.real_duration_ns),
      ms(c.sim_duration_ns),
      ratio(static_cast<double>(c.real_duration_ns), static_cast<double>(c.sim_duration_ns)));
}

}  // namespace schedlab
