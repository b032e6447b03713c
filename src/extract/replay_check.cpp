// replay-check (replay_check.h).
#include "extract/replay_check.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <regex>

#include "host/ftrace_parser.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "util/error.h"
#include "util/input_file.h"

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

// The program's own figures beside the replay's, over the program's span (its first
// thread's fork to its last exit; the whole run in a recording also holds the recorder):
// hackbench's Time against the replayed span; x264's fps against its frame count over the
// replayed span. The spans' own ratio comes first: the figures' ratios also hold what the
// program's clock leaves out of its span (x264 times its encoding only).
void print_program_figures(const ReplayCheck& c, std::ostream& out) {
  if (!c.program.any()) return;
  const double real_s = static_cast<double>(c.real_span.length()) / 1e9;
  const double sim_s = static_cast<double>(c.sim_span.length()) / 1e9;
  const std::string program = c.program.program();
  out << fmt::format("\n{}'s figures ({}):\n", program, c.program_output);
  out << fmt::format("{:<24} {:>10.3f} {:>10.3f} {:>6}   (first fork to last exit)\n",
                     program + "'s span ms", real_s * 1e3, sim_s * 1e3, ratio(real_s, sim_s));
  if (c.program.hackbench_time_s > 0)
    out << fmt::format("{:<24} {:>10.3f} {:>10.3f} {:>6}   (sim: the replayed span)\n",
                       "hackbench Time s", c.program.hackbench_time_s, sim_s,
                       ratio(c.program.hackbench_time_s, sim_s));
  if (c.program.x264_frames > 0) {
    const double frames = static_cast<double>(c.program.x264_frames);
    const double real_fps = real_s > 0 ? frames / real_s : 0;
    const double sim_fps = sim_s > 0 ? frames / sim_s : 0;
    out << fmt::format("{:<24} {:>10.2f} {:>10.2f} {:>6}   (sim: {} frames / the replayed span)\n",
                       "x264 fps", c.program.x264_fps, sim_fps, ratio(c.program.x264_fps, sim_fps),
                       c.program.x264_frames);
    out << fmt::format(
        "{:<24} {:>10.2f} {:>10.2f} {:>6}   (x264's clock times its encoding only)\n",
        "x264 fps over the span", real_fps, sim_fps, ratio(real_fps, sim_fps));
  }
  // tbench moves the same bytes in the replay: its throughput scales by the spans' ratio
  if (c.program.tbench_mb_per_s > 0) {
    const double real_mb = c.program.tbench_mb_per_s;
    const double sim_mb = sim_s > 0 ? real_mb * real_s / sim_s : 0;
    out << fmt::format(
        "{:<24} {:>10.2f} {:>10.2f} {:>6}   (sim: the same bytes over the replayed span)\n",
        "tbench MB/sec", real_mb, sim_mb, ratio(real_mb, sim_mb));
  }
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

Machine replay_machine_of_this_host(Machine m, bool everything_selected) {
  m.context_switch_ns = 0;  // in the bursts: the trace's switch-out is the next one's switch-in
  m.migration_cost_ns = 0;  // refills, the send and co-run slowdown: in the CPU time
  m.shared_cache_migration_cost_ns = 0;
  m.costs.wakeup_send_ns = 0;
  m.costs.wakeup_return_ns = 0;
  m.costs.wakeup_refill_ns = 0;
  m.costs.shared_cache_slowdown = 0;
  m.costs.smt_slowdown = 0;
  m.costs.timer_overshoot_ns = 0;                 // in a sleep's observed length
  if (everything_selected) m.background.clear();  // the trace's other tasks are in the workload
  // A burst's ns are work units at capacity 1024, and this host is the reference: its
  // CPUs run the recorded bursts in the time they took.
  m.capacity.assign(static_cast<size_t>(m.cpus), 1024);
  return m;
}

Recording read_recording(const std::string& trace, const ExtractOptions& options) {
  WorkloadExtractor extractor(options);
  Analyzer real;
  ProgramSpans spans(measured_programs());
  SinkList all;
  all.add(&extractor);
  all.add(&real);
  all.add(&spans);
  FtraceOptions read;
  read.wakers = true;
  read.softirq_wakers = options.softirq_wakers;
  parse_trace_file(trace, all, {}, read);
  return {extractor.result(trace), real.metrics(), spans.spans()};
}

std::string ProgramFigures::program() const {
  return x264_frames > 0 ? "x264" : tbench_mb_per_s > 0 ? "tbench" : "hackbench";
}

ProgramFigures program_figures(const std::string& output) {
  ProgramFigures f;
  std::smatch m;
  // hackbench (rt-tests): "Time: 0.146"
  static const std::regex time(R"((^|\n)Time: ([0-9]+(\.[0-9]+)?))");
  if (std::regex_search(output, m, time)) f.hackbench_time_s = std::stod(m[2]);
  // x264's summary: "encoded 40 frames, 98.77 fps, 13456.12 kb/s"
  static const std::regex frames(R"(encoded ([0-9]+) frames, ([0-9]+(\.[0-9]+)?) fps)");
  if (std::regex_search(output, m, frames)) {
    f.x264_frames = std::stoll(m[1]);
    f.x264_fps = std::stod(m[2]);
  }
  // dbench 4's tbench: "Throughput 231.018 MB/sec  1 clients  1 procs  max_latency=..."
  static const std::regex throughput(R"((^|\n)Throughput ([0-9]+(\.[0-9]+)?) MB/sec)");
  if (std::regex_search(output, m, throughput)) f.tbench_mb_per_s = std::stod(m[2]);
  return f;
}

void read_program_output(const std::string& trace, ReplayCheck& c) {
  const std::string path = trace + ".out";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  c.program = program_figures(read_input_file(path));  // a regular file, size-checked
  if (!c.program.any()) return;
  c.program_output = path;
  const std::string program = c.program.program();
  if (const auto it = c.real_spans.find(program); it != c.real_spans.end())
    c.real_span = it->second;
  if (const auto it = c.sim_spans.find(program); it != c.sim_spans.end()) c.sim_span = it->second;
}

ReplayCheck replay_check(const std::string& trace, const ExtractOptions& options,
                         const std::string& policy, const std::optional<Machine>& machine,
                         const std::string& machine_file) {
  ReplayMachine m;
  m.machine = machine;
  m.file = machine_file;
  return replay_check(read_recording(trace, options), trace, policy, m);
}

ReplayCheck replay_check(const Recording& r, const std::string& trace, const std::string& policy,
                         const ReplayMachine& machine) {
  ReplayCheck c;
  c.workload = r.workload;
  c.scenario =
      scenario_json(c.workload, trace,
                    machine.file.empty() ? "" : std::filesystem::absolute(machine.file).string());
  Scenario s = scenario_from_text(c.scenario, trace + " (extracted)");
  if (machine.machine) s.machine = *machine.machine;
  s.policy = policy;
  c.policy = policy;
  c.cpus = s.machine.cpus;
  c.machine = !machine.which.empty() ? machine.which
              : machine.machine      ? machine.machine->name
              : !machine.file.empty()
                  ? machine.file
                  : fmt::format("a flat machine of the trace's {} CPUs, no costs", c.cpus);
  Analyzer sim;
  ProgramSpans sim_spans(measured_programs());
  SinkList both;
  both.add(&sim);
  both.add(&sim_spans);
  in_scenario(s.file, [&] { return simulate(s, both, SimulationOptions{}); });
  c.real_spans = r.spans;
  c.sim_spans = sim_spans.spans();
  const Metrics& rm = r.real;
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
  out << fmt::format("replayed under {} on {} CPUs: {} tasks, {} wake-up edges\n", c.policy, c.cpus,
                     c.rows.size(), c.workload.edges.size());
  out << "machine: " << c.machine << "\n\n";
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
  print_program_figures(c, out);
}

}  // namespace schedlab
