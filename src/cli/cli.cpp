#include "cli/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>

#include "analysis/analyzer.h"
#include "policy/registry.h"
#include "report/events_csv.h"
#include "report/json_report.h"
#include "report/perfetto_trace.h"
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

int command_run(const RunArgs& a, const CLI::App& cmd, std::ostream& out, std::ostream& err) {
  const Scenario scenario = load_scenario(a.scenario, overrides_of(a, cmd));
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  std::unique_ptr<std::ofstream> trace_file, events_file;
  std::unique_ptr<PerfettoTraceWriter> trace;
  std::unique_ptr<EventsCsvWriter> events;
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
  std::vector<std::string> notes;
  SimulationOptions options;
  options.check_invariants = a.check_invariants;
  simulate(scenario, sinks, options, &notes);
  for (const std::string& n : notes) err << "schedlab: note: " << n << "\n";
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
