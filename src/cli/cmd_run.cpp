// `schedlab run`: simulate a scenario and print the analyzer's metrics; --report writes
// the run as an HTML page with its timeline.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <tuple>

#include "analysis/analyzer.h"
#include "cli/command.h"
#include "cli/options.h"
#include "report/figures.h"
#include "report/run_report.h"
#include "report/timeline.h"
#include "sim/simulate.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/output_file.h"

namespace schedlab {

namespace {

struct RunArgs {
  ScenarioArgs scenario;
  ReportArgs report;
  std::string html_report, timeline_window;
  bool check_invariants = false;
  int max_tasks = kDefaultMaxLiveTasks;
};

void write_run_report(const RunArgs& a, const Scenario& s, const Metrics& m,
                      const Timeline& timeline, const std::vector<std::string>& notes) {
  RunReport r;
  r.scenario_file = s.file;
  r.version = SCHEDLAB_VERSION_STRING;
  r.policy_note = s.policy_note;
  r.notes = s.notes;
  r.notes.insert(r.notes.end(), notes.begin(), notes.end());
  r.scenario_text = read_input_file(s.file);
  TimelineOptions o;
  o.title = std::filesystem::path(s.file).stem().string() + " under " + m.policy;
  r.timeline =
      render_figure({timeline_script(timeline, o), o.title, o.width, timeline_height(timeline)});
  r.timeline.title = o.title;
  r.timeline.caption = timeline_caption(timeline, "The run");
  write_output(a.html_report, run_report_html(m, r));
}

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
  const auto [from, to] = timeline_window_of(a.timeline_window);
  TimelineRecorder timeline(from, to);
  if (!a.html_report.empty()) sinks.add(&timeline);
  in_scenario(scenario.file, [&] { return simulate(scenario, sinks, options, &notes); });
  writers.close();
  if (!a.html_report.empty())
    write_run_report(a, scenario, analyzer.metrics(), timeline.timeline(), notes);
  for (const std::string& n : scenario.notes) err << "schedlab: note: " << n << "\n";
  for (const std::string& n : notes) err << "schedlab: note: " << n << "\n";
  print_reports(a.report, analyzer.metrics(), out, err, scenario.policy_note);
  return 0;
}

}  // namespace

Command add_run(CLI::App& parent) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd = parent.add_subcommand("run", "simulate a scenario and report its metrics");
  add_scenario_options(*cmd, a->scenario);
  add_report_options(*cmd, a->report);
  cmd->add_option("--report", a->html_report,
                  "write the run as a self-contained HTML page: its timeline (per-CPU lanes of "
                  "task slices and wake-ups) and its tables");
  add_timeline_option(*cmd, a->timeline_window);
  cmd->add_flag("--check-invariants", a->check_invariants,
                "check the engine's invariants while running (slower)");
  cmd->add_option(
         "--max-tasks", a->max_tasks,
         fmt::format("tasks alive at once before the run stops (default {})", kDefaultMaxLiveTasks))
      ->transform(integer_in(1, 100'000'000));
  return {cmd, [a, cmd](std::ostream& out, std::ostream& err) { return run(*a, *cmd, out, err); }};
}

}  // namespace schedlab
