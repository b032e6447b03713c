// host -> trace -> the analyzer's stream: a scenario's programs run on this machine
// (host_runner.h) while tracefs records the kernel (tracefs.h); the recorded trace is then
// replayed, with the run's own marks and SCHED_DEADLINE jobs merged in, into an
// EventSink, the same one a simulation feeds.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"
#include "host/tracefs.h"
#include "scenario/scenario.h"
#include "util/limits.h"

namespace schedlab {

struct HostSessionOptions {
  bool recalibrate = false;
  std::string keep_trace;  // keep the ftrace text in this file, 0600 (else a private temporary)
  TraceSetup trace;
  int max_threads = kDefaultMaxHostThreads;  // alive at once
  std::string cache_dir;                     // empty: host_runner.h's default
};

struct HostSessionResult {
  bool interrupted = false;
  std::vector<std::string> notes;  // for the user: calibration, dropped events, Ctrl-C
  double loops_per_us = 0;         // the busy loop's speed the run's `run` steps used
};

// Runs for the scenario's duration (10 s if it names none). The metrics are labelled
// "host RELEASE" and list the run's own threads only.
HostSessionResult run_recorded(const Scenario& scenario, const HostSessionOptions& options,
                               EventSink& sink);

}  // namespace schedlab
