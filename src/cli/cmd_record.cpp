// `schedlab record -- COMMAND`: run a command while tracefs records the kernel's
// scheduler events into an ftrace text file (root).
#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "host/tracefs.h"

namespace schedlab {

namespace {

int record(const RecordOptions& o, std::ostream& out, std::ostream& err) {
  const RecordResult r = record_command(o);
  out << fmt::format("recorded {} trace lines to {}; the command {} (status {})\n", r.lines, o.out,
                     r.interrupted ? "was interrupted"
                     : r.timed_out ? "timed out"
                                   : "exited",
                     r.exit_status);
  if (r.overruns)
    err << fmt::format("schedlab: note: the trace buffer dropped {} events (raise --buffer-kb)\n",
                       r.overruns);
  return r.interrupted ? 130 : r.timed_out ? 124 : 0;
}

}  // namespace

Command add_record(CLI::App& parent) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "record", "run a command while recording the kernel's scheduler events (root)");
  cmd->add_option("--out", o->out, "ftrace text output (default schedlab-trace.txt)");
  cmd->add_option("--timeout", o->timeout_s,
                  "stop the command after this many seconds (default 600)")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd->add_option("--buffer-kb", o->buffer_kb, "per-CPU trace buffer (default 8192)")
      ->transform(integer_in(64, 1 << 22));
  cmd->add_option("--tracefs", o->tracefs_dir, "tracefs directory (default /sys/kernel/tracing)");
  cmd->add_option("command", o->command, "the command, after --")->required();
  return {cmd, [o](std::ostream& out, std::ostream& err) { return record(*o, out, err); }};
}

}  // namespace schedlab
