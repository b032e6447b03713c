// Recording the host kernel's scheduler through tracefs (docs/traces.md): mount it if
// needed, record into a private instance of our own (instances/schedlab-<pid>, removed at
// the end; host/trace_instance.h), or where tracefs has none into the global instance
// under a lock that holds the saved settings (host/global_tracing.h); stream trace_pipe
// to a file while a command runs; undo everything however the run ends (normal exit,
// error, time-out, Ctrl-C, and through a watchdog process SIGKILL too; host/watchdog.h).
#pragma once

#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "util/output_file.h"

namespace schedlab {

class Watchdog;

// Where and how a recording records.
struct TraceSetup {
  std::string tracefs_dir;                 // empty: /sys/kernel/tracing (mounted if empty)
  int buffer_kb = 8192;                    // per-CPU ring buffer
  std::string lock_dir = "/run/schedlab";  // the global instance's lock files
  bool global = false;                     // the global instance even where instances exist (tests)
};

struct RecordOptions {
  std::vector<std::string> command;  // argv of the program to run
  std::string out = "schedlab-trace.txt";
  bool out_named = false;  // the user gave --out (a symlink there is then followed)
  mode_t out_mode = 0600;  // a recording shows every process's name and wake-ups
  double timeout_s = 600;  // the command is stopped after this long
  TraceSetup trace;
};

struct RecordResult {
  int exit_status = 0;  // the command's exit status (128 + signal if killed)
  bool timed_out = false, interrupted = false;
  size_t lines = 0;                 // trace lines written
  unsigned long long overruns = 0;  // events the ring buffer dropped
  std::vector<std::string> notes;   // a stale instance removed, settings restored
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
  // A stopped command's status as the shell gives it: 128 + the signal's number (130 for
  // SIGINT, 143 for SIGTERM, 129 for SIGHUP).
  static int exit_status() { return 128 + (caught() ? caught() : SIGINT); }

 private:
  std::vector<struct sigaction> old_;
};

// A recording: from construction (instance made, or settings saved; sched events on;
// trace_pipe streamed to `out_path`) to stop() or destruction (tracing off, the stream
// drained, the instance removed or the settings restored).
class TraceSession {
 public:
  TraceSession(const TraceSetup& setup, const std::string& out_path, const OutputOptions& out);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;
  // Tracing off, the stream drained and the file closed: InputError naming the file if a
  // write failed (a full disk), so a truncated recording never passes for a whole one.
  void stop();
  size_t lines() const;
  unsigned long long overruns() const;  // events the ring buffers dropped
  const std::vector<std::string>& notes() const;
  const std::string& trace_dir() const;  // the instance's folder (or tracefs's own)
  Watchdog& watchdog();                  // to kill a recorded command if schedlab is killed

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Throws InputError when tracefs cannot be used (with the reason: not root, no tracefs,
// a setting that cannot be written, another recorder holding the global buffer), the
// command cannot be started (its name and the reason), or the recording cannot be written.
RecordResult record_command(const RecordOptions& options);

// The global tracing settings a recording could change, as "name=value" lines (for tests
// and diagnostics): none of them changes where instances exist.
std::vector<std::string> tracing_settings(const std::string& tracefs_dir);

// The tracefs directory to use: `dir` if given, else /sys/kernel/tracing (mounting
// tracefs there if it is empty and `mount_if_needed`). Empty when unavailable.
std::string find_tracefs(const std::string& dir, bool mount_if_needed, std::string* why);

}  // namespace schedlab
