// Recording the host kernel's scheduler through tracefs (docs/traces.md): mount it if
// needed, remember every setting touched, switch on the sched events, stream trace_pipe
// to a file while a command runs, and put every setting back however the run ends
// (normal exit, error, time-out, Ctrl-C).
#pragma once

#include <signal.h>

#include <memory>
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

// While alive, SIGINT, SIGTERM and SIGHUP only set a flag (so a recording can stop its
// workload and restore tracing); the previous handlers come back at destruction.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static int caught();  // the signal received, or 0

 private:
  std::vector<struct sigaction> old_;
};

// A recording: from construction (settings saved, sched events on, trace_pipe streamed to
// `out`) to stop() or destruction (tracing off, the stream drained, settings restored).
class TraceSession {
 public:
  TraceSession(const std::string& tracefs_dir, int buffer_kb, const std::string& out_path);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;
  void stop();  // tracing off and the stream drained; settings restored at destruction
  size_t lines() const;
  unsigned long long overruns() const;  // events the ring buffers dropped

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

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
