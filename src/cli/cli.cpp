#include "cli/cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <memory>

#include "analysis/analyzer.h"
#include "cli/host_commands.h"
#include "experiment/reproduce.h"
#include "experiment/results.h"
#include "experiment/sweep.h"
#include "host/ftrace_parser.h"
#include "host/host_bench.h"
#include "host/tracefs.h"
#include "policy/registry.h"
#include "report/events_csv.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/perfetto_trace.h"
#include "report/svg_plot.h"
#include "report/table_report.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {
namespace {

struct RunArgs {
  std::string scenario;
  std::string policy;
  std::vector<std::string> params, sets;
  uint64_t seed = 0;
  int cpus = 0;
  double duration_s = 0;
  bool json = false, check_invariants = false;
  std::string trace, events;
};

std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("", option + " " + text, "expected name=value");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void add_scenario_options(CLI::App& cmd, RunArgs& a) {
  cmd.add_option("scenario", a.scenario, "scenario file (rt-app JSON with optional sections)")
      ->required();
  cmd.add_option("--policy", a.policy, "normal-class scheduler (see `schedlab policies`)");
  cmd.add_option("--param", a.params, "scheduler parameter name=value (repeatable)");
  cmd.add_option("--set", a.sets, "override a scenario value: /json/pointer=value (repeatable)");
  cmd.add_option("--seed", a.seed, "random seed (default: the scenario's, else 1)");
  cmd.add_option("--cpus", a.cpus, "CPU count (a flat machine of that size)")
      ->check(CLI::Range(1, kMaxCpus));
  cmd.add_option("--duration", a.duration_s, "simulated seconds (overrides global.duration)");
}

ScenarioOverrides overrides_of(const RunArgs& a, const CLI::App& cmd) {
  ScenarioOverrides o;
  for (const std::string& s : a.sets) o.sets.push_back(split_assignment(s, "--set"));
  for (const std::string& p : a.params) o.params.push_back(split_assignment(p, "--param"));
  if (cmd.count("--policy")) o.policy = a.policy;
  if (cmd.count("--seed")) o.seed = a.seed;
  if (cmd.count("--cpus")) o.cpus = a.cpus;
  if (cmd.count("--duration")) o.duration_s = a.duration_s;
  return o;
}

std::unique_ptr<std::ofstream> open_output(const std::string& path) {
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary);
  if (!*out) throw InputError(path, "", "cannot open for writing");
  return out;
}

// The --trace and --events writers a command was asked for, added to `sinks`.
struct OptionalWriters {
  OptionalWriters(const RunArgs& a, SinkList& sinks) {
    if (!a.trace.empty()) {
      trace_file = open_output(a.trace);
      trace = std::make_unique<PerfettoTraceWriter>(*trace_file);
      sinks.add(trace.get());
    }
    if (!a.events.empty()) {
      events_file = open_output(a.events);
      events = std::make_unique<EventsCsvWriter>(*events_file);
      sinks.add(events.get());
    }
  }
  std::unique_ptr<std::ofstream> trace_file, events_file;
  std::unique_ptr<PerfettoTraceWriter> trace;
  std::unique_ptr<EventsCsvWriter> events;
};

int command_run(const RunArgs& a, const CLI::App& cmd, std::ostream& out, std::ostream& err) {
  const Scenario scenario = load_scenario(a.scenario, overrides_of(a, cmd));
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  const OptionalWriters writers(a, sinks);
  std::vector<std::string> notes;
  SimulationOptions options;
  options.check_invariants = a.check_invariants;
  simulate(scenario, sinks, options, &notes);
  for (const std::string& n : notes) err << "schedlab: note: " << n << "\n";
  out << (a.json ? metrics_json(analyzer.metrics()) : metrics_table(analyzer.metrics()));
  return 0;
}

// The metrics of a recorded ftrace text trace, by the same analyzer and writers.
int command_analyze(const RunArgs& a, std::ostream& out, std::ostream& err) {
  std::ifstream in(a.scenario);
  if (!in) throw InputError(a.scenario, "", "cannot open for reading");
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  const OptionalWriters writers(a, sinks);
  const FtraceStats stats = parse_ftrace(in, a.scenario, sinks);
  if (stats.lost_events)
    err << fmt::format(
        "schedlab: note: {} events were lost when recording (buffer overrun); "
        "the metrics miss them\n",
        stats.lost_events);
  out << (a.json ? metrics_json(analyzer.metrics()) : metrics_table(analyzer.metrics()));
  return 0;
}

int command_check(const RunArgs& a, const CLI::App& cmd, std::ostream& out) {
  const Scenario s = load_scenario(a.scenario, overrides_of(a, cmd));
  make_policy(s.policy, s.params, s.file);  // unknown policy or parameter is an error too
  size_t threads = 0;
  for (const TaskSpec& t : s.workload.tasks) threads += static_cast<size_t>(t.instances);
  out << fmt::format("{}: ok: {} task specs ({} threads at start), {} CPUs, HZ {}, policy {}",
                     s.file, s.workload.tasks.size(), threads, s.machine.cpus, s.machine.hz,
                     s.policy);
  if (s.leniency.comments || s.leniency.trailing_commas)
    out << fmt::format("; tolerated {} comments and {} trailing commas", s.leniency.comments,
                       s.leniency.trailing_commas);
  out << "\n";
  return 0;
}

int command_policies(std::ostream& out) {
  for (const PolicyInfo& p : policy_registry()) {
    out << fmt::format("{:<14} {}\n", p.name, p.description);
    for (const ParamSpec& s : p.params)
      out << fmt::format("    {:<34} {:>12}  {}{}\n", s.name, s.default_value,
                         s.is_bool ? "(0/1) " : "", s.description);
  }
  return 0;
}

struct SweepArgs {
  std::string scenario, out, plot, report, metric, published, shard, zoom;
  std::vector<std::string> policies, vary, params, sets;
  int repeat = 1, jobs = 0;
};

// A progress bar with an ETA on a terminal; nothing otherwise.
std::function<void(std::size_t, std::size_t)> progress_bar(std::ostream& err) {
  if (!isatty(STDERR_FILENO)) return {};
  const auto start = std::chrono::steady_clock::now();
  return [&err, start](std::size_t done, std::size_t total) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta =
        done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
    const int width = 30;
    const auto filled = static_cast<int>(static_cast<double>(width) * static_cast<double>(done) /
                                         static_cast<double>(std::max<std::size_t>(1, total)));
    err << fmt::format("\r[{}{}] {}/{}  ETA {:.0f} s ", std::string(filled, '='),
                       std::string(width - filled, ' '), done, total, eta)
        << (done == total ? "\n" : "") << std::flush;
  };
}

std::pair<double, double> parse_range(const std::string& text, const std::string& key) {
  const auto dots = text.find("..");
  try {
    if (dots != std::string::npos)
      return {std::stod(text.substr(0, dots)), std::stod(text.substr(dots + 2))};
  } catch (const std::exception&) {
  }
  throw InputError("", key + " " + text, "expected lo..hi");
}

int command_sweep(const SweepArgs& a, std::ostream& out, std::ostream& err) {
  SweepSpec spec;
  spec.scenario = a.scenario;
  for (const std::string& p : a.policies) spec.policies.push_back(parse_policy_spec(p));
  if (spec.policies.empty())
    spec.policies.push_back(parse_policy_spec(load_scenario(a.scenario).policy));
  for (const std::string& v : a.vary) spec.axes.push_back(parse_axis(v));
  for (const std::string& p : a.params) spec.params.push_back(split_assignment(p, "--param"));
  for (const std::string& s : a.sets) spec.sets.push_back(split_assignment(s, "--set"));
  spec.repeat = a.repeat;
  spec.jobs = a.jobs;
  if (!a.shard.empty()) {
    const auto slash = a.shard.find('/');
    int k = 0, n = 0;
    try {
      k = std::stoi(a.shard.substr(0, slash));
      n = std::stoi(a.shard.substr(slash + 1));
    } catch (const std::exception&) {
    }
    if (slash == std::string::npos || n < 1 || k < 1 || k > n)
      throw InputError("", "--shard " + a.shard, "expected K/N with 1 <= K <= N");
    spec.shard = std::make_pair(k, n);
  }
  const std::vector<std::string> metrics = metric_columns(spec);
  std::string metric = a.metric;
  if (metric.empty()) {
    metric = "duration_s";
    for (const std::string& m : metrics)
      if (m.rfind("marks.", 0) == 0 && m.size() > 11 && m.substr(m.size() - 11) == ".per_second") {
        metric = m;
        break;
      }
  }
  if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) {
    std::string known;
    for (const std::string& m : metrics) known += (known.empty() ? "" : ", ") + m;
    throw InputError(a.scenario, "--metric " + metric, "unknown metric (known: " + known + ")");
  }
  const bool json_out = a.out.size() > 5 && a.out.substr(a.out.size() - 5) == ".json";
  std::unique_ptr<std::ofstream> file;
  if (!a.out.empty()) file = open_output(a.out);
  const std::string header = csv_header(spec, metrics);
  // Runs finish in any order; the table and the JSON list them in sweep order.
  std::vector<std::pair<std::size_t, std::string>> lines, json_rows;
  if (file && !json_out) *file << header << std::flush;
  run_sweep(
      spec,
      [&](const RunRow& row) {
        const std::string line = csv_row(spec, metrics, row);
        lines.emplace_back(row.index, line);
        if (file && !json_out) *file << line << std::flush;  // streamed as runs finish
        if (json_out) {
          std::string j = fmt::format(R"({{"policy": "{}", "repeat": {}, "seed": {})",
                                      row.key.policy, row.key.repeat, row.key.seed);
          for (std::size_t i = 0; i < spec.axes.size(); ++i)
            j += fmt::format(R"(, "{}": "{}")", spec.axes[i].name(), row.key.point[i]);
          for (const auto& [k, v] : row.values) j += fmt::format(R"(, "{}": {:.10g})", k, v);
          json_rows.emplace_back(row.index, j + "}");
        }
      },
      progress_bar(err));
  std::sort(lines.begin(), lines.end());
  std::sort(json_rows.begin(), json_rows.end());
  if (json_out) {
    *file << "[\n";
    for (std::size_t i = 0; i < json_rows.size(); ++i)
      *file << "  " << json_rows[i].second << (i + 1 < json_rows.size() ? ",\n" : "\n");
    *file << "]\n";
  }
  std::string body = header;
  for (const auto& [index, line] : lines) body += line;
  const ResultTable table = parse_results_csv(body, a.out.empty() ? a.scenario : a.out);
  std::vector<std::string> axis_columns;
  for (const Axis& ax : spec.axes) axis_columns.push_back(ax.name());
  const Aggregate agg = aggregate_results(table, axis_columns, metric);
  Published published;
  if (!a.published.empty()) published = read_published(a.published);
  out << format_aggregate_table(agg, a.published.empty() ? nullptr : &published);
  PlotOptions po;
  po.title = std::filesystem::path(a.scenario).stem().string();
  if (!a.zoom.empty()) po.x_range = parse_range(a.zoom, "--zoom");
  std::string svg;
  if (!a.plot.empty() || !a.report.empty()) svg = svg_plot(agg, po);
  if (!a.plot.empty()) *open_output(a.plot) << svg;
  if (!a.report.empty()) {
    ReportSection s;
    s.title = po.title;
    s.description = "schedlab sweep of " + a.scenario;
    s.tables.emplace_back(metric,
                          aggregate_table_html(agg, a.published.empty() ? nullptr : &published));
    s.plots.emplace_back(a.plot.empty() ? "plot.svg" : a.plot, svg);
    std::ifstream scen(a.scenario);
    std::ostringstream text;
    text << scen.rdbuf();
    s.scenario_text = text.str();
    s.seeds = "hash(scenario, point, repeat)";
    for (const PolicySpec& p : spec.policies)
      s.parameters += describe_parameters(p, spec.params) + "\n";
    *open_output(a.report) << html_report("schedlab sweep " + po.title, SCHEDLAB_VERSION_STRING,
                                          {s});
  }
  return 0;
}

}  // namespace

int cli_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"schedlab: a laboratory for CPU schedulers"};
  app.require_subcommand(1);
  RunArgs run_args, check_args;
  CLI::App* run = app.add_subcommand("run", "simulate a scenario and report its metrics");
  add_scenario_options(*run, run_args);
  run->add_flag("--json", run_args.json, "print metrics as JSON");
  run->add_option("--trace", run_args.trace, "write a Chrome/Perfetto trace JSON file");
  run->add_option("--events", run_args.events, "write the raw event stream as CSV");
  run->add_flag("--check-invariants", run_args.check_invariants,
                "check the engine's invariants while running (slower)");
  CLI::App* check = app.add_subcommand("check", "validate a scenario without running it");
  add_scenario_options(*check, check_args);
  CLI::App* policies = app.add_subcommand("policies", "list schedulers and their parameters");
  RecordOptions record_opts;
  CLI::App* record_cmd = app.add_subcommand(
      "record", "run a command while recording the kernel's scheduler events (root)");
  record_cmd->add_option("--out", record_opts.out,
                         "ftrace text output (default schedlab-trace.txt)");
  record_cmd
      ->add_option("--timeout", record_opts.timeout_s,
                   "stop the command after this many seconds (default 600)")
      ->check(CLI::PositiveNumber);
  record_cmd
      ->add_option("--buffer-kb", record_opts.buffer_kb, "per-CPU trace buffer (default 8192)")
      ->check(CLI::Range(64, 1 << 22));
  record_cmd->add_option("--tracefs", record_opts.tracefs_dir,
                         "tracefs directory (default /sys/kernel/tracing)");
  record_cmd->add_option("command", record_opts.command, "the command, after --")->required();
  CLI::App* host = app.add_subcommand("host", "run on this machine's kernel (root)");
  HostRunArgs host_args;
  CLI::App* host_run = host->add_subcommand(
      "run", "run a scenario's programs for real while recording the kernel; report as `run`");
  host->require_subcommand(1);
  host_run->add_option("scenario", host_args.scenario, "scenario file")->required();
  host_run->add_option("--set", host_args.sets, "override a scenario value: /json/pointer=value");
  host_run
      ->add_option("--duration", host_args.duration_s,
                   "seconds before the run is stopped (default global.duration, else 10)")
      ->check(CLI::PositiveNumber);
  host_run->add_flag("--json", host_args.json, "print metrics as JSON");
  host_run->add_option("--trace", host_args.trace, "write a Chrome/Perfetto trace JSON file");
  host_run->add_option("--keep-trace", host_args.keep_trace, "keep the ftrace text in this file");
  host_run->add_flag("--recalibrate", host_args.recalibrate, "measure the busy loop again");
  host_run->add_option("--buffer-kb", host_args.buffer_kb, "per-CPU trace buffer (default 8192)")
      ->check(CLI::Range(64, 1 << 22));
  host_run->add_option("--tracefs", host_args.tracefs_dir, "tracefs directory");
  HostRunArgs compare_args;
  std::string compare_policy;
  CLI::App* compare = app.add_subcommand(
      "compare", "run a scenario on the host (recorded) and in the simulator, side by side (root)");
  compare->add_option("scenario", compare_args.scenario, "scenario file")->required();
  compare->add_option("--set", compare_args.sets, "override a scenario value: /json/pointer=value");
  compare
      ->add_option("--duration", compare_args.duration_s,
                   "seconds (default global.duration, else 10)")
      ->check(CLI::PositiveNumber);
  compare->add_option("--policy", compare_policy,
                      "simulated scheduler (default: the model of the running kernel)");
  compare->add_flag("--recalibrate", compare_args.recalibrate, "measure the busy loop again");
  HostBenchOptions bench_opts;
  HostBenchArgs bench_args;
  CLI::App* host_bench_cmd = host->add_subcommand(
      "bench", "run x264, tbench, hackbench or rt-app for real over counts and repeats");
  host_bench_cmd->add_option("program", bench_opts.program, "x264, tbench, hackbench or rtapp")
      ->required();
  host_bench_cmd->add_option(
      "--counts", bench_args.counts,
      "threads (x264), clients (tbench) or groups (hackbench): lo..hi or a,b,c");
  host_bench_cmd->add_option("--repeat", bench_opts.repeat, "runs per count (default 3)")
      ->check(CLI::Range(1, 100));
  host_bench_cmd->add_option(
      "--policy", bench_opts.policy,
      "SCHED_OTHER (default), SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR");
  host_bench_cmd->add_option("--priority", bench_opts.rt_priority,
                             "for SCHED_FIFO/RR (default 10)");
  host_bench_cmd->add_option("--nice", bench_opts.nice, "nice value")->check(CLI::Range(-20, 19));
  host_bench_cmd->add_option("--cpus", bench_opts.cpus, "taskset CPU list");
  host_bench_cmd->add_option("--preset", bench_opts.preset, "x264 preset (default ultrafast)");
  host_bench_cmd->add_option("--frames", bench_opts.frames, "x264 frames (default 100)")
      ->check(CLI::Range(1, 100000));
  host_bench_cmd->add_option("--width", bench_opts.width, "x264 clip width (default 704)")
      ->check(CLI::Range(16, 8192));
  host_bench_cmd->add_option("--height", bench_opts.height, "x264 clip height (default 576)")
      ->check(CLI::Range(16, 8192));
  host_bench_cmd->add_option("--seconds", bench_opts.seconds, "tbench run time (default 10)")
      ->check(CLI::PositiveNumber);
  host_bench_cmd->add_option("--loops", bench_opts.loops, "hackbench loops (default 100)")
      ->check(CLI::Range(1, 1000000));
  host_bench_cmd->add_flag("--processes", bench_opts.processes, "hackbench with processes");
  host_bench_cmd->add_option("--file", bench_opts.file, "rt-app JSON file (rtapp)");
  host_bench_cmd->add_option("--timeout", bench_opts.timeout_s, "seconds per run (default 600)")
      ->check(CLI::PositiveNumber);
  host_bench_cmd->add_option("--out", bench_args.out, "results CSV");
  host_bench_cmd->add_option("--plot", bench_args.plot, "SVG plot");
  RunArgs analyze_args;
  CLI::App* analyze =
      app.add_subcommand("analyze", "metrics of a recorded ftrace text trace (as `run` prints)");
  analyze->add_option("trace_file", analyze_args.scenario, "ftrace text (tracefs trace file)")
      ->required();
  analyze->add_flag("--json", analyze_args.json, "print metrics as JSON");
  analyze->add_option("--trace", analyze_args.trace, "write a Chrome/Perfetto trace JSON file");
  analyze->add_option("--events", analyze_args.events, "write the event stream as CSV");
  SweepArgs sweep_args;
  CLI::App* sweep =
      app.add_subcommand("sweep", "run a scenario over varied values, schedulers and repeats");
  sweep->add_option("scenario", sweep_args.scenario, "scenario file")->required();
  sweep
      ->add_option("--policy", sweep_args.policies,
                   "schedulers to compare, comma-separated; name:param=value adds parameters")
      ->delimiter(',');
  sweep->add_option("--vary", sweep_args.vary,
                    "/pointer=lo..hi[:step] or /pointer=a,b,c (repeatable)");
  sweep->add_option("--param", sweep_args.params,
                    "parameter for every scheduler name=value (repeatable)");
  sweep->add_option("--set", sweep_args.sets, "fixed scenario edit /pointer=value (repeatable)");
  sweep->add_option("--repeat", sweep_args.repeat, "runs per point and scheduler (default 1)")
      ->check(CLI::Range(1, 1000));
  sweep->add_option("--jobs", sweep_args.jobs, "parallel runs (default: every core)")
      ->check(CLI::Range(1, 1024));
  sweep->add_option("--out", sweep_args.out, "results file: .csv (streamed) or .json");
  sweep->add_option("--plot", sweep_args.plot, "write an SVG plot");
  sweep->add_option("--report", sweep_args.report, "write a self-contained HTML report");
  sweep->add_option("--metric", sweep_args.metric,
                    "metric to tabulate and plot (default: the first mark's per_second)");
  sweep->add_option("--published", sweep_args.published, "CSV of published figures to show beside");
  sweep->add_option("--shard", sweep_args.shard, "run only share K of N (K/N, stable)");
  sweep->add_option("--zoom", sweep_args.zoom, "plot only lo..hi of the axis");
  ReproduceOptions repro;
  CLI::App* reproduce_cmd =
      app.add_subcommand("reproduce", "run the experiments of EXPERIMENTS.md");
  reproduce_cmd->add_option("experiment", repro.which, "E1, E2, E3, E4, E5 or all")->required();
  reproduce_cmd->add_flag("--quick", repro.quick, "one run per point, shorter runs (all: seconds)");
  reproduce_cmd->add_option("--out", repro.out_dir, "output folder (default schedlab-results)");
  reproduce_cmd->add_option("--jobs", repro.jobs, "parallel runs (default: every core)")
      ->check(CLI::Range(1, 1024));
  reproduce_cmd->add_option("--scenarios", repro.scenarios_dir, "folder of the shipped scenarios");
  std::vector<std::string> merge_inputs;
  std::string merge_out;
  CLI::App* merge = app.add_subcommand("merge", "join sweep CSV files (shards) into one");
  merge->add_option("inputs", merge_inputs, "CSV files")->required();
  merge->add_option("--out", merge_out, "output CSV")->required();

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "schedlab: " << e.what() << "\n";
    return 2;
  }
  try {
    if (run->parsed()) return command_run(run_args, *run, out, err);
    if (check->parsed()) return command_check(check_args, *check, out);
    if (policies->parsed()) return command_policies(out);
    if (analyze->parsed()) return command_analyze(analyze_args, out, err);
    if (host_run->parsed()) return command_host_run(host_args, out, err);
    if (host_bench_cmd->parsed()) return command_host_bench(bench_opts, bench_args, out, err);
    if (compare->parsed()) return command_compare(compare_args, compare_policy, out, err);
    if (record_cmd->parsed()) {
      const RecordResult r = record_command(record_opts);
      out << fmt::format("recorded {} trace lines to {}; the command {} (status {})\n", r.lines,
                         record_opts.out,
                         r.interrupted ? "was interrupted"
                         : r.timed_out ? "timed out"
                                       : "exited",
                         r.exit_status);
      if (r.overruns)
        err << fmt::format(
            "schedlab: note: the trace buffer dropped {} events (raise --buffer-kb)\n", r.overruns);
      return r.interrupted ? 130 : r.timed_out ? 124 : 0;
    }
    if (sweep->parsed()) return command_sweep(sweep_args, out, err);
    if (reproduce_cmd->parsed()) {
      if (repro.scenarios_dir.empty()) repro.scenarios_dir = default_scenarios_dir();
      const std::string report = reproduce(repro, out, progress_bar(err));
      out << "report: " << report << "\n";
      return 0;
    }
    if (merge->parsed()) {
      std::vector<std::pair<std::string, ResultTable>> parts;
      for (const std::string& f : merge_inputs) parts.emplace_back(f, read_results_csv(f));
      *open_output(merge_out) << results_csv(merge_results(parts));
      return 0;
    }
  } catch (const InputError& e) {
    err << "schedlab: " << e.what() << "\n";
    return 2;
  } catch (const WorkloadError& e) {
    err << "schedlab: " << (run->parsed() ? run_args.scenario : check_args.scenario) << ": "
        << e.what() << "\n";
    return 2;
  } catch (const InvariantError& e) {
    err << "schedlab: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    err << "schedlab: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}

}  // namespace schedlab
