// `schedlab host run`: a scenario's programs run for real while the kernel is recorded;
// the recorded stream goes through the same analyzer as `run`, and what it computes is
// printed as it is.
#include <memory>

#include "analysis/analyzer.h"
#include "cli/command.h"
#include "cli/options.h"
#include "host/host_session.h"
#include "host/tracefs.h"

namespace schedlab {

namespace {

struct HostRunArgs {
  HostScenarioArgs scenario;
  HostSessionOptions session;
  ReportArgs report;
};

int host_run(const HostRunArgs& a, std::ostream& out, std::ostream& err) {
  const Scenario scenario = load_host_scenario(a.scenario);
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  OptionalWriters writers(a.report, sinks, out);
  const HostSessionResult r = run_recorded(scenario, a.session, sinks);
  writers.close();
  for (const std::string& n : r.notes) err << "schedlab: note: " << n << "\n";
  print_reports(a.report, analyzer.metrics(), out, err);
  return r.interrupted ? StopSignals::exit_status() : 0;
}

}  // namespace

Command add_host_run(CLI::App& host) {
  auto a = std::make_shared<HostRunArgs>();
  CLI::App* cmd = host.add_subcommand(
      "run", "run a scenario's programs for real while recording the kernel; report as `run`");
  add_host_scenario_options(*cmd, a->scenario);
  cmd->add_option("--duration", a->scenario.duration_s,
                  "seconds before the run is stopped (default global.duration, else 10)")
      ->check(seconds_in(kMaxDurationSeconds));
  add_report_options(*cmd, a->report);
  cmd->add_option("--keep-trace", a->session.keep_trace,
                  "keep the ftrace text in this file (written 0600)");
  cmd->add_flag("--recalibrate", a->session.recalibrate, "measure the busy loop again");
  cmd->add_option("--buffer-kb", a->session.trace.buffer_kb, "per-CPU trace buffer (default 8192)")
      ->transform(integer_in(64, 1 << 22));
  cmd->add_option("--tracefs", a->session.trace.tracefs_dir, "tracefs directory");
  add_max_threads_option(*cmd, a->session);
  return {cmd, [a](std::ostream& out, std::ostream& err) { return host_run(*a, out, err); }};
}

}  // namespace schedlab
