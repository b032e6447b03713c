// `schedlab analyze TRACE`: the metrics of a recorded ftrace text trace, by the same
// analyzer and writers as `run`.
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "analysis/analyzer.h"
#include "cli/command.h"
#include "cli/options.h"
#include "host/ftrace_parser.h"
#include "report/json_report.h"
#include "report/table_report.h"
#include "util/error.h"
#include "util/input_file.h"

namespace schedlab {

namespace {

struct AnalyzeArgs {
  std::string trace_file;
  WriterPaths writers;
  bool json = false;
};

int analyze(const AnalyzeArgs& a, std::ostream& out, std::ostream& err) {
  std::istringstream in(read_input_file(a.trace_file));
  Analyzer analyzer;
  SinkList sinks;
  sinks.add(&analyzer);
  OptionalWriters writers(a.writers, sinks);
  const FtraceStats stats = parse_ftrace(in, a.trace_file, sinks);
  writers.close();
  if (stats.lost_events)
    err << fmt::format(
        "schedlab: note: {} events were lost when recording (buffer overrun); "
        "the metrics miss them\n",
        stats.lost_events);
  out << (a.json ? metrics_json(analyzer.metrics()) : metrics_table(analyzer.metrics()));
  return 0;
}

}  // namespace

Command add_analyze(CLI::App& parent) {
  auto a = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd =
      parent.add_subcommand("analyze", "metrics of a recorded ftrace text trace (as `run` prints)");
  cmd->add_option("trace_file", a->trace_file, "ftrace text (tracefs trace file)")->required();
  cmd->add_flag("--json", a->json, "print metrics as JSON");
  cmd->add_option("--trace", a->writers.trace, "write a Chrome/Perfetto trace JSON file");
  cmd->add_option("--events", a->writers.events, "write the event stream as CSV");
  return {cmd, [a](std::ostream& out, std::ostream& err) { return analyze(*a, out, err); }};
}

}  // namespace schedlab
