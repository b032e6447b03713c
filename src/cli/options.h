// What several subcommands share: the scenario options of `run` and `check`, name=value
// arguments, output files, the --trace/--events writers and the progress bar.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analyzer.h"
#include "events/event.h"
#include "host/host_session.h"
#include "report/events_csv.h"
#include "report/ftrace_writer.h"
#include "report/line_plot.h"
#include "report/perfetto_trace.h"
#include "report/sched_latency.h"
#include "report/trace_dat_writer.h"
#include "scenario/scenario.h"
#include "util/output_file.h"

namespace schedlab {

// The longest duration an option takes, in seconds (the engine's limit).
inline constexpr double kMaxDurationSeconds = static_cast<double>(kMaxDurationNs / kNsPerSec);

// A scenario file and the command-line changes to it (`run`, `check`).
struct ScenarioArgs {
  std::string scenario;
  std::string policy;
  std::vector<std::string> params, sets, new_sets;
  uint64_t seed = 0;
  int cpus = 0;
  double duration_s = 0;
};
void add_scenario_options(CLI::App& cmd, ScenarioArgs& a);
// The overrides `cmd` was given (an option not given leaves the scenario's value), and
// the host's model as the policy of a file that names none.
ScenarioOverrides overrides_of(const ScenarioArgs& a, const CLI::App& cmd);
// A plain rt-app file runs under the model of the kernel it would run on here (`eevdf` on
// a 6.12 host), not under `rr`, the engine's test scheduler.
void default_to_host_model(ScenarioOverrides& o);

// The scenario of `host run` and `compare`: --set edits and a --duration in seconds.
struct HostScenarioArgs {
  std::string scenario;
  std::vector<std::string> sets, new_sets;
  double duration_s = 0;
};
void add_host_scenario_options(CLI::App& cmd, HostScenarioArgs& a);

// --set and --set-new (the one that may add a task under /tasks/).
void add_set_options(CLI::App& cmd, std::vector<std::string>& sets,
                     std::vector<std::string>& new_sets);
// The pairs of --set (or --set-new: `option`) texts.
std::vector<std::pair<std::string, std::string>> assignments(const std::vector<std::string>& texts,
                                                             const std::string& option);
Scenario load_host_scenario(const HostScenarioArgs& a);

// "name=value" as a pair; InputError naming `option` otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& option);

// An output file the user named (InputError naming the path when it cannot be opened;
// OutputFile::close() reports a failed write).
std::unique_ptr<OutputFile> open_output(const std::string& path);

// The outputs of the commands that measure a run (`run`, `analyze`, `host run`), all
// from the one analyzer's stream: the writers fed as events arrive (--trace, --events,
// --ftrace, --trace-dat, --timehist) and what is printed at the end (the table, --json, --latency,
// --rtapp-log).
struct ReportArgs {
  std::string trace, events, ftrace, trace_dat, rtapp_log_dir;
  bool json = false, latency = false, timehist = false, trace_from_zero = false;
};
void add_report_options(CLI::App& cmd, ReportArgs& a);

// The writers a command was asked for, added to `sinks`; --timehist rows go to `out`.
class OptionalWriters {
 public:
  OptionalWriters(const ReportArgs& args, SinkList& sinks, std::ostream& out);
  // Closes the files, reporting a failed write (InputError naming the file).
  void close();

 private:
  std::unique_ptr<OutputFile> trace_file_, events_file_, ftrace_file_, trace_dat_file_;
  std::unique_ptr<PerfettoTraceWriter> trace_;
  std::unique_ptr<EventsCsvWriter> events_;
  std::unique_ptr<FtraceTextWriter> ftrace_;
  std::unique_ptr<TraceDatWriter> trace_dat_;
  std::unique_ptr<TimehistWriter> timehist_;
};

// Strict number options. CLI11 alone reads "-1" for an unsigned option as 2^64 - 1,
// "010" as octal and a number too large as the largest, and takes "nan" as a positive
// number; these accept a plain decimal integer within [lo, hi] (rewritten in decimal before
// CLI11 converts it), and a finite number of seconds in (0, max].
CLI::Validator integer_in(int64_t lo, int64_t hi);
CLI::Validator seconds_in(double max);

// `host run` and `compare`: --max-tasks, the threads alive at once.
void add_max_threads_option(CLI::App& cmd, HostSessionOptions& o);

// A plot's --title, --xlabel, --ylabel, --size and --log (sweep, host bench).
struct PlotArgs {
  std::string title, x_label, y_label, size, log = "auto";
};
void add_plot_options(CLI::App& cmd, PlotArgs& a);
PlotOptions plot_options_of(const PlotArgs& a, const std::string& default_title);

// --timeline-window lo..hi (ms) of the timelines in a report; the default 0..100.
void add_timeline_option(CLI::App& cmd, std::string& window);
std::pair<Time, Time> timeline_window_of(const std::string& window);
// The table (unless --latency or --timehist replace it), --json or --latency, and the
// rt-app logs; `policy_note` says why the policy was chosen when the scenario did not.
void print_reports(const ReportArgs& args, const Metrics& m, std::ostream& out, std::ostream& err,
                   const std::string& policy_note = "");

// A progress bar with an ETA on a terminal; nothing otherwise.
std::function<void(std::size_t, std::size_t)> progress_bar(std::ostream& err);

}  // namespace schedlab
