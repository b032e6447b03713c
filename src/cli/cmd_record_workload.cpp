// `schedlab host record-workload -- COMMAND`: `record` of a command, then `extract` of
// the process tree it started, in one step (root; docs/replay.md).
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
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

// While alive, this process's stdout and stderr (so the recorded command's, which inherits
// them) go to `path`: replay-check reads the program's own figures there (x264's fps,
// hackbench's Time). The command's output is thus not shown; schedlab's own is written
// after. Opened 0600 as the trace is, and not through a symlink unless the user named it.
class CommandOutputFile {
 public:
  CommandOutputFile(const std::string& path, bool follow_symlink) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    const int flags =
        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | (follow_symlink ? 0 : O_NOFOLLOW);
    const int fd = ::open(path.c_str(), flags, 0600);
    if (fd < 0)
      throw InputError(path, "", fmt::format("cannot open for writing: {}", strerror(errno)));
    saved_out_ = ::dup(1);
    saved_err_ = ::dup(2);
    ::dup2(fd, 1);  // dup2 leaves O_CLOEXEC off: the command inherits them
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~CommandOutputFile() {
    std::fflush(stdout);
    std::fflush(stderr);
    restore(saved_out_, 1);
    restore(saved_err_, 2);
  }
  CommandOutputFile(const CommandOutputFile&) = delete;
  CommandOutputFile& operator=(const CommandOutputFile&) = delete;

 private:
  static void restore(int saved, int fd) {
    if (saved < 0) return;
    ::dup2(saved, fd);
    ::close(saved);
  }
  int saved_out_ = -1, saved_err_ = -1;
};

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
  const std::string output = a.record.out + ".out";
  const RecordResult r = [&] {
    const CommandOutputFile to_file(output, a.record.out_named);
    return record_command(a.record);
  }();
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
      "recorded {} trace lines to {} (the command's output in {}); the command exited (status "
      "{}); {} tasks, {} wake-up edges extracted to {}\n",
      r.lines, a.record.out, output, r.exit_status, w.tasks.size(), w.edges.size(), a.out);
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
