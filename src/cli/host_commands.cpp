#include "cli/host_commands.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "analysis/analyzer.h"
#include "experiment/results.h"
#include "host/ftrace_parser.h"
#include "host/host_bench.h"
#include "host/host_machine.h"
#include "host/host_runner.h"
#include "host/tracefs.h"
#include "report/json_report.h"
#include "report/perfetto_trace.h"
#include "report/svg_plot.h"
#include "report/table_report.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {

namespace {

Scenario load(const HostRunArgs& a) {
  ScenarioOverrides o;
  for (const std::string& s : a.sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("", "--set " + s, "expected name=value");
    o.sets.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  if (a.duration_s > 0) o.duration_s = a.duration_s;
  return load_scenario(a.scenario, o);
}

// Runs the scenario on the host while recording, and measures it.
Metrics measure_on_host(const Scenario& scenario, const HostRunArgs& a, std::ostream& err,
                        bool* interrupted) {
  HostRunOptions ho;
  ho.recalibrate = a.recalibrate;
  ho.duration_ns = scenario.duration_ns.value_or(10 * kNsPerSec);
  const std::string trace_path =
      !a.keep_trace.empty()
          ? a.keep_trace
          : (std::filesystem::temp_directory_path() / fmt::format("schedlab-host-{}.txt", getpid()))
                .string();
  HostRunResult result;
  {
    TraceSession session(a.tracefs_dir, a.buffer_kb, trace_path);
    result = run_on_host(scenario, ho);
    session.stop();
    if (session.overruns())
      err << fmt::format("schedlab: note: the trace buffer dropped {} events (raise --buffer-kb)\n",
                         session.overruns());
  }
  err << "schedlab: note: " << result.calibration_note << "\n";
  if (result.interrupted) err << "schedlab: note: interrupted; the metrics cover the run so far\n";

  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  std::unique_ptr<std::ofstream> trace_file;
  std::unique_ptr<PerfettoTraceWriter> perfetto;
  if (!a.trace.empty()) {
    trace_file = std::make_unique<std::ofstream>(a.trace, std::ios::binary);
    if (!*trace_file) throw InputError(a.trace, "", "cannot open for writing");
    perfetto = std::make_unique<PerfettoTraceWriter>(*trace_file);
    sinks.add(perfetto.get());
  }
  FtraceStats stats;
  {
    std::ifstream in(trace_path);
    stats = parse_ftrace(in, trace_path, sinks, result.threads);
  }
  if (a.keep_trace.empty()) std::filesystem::remove(trace_path);

  // The workload's own threads, its marks, and the kernel that ran them.
  Metrics m = analyzer.metrics();
  std::set<std::string> ours;
  for (const auto& [tid, thread] : result.threads) ours.insert(thread.name);
  std::erase_if(m.tasks, [&](const TaskMetrics& t) { return !ours.count(t.name); });
  for (TaskMetrics& t : m.tasks)
    if (const auto it = result.dl_jobs.find(t.name); it != result.dl_jobs.end()) {
      t.dl_jobs = it->second.first;
      t.deadline_misses = it->second.second;
    }
  double sum = 0, sum_sq = 0;
  for (const TaskMetrics& t : m.tasks) {
    const auto x = static_cast<double>(t.cpu_time_ns);
    sum += x;
    sum_sq += x * x;
  }
  m.jain_fairness = sum_sq > 0 ? sum * sum / (static_cast<double>(m.tasks.size()) * sum_sq) : 1.0;
  for (const auto& [name, mk] : result.marks) {
    MarkMetrics& out = m.marks[name];  // the host runner keeps no per-task intervals
    out.count = mk.count;
    out.first_ns = mk.first_ns - stats.first_ns;
    out.last_ns = mk.last_ns - stats.first_ns;
  }
  m.policy = fmt::format("host {}", host_kernel_release());
  *interrupted = result.interrupted;
  return m;
}

std::string ratio(double sim, double real) {
  if (real == 0) return sim == 0 ? "1.00" : "-";
  return fmt::format("{:.2f}", sim / real);
}

}  // namespace

int command_host_run(const HostRunArgs& a, std::ostream& out, std::ostream& err) {
  const Scenario scenario = load(a);
  bool interrupted = false;
  const Metrics m = measure_on_host(scenario, a, err, &interrupted);
  out << (a.json ? metrics_json(m) : metrics_table(m));
  return interrupted ? 130 : 0;
}

int command_compare(const HostRunArgs& a, const std::string& policy, std::ostream& out,
                    std::ostream& err) {
  Scenario scenario = load(a);
  bool interrupted = false;
  const Metrics real = measure_on_host(scenario, a, err, &interrupted);
  if (interrupted) return 130;
  scenario.machine = host_machine();
  scenario.policy = policy.empty() ? model_for_kernel(host_kernel_release()) : policy;
  scenario.params.clear();
  if (!scenario.duration_ns) scenario.duration_ns = real.duration_ns;
  Analyzer analyzer;
  simulate(scenario, analyzer, SimulationOptions{});
  const Metrics& sim = analyzer.metrics();
  out << fmt::format("{} on {} ({} CPUs) against {} simulated on the same topology\n\n", a.scenario,
                     real.policy, real.cpus, scenario.policy);
  out << fmt::format("{:<16} {:<18} {:>12} {:>12} {:>7}\n", "task", "metric", "real", "sim",
                     "sim/real");
  auto row = [&](const std::string& who, const std::string& what, double r, double s) {
    out << fmt::format("{:<16} {:<18} {:>12.3f} {:>12.3f} {:>7}\n", who, what, r, s, ratio(s, r));
  };
  for (const TaskMetrics& rt : real.tasks) {
    const TaskMetrics* st = nullptr;
    for (const TaskMetrics& t : sim.tasks)
      if (t.name == rt.name) st = &t;
    if (!st) continue;
    row(rt.name, "cpu ms", static_cast<double>(rt.cpu_time_ns) / 1e6,
        static_cast<double>(st->cpu_time_ns) / 1e6);
    row(rt.name, "wait ms", static_cast<double>(rt.wait_time_ns) / 1e6,
        static_cast<double>(st->wait_time_ns) / 1e6);
    row(rt.name, "switches", static_cast<double>(rt.switches_voluntary + rt.switches_involuntary),
        static_cast<double>(st->switches_voluntary + st->switches_involuntary));
    row(rt.name, "latency p50 us", static_cast<double>(rt.wakeup_latency.percentile(0.5)) / 1e3,
        static_cast<double>(st->wakeup_latency.percentile(0.5)) / 1e3);
    row(rt.name, "latency p99 us", static_cast<double>(rt.wakeup_latency.percentile(0.99)) / 1e3,
        static_cast<double>(st->wakeup_latency.percentile(0.99)) / 1e3);
  }
  const double real_s = static_cast<double>(real.duration_ns) / 1e9;
  const double sim_s = static_cast<double>(sim.duration_ns) / 1e9;
  for (const auto& [name, mk] : real.marks) {
    const auto it = sim.marks.find(name);
    const double s =
        it == sim.marks.end() || sim_s == 0 ? 0 : static_cast<double>(it->second.count) / sim_s;
    row("mark " + name, "per second", real_s > 0 ? static_cast<double>(mk.count) / real_s : 0, s);
  }
  row("run", "duration s", real_s, sim_s);
  row("run", "migrations", static_cast<double>(real.migrations),
      static_cast<double>(sim.migrations));
  return 0;
}

// "1..8", "1,2,4" or "4".
std::vector<int> parse_counts(const std::string& text) {
  std::vector<int> counts;
  try {
    const auto dots = text.find("..");
    if (dots != std::string::npos) {
      const int lo = std::stoi(text.substr(0, dots)), hi = std::stoi(text.substr(dots + 2));
      for (int i = lo; i <= hi; ++i) counts.push_back(i);
    } else {
      for (size_t start = 0; start < text.size();) {
        const size_t comma = text.find(',', start);
        counts.push_back(std::stoi(text.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  } catch (const std::exception&) {
    counts.clear();
  }
  if (counts.empty() || *std::min_element(counts.begin(), counts.end()) < 1)
    throw InputError("", "--counts " + text, "expected lo..hi or a,b,c of positive integers");
  return counts;
}

int command_host_bench(const HostBenchOptions& options, const HostBenchArgs& a, std::ostream& out,
                       std::ostream& err) {
  HostBenchOptions o = options;
  o.counts = parse_counts(a.counts);
  const std::string axis = o.program == "x264"     ? "threads"
                           : o.program == "tbench" ? "clients"
                                                   : "groups";
  const std::string metric = bench_unit(o.program);
  const std::string label = fmt::format("{} {}{}", host_kernel_release(), o.policy,
                                        o.nice ? fmt::format(" nice {}", o.nice) : "");
  ResultTable table;
  table.columns = {"policy", axis, "repeat", metric};
  const size_t total = o.counts.size() * static_cast<size_t>(o.repeat);
  host_bench(o, [&](const BenchRun& r) {
    table.rows.push_back(
        {label, std::to_string(r.count), std::to_string(r.repeat), fmt::format("{:.6g}", r.value)});
    const bool tty = isatty(STDERR_FILENO);
    err << fmt::format("{}{} {}={} repeat {}: {:.4g} {}  ({}/{})", tty ? "\r" : "", o.program, axis,
                       r.count, r.repeat + 1, r.value, metric, table.rows.size(), total)
        << (!tty || table.rows.size() == total ? "\n" : "") << std::flush;
  });
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    if (!f) throw InputError(a.out, "", "cannot open for writing");
    f << results_csv(table);
  }
  const Aggregate agg = aggregate_results(table, {axis}, metric);
  out << fmt::format("{} on this machine, {} (median [min-max] of {})\n", o.program, metric,
                     o.repeat)
      << format_aggregate_table(agg);
  if (!a.plot.empty()) {
    std::ofstream f(a.plot);
    if (!f) throw InputError(a.plot, "", "cannot open for writing");
    PlotOptions po;
    po.title = fmt::format("{} on {}", o.program, host_kernel_release());
    f << svg_plot(agg, po);
  }
  return 0;
}

}  // namespace schedlab
