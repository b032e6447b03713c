// Runs a scenario's workload programs for real, one thread per task instance, on the host
// kernel: the same event vocabulary the simulator executes (src/workload/program.h),
// with each task's policy, nice and affinity set through sched_setattr and
// sched_setaffinity.
//
// - run: a busy loop of calibrated length (fixed work: preemption stretches it);
//   runtime: busy until CLOCK_MONOTONIC has moved on; mem/iorun: writes to a buffer.
// - sleep: clock_nanosleep; timer: absolute clock_nanosleep on the period grid, with
//   rt-app's relative/absolute catch-up rule.
// - mutexes, condvars (rt-app's unguarded pthread_cond_wait), barriers, suspend/resume,
//   counting semaphores and progress counters: pthread mutexes and condition variables;
//   spinlocks spin for real, then sched_yield, then sleep or block as configured.
// - fork starts a new thread of the named task; marks are recorded as kMark events, and a
//   SCHED_DEADLINE thread's jobs as kDlJob events by the rule of events/deadline_job.h
//   (a job ends when the thread waits, yields, reaches its timer or exits).
//
// The run stops when every thread has exited, at the duration, or on Ctrl-C: the
// threads are told to stop, woken from every wait, and joined.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "host/run_record.h"
#include "scenario/scenario.h"
#include "util/limits.h"

namespace schedlab {

struct HostRunOptions {
  Time duration_ns = 10 * kNsPerSec;  // the bound of the run
  bool recalibrate = false;
  std::string cache_dir;                     // empty: host/user_dirs.h's cache folder
  int max_threads = kDefaultMaxHostThreads;  // alive at once; a fork past it ends the run
};

// The busy-loop speeds a cached calibration may hold; outside them it is measured again.
inline constexpr double kMinLoopsPerUs = 1, kMaxLoopsPerUs = 100'000;

// The busy loop's speed now, in loops per microsecond of this thread's CPU time: the best
// of 5 timings of about 10 ms each (what a run measures when it does not use the cache).
double time_busy_loop();

struct HostRunResult {
  Time start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC
  // The threads by kernel tid (task instance name, first mask), the mark names, and the
  // marks and SCHED_DEADLINE jobs the threads saw, for parse_ftrace to merge.
  RunRecord record;
  double loops_per_us = 0;  // the busy-loop calibration used
  std::string calibration_note;
  bool interrupted = false, timed_out = false;
};

// Throws InputError for what the host cannot run (a policy it refuses without privilege,
// a SCHED_ISO task, a thread the system will not create) naming the task, and
// WorkloadError (naming the scenario) for a stuck spinlock or more threads than
// max_threads. Every thread is stopped and joined however it ends.
HostRunResult run_on_host(const Scenario& scenario, const HostRunOptions& options);

}  // namespace schedlab
