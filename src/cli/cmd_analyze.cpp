// `schedlab analyze TRACE`: the metrics of a recorded trace (ftrace text, trace-cmd
// report, systrace HTML or trace.dat), by the same analyzer and writers as `run`.
#include <fmt/format.h>

#include <memory>

#include "analysis/analyzer.h"
#include "cli/command.h"
#include "cli/options.h"
#include "host/ftrace_parser.h"

namespace schedlab {

namespace {

struct AnalyzeArgs {
  std::string trace_file;
  ReportArgs report;
};

int analyze(const AnalyzeArgs& a, std::ostream& out, std::ostream& err) {
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  OptionalWriters writers(a.report, sinks, out);
  const FtraceStats stats = parse_trace_file(a.trace_file, sinks);
  writers.close();
  for (const std::string& n : stats.notes) err << "schedlab: note: " << n << "\n";
  if (stats.lost_events)
    err << fmt::format(
        "schedlab: note: {} events were lost when recording (buffer overrun); "
        "the metrics miss them\n",
        stats.lost_events);
  if (stats.inferred_switches)
    err << fmt::format(
        "schedlab: note: {} of {} context switches are not in the trace and were inferred "
        "from the task a later line shows running\n",
        stats.inferred_switches, stats.switches + stats.inferred_switches);
  print_reports(a.report, analyzer.metrics(), out, err);
  return 0;
}

}  // namespace

Command add_analyze(CLI::App& parent) {
  auto a = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "analyze",
      "metrics of a recorded trace (ftrace text, trace-cmd report, trace.dat, systrace)");
  cmd->add_option("trace_file", a->trace_file,
                  "tracefs text, trace-cmd report output, trace.dat or systrace HTML")
      ->required();
  add_report_options(*cmd, a->report);
  return {cmd, [a](std::ostream& out, std::ostream& err) { return analyze(*a, out, err); }};
}

}  // namespace schedlab
