// `schedlab record -- COMMAND`: run a command while tracefs records the kernel's
// scheduler events into an ftrace text file (root). The exit code is the command's own
// (128 + the signal when stopped by SIGINT, SIGTERM or SIGHUP; 124 when it timed out).
#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "host/tracefs.h"
#include "util/error.h"

namespace schedlab {

namespace {

struct RecordArgs {
  RecordOptions options;
  std::string mode = "600";
};

mode_t parse_mode(const std::string& text) {
  mode_t mode = 0;
  for (char c : text) {
    if (c < '0' || c > '7' || mode > 0777) throw InputError("", "--mode " + text, "expected octal");
    mode = static_cast<mode_t>(mode * 8 + static_cast<mode_t>(c - '0'));
  }
  if (text.empty() || mode > 0777)
    throw InputError("", "--mode " + text, "expected file permissions in octal, 0..777");
  return mode;
}

int record(RecordArgs a, const CLI::App& cmd, std::ostream& out, std::ostream& err) {
  RecordOptions& o = a.options;
  o.out_named = cmd.count("--out") > 0;
  o.out_mode = parse_mode(a.mode);
  const RecordResult r = record_command(o);
  for (const std::string& n : r.notes) err << "schedlab: note: " << n << "\n";
  out << fmt::format("recorded {} trace lines to {}; the command {} (status {})\n", r.lines, o.out,
                     r.interrupted ? "was interrupted"
                     : r.timed_out ? "timed out"
                                   : "exited",
                     r.exit_status);
  if (r.overruns)
    err << fmt::format("schedlab: note: the trace buffer dropped {} events (raise --buffer-kb)\n",
                       r.overruns);
  return r.interrupted ? StopSignals::exit_status() : r.timed_out ? 124 : r.exit_status;
}

}  // namespace

Command add_record(CLI::App& parent) {
  auto a = std::make_shared<RecordArgs>();
  RecordOptions& o = a->options;
  CLI::App* cmd = parent.add_subcommand(
      "record", "run a command while recording the kernel's scheduler events (root)");
  cmd->add_option("--out", o.out, "ftrace text output (default schedlab-trace.txt)");
  cmd->add_option("--mode", a->mode,
                  "permissions of the output, octal (default 600: a recording shows every "
                  "process's name and wake-ups)");
  cmd->add_option("--timeout", o.timeout_s,
                  "stop the command after this many seconds (default 600)")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd->add_option("--buffer-kb", o.trace.buffer_kb, "per-CPU trace buffer (default 8192)")
      ->transform(integer_in(64, 1 << 22));
  cmd->add_option("--tracefs", o.trace.tracefs_dir,
                  "tracefs directory (default /sys/kernel/tracing)");
  cmd->add_option("command", o.command, "the command, after --")->required();
  return {cmd,
          [a, cmd](std::ostream& out, std::ostream& err) { return record(*a, *cmd, out, err); }};
}

}  // namespace schedlab
