// `schedlab run`: simulate a scenario and print the analyzer's metrics.
#include <fmt/format.h>

#include <memory>

#include "analysis/analyzer.h"
#include "cli/command.h"
#include "cli/options.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {

namespace {

struct RunArgs {
  ScenarioArgs scenario;
  ReportArgs report;
  bool check_invariants = false;
  int max_tasks = kDefaultMaxLiveTasks;
};

int run(const RunArgs& a, const CLI::App& cmd, std::ostream& out, std::ostream& err) {
  const Scenario scenario = load_scenario(a.scenario.scenario, overrides_of(a.scenario, cmd));
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  OptionalWriters writers(a.report, sinks, out);
  std::vector<std::string> notes;
  SimulationOptions options;
  options.check_invariants = a.check_invariants;
  options.max_live_tasks = a.max_tasks;
  in_scenario(scenario.file, [&] { return simulate(scenario, sinks, options, &notes); });
  writers.close();
  for (const std::string& n : notes) err << "schedlab: note: " << n << "\n";
  print_reports(a.report, analyzer.metrics(), out, err);
  return 0;
}

}  // namespace

Command add_run(CLI::App& parent) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd = parent.add_subcommand("run", "simulate a scenario and report its metrics");
  add_scenario_options(*cmd, a->scenario);
  add_report_options(*cmd, a->report);
  cmd->add_flag("--check-invariants", a->check_invariants,
                "check the engine's invariants while running (slower)");
  cmd->add_option(
         "--max-tasks", a->max_tasks,
         fmt::format("tasks alive at once before the run stops (default {})", kDefaultMaxLiveTasks))
      ->transform(integer_in(1, 100'000'000));
  return {cmd, [a, cmd](std::ostream& out, std::ostream& err) { return run(*a, *cmd, out, err); }};
}

}  // namespace schedlab
