// `schedlab host record-workload -- COMMAND`: `record` of a command, then `extract` of
// the process tree it started, in one step (root; docs/replay.md).
#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "extract/extract.h"
#include "host/ftrace_parser.h"
#include "host/tracefs.h"
#include "util/error.h"
#include "util/output_file.h"

namespace schedlab {

namespace {

struct RecordWorkloadArgs {
  RecordOptions record;
  std::string out = "schedlab-workload.json", machine;
  bool exact = false, out_named = false;
};

int record_workload(RecordWorkloadArgs a, const CLI::App& cmd, std::ostream& out,
                    std::ostream& err) {
  // A default name (the user's folder, schedlab's name) is not followed through a symlink.
  a.out_named = cmd.count("--out") > 0;
  a.record.out_named = cmd.count("--trace") > 0;
  if (!a.record.out_named) a.record.out = a.out + ".trace.txt";
  const RecordResult r = record_command(a.record);
  if (r.overruns)
    err << fmt::format("schedlab: note: the trace buffer dropped {} events (raise --buffer-kb)\n",
                       r.overruns);
  if (r.interrupted) return StopSignals::exit_status();
  // the command is the child this process forked: it and everything it forks
  ExtractOptions o;
  o.children_of = static_cast<int64_t>(::getpid());
  o.exact = a.exact;
  FtraceStats stats;
  const ExtractedWorkload w = extract_trace_file(a.record.out, o, &stats);
  OutputOptions written;
  written.follow_symlink = a.out_named;
  write_output(a.out, scenario_json(w, a.record.out, a.machine), written);
  out << fmt::format(
      "recorded {} trace lines to {}; the command exited (status {}); {} tasks, {} wake-up "
      "edges extracted to {}\n",
      r.lines, a.record.out, r.exit_status, w.tasks.size(), w.edges.size(), a.out);
  for (const std::string& n : stats.notes) err << "schedlab: note: " << n << "\n";
  for (const std::string& n : w.notes) err << "schedlab: note: " << n << "\n";
  return r.timed_out ? 124 : 0;
}

}  // namespace

Command add_record_workload(CLI::App& host) {
  auto a = std::make_shared<RecordWorkloadArgs>();
  CLI::App* cmd = host.add_subcommand(
      "record-workload", "record a command, then extract its process tree as a workload (root)");
  cmd->add_option("--out", a->out, "scenario file (default schedlab-workload.json)");
  cmd->add_option("--trace", a->record.out, "the recorded trace (default OUT.trace.txt)");
  cmd->add_option("--timeout", a->record.timeout_s, "stop the command after this many seconds")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd->add_option("--buffer-kb", a->record.trace.buffer_kb, "per-CPU trace buffer (default 8192)")
      ->transform(integer_in(64, 1 << 22));
  cmd->add_option("--machine", a->machine, "machine file the scenario names");
  cmd->add_flag("--exact", a->exact, "keep every burst (no loops)");
  cmd->add_option("command", a->record.command, "the command, after --")->required();
  return {cmd, [a, cmd](std::ostream& out, std::ostream& err) {
            return record_workload(*a, *cmd, out, err);
          }};
}

}  // namespace schedlab
