// Recording the host kernel's scheduler through tracefs (WORKLOADS.md §7): mount it if
// needed, remember every setting touched, switch on the sched events, stream trace_pipe
// to a file while a command runs, and put every setting back however the run ends
// (normal exit, error, time-out, Ctrl-C).
#pragma once

#include <string>
#include <vector>

namespace schedlab {

struct RecordOptions {
  std::vector<std::string> command;  // argv of the program to run
  std::string out = "schedlab-trace.txt";
  double timeout_s = 600;   // the command is stopped after this long
  int buffer_kb = 8192;     // per-CPU ring buffer
  std::string tracefs_dir;  // empty: /sys/kernel/tracing (mounted if empty)
};

struct RecordResult {
  int exit_status = 0;  // the command's exit status (128 + signal if killed)
  bool timed_out = false, interrupted = false;
  size_t lines = 0;                 // trace lines written
  unsigned long long overruns = 0;  // events the ring buffer dropped
};

// The sched events enabled while recording.
const std::vector<std::string>& recorded_sched_events();

// Throws InputError when tracefs cannot be used (with the reason: not root, no tracefs,
// a setting that cannot be written) or the command cannot be started.
RecordResult record_command(const RecordOptions& options);

// The tracing settings that record_command changes, as "name=value" lines (for tests
// and diagnostics).
std::vector<std::string> tracing_settings(const std::string& tracefs_dir);

// The tracefs directory to use: `dir` if given, else /sys/kernel/tracing (mounting
// tracefs there if it is empty and `mount_if_needed`). Empty when unavailable.
std::string find_tracefs(const std::string& dir, bool mount_if_needed, std::string* why);

}  // namespace schedlab
