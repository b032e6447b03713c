// Micro-measurements of this machine for `schedlab calibrate` (calibration.h): each probe
// runs a few threads pinned where it says, for a bounded number of rounds, and returns its
// samples in nanoseconds. No probe needs root.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/types.h"

namespace schedlab {

// Samples of one figure, in ns, and their percentiles (nearest rank).
struct Samples {
  std::vector<int64_t> values;
  int64_t percentile(double p) const;
  bool empty() const { return values.empty(); }
};

Time mono_now_ns();
// Pins the calling thread to one CPU; false if the kernel refuses.
bool pin_to_cpu(CpuId cpu);

// One context switch between two threads pinned to `cpu`, ping-ponging a byte through two
// pipes (lmbench's lat_ctx, less the pipe operations themselves).
Samples context_switch(CpuId cpu, int batches, int rounds_per_batch);

// A futex wake-up from a thread on `waker` to one blocked on `target`: the time from just
// before FUTEX_WAKE to the woken thread running, and the time the waker spent in the
// call (less a FUTEX_WAKE that finds no waiter). `target_idle_ns`: how long the target CPU
// idles before each wake-up (0: a few microseconds); `busy_target`: a SCHED_IDLE spinner
// keeps the target CPU busy instead, so the wake-up preempts it and no idle state is left.
struct WakeSamples {
  Samples latency, send;
};
WakeSamples futex_wakeups(CpuId waker, CpuId target, int count, Time target_idle_ns,
                          bool busy_target);
// FUTEX_WAKE on a word nobody waits on.
Samples futex_wake_alone(CpuId cpu, int count);

// How late a relative 1 ms clock_nanosleep returns on `cpu`.
Samples timer_overshoot(CpuId cpu, int count, Time sleep_ns);

// A working set of `bytes` walked warm on `from`, then again right after moving to `to`:
// the extra time of the first walk after the move (the cache refill of a migration).
Samples migration_refill(CpuId from, CpuId to, int64_t bytes, int repeats);

// Work per second of a loop alone on `a` and beside the same loop on `b`: the co-run
// slowdown (alone / together - 1), memory-heavy (a walk over `bytes`) or compute-only.
double corun_slowdown(CpuId a, CpuId b, bool memory_heavy, int64_t bytes, Time duration_ns);

// A hog pinned to each CPU for `duration_ns`, reading the clock as pert does: the gaps in
// its run. `preempted` keeps the longest gaps, as many as the thread's involuntary context
// switches (the gaps where another task ran; the shorter ones are interrupts).
struct NoiseSamples {
  CpuId cpu = 0;
  Samples preempted;
  int64_t gaps = 0;  // all gaps over the threshold
  Time duration_ns = 0;
};
std::vector<NoiseSamples> preempted_gaps(int cpus, Time duration_ns);

// The size of the largest cache private to `cpu` (its own or its SMT siblings'), from
// /sys/devices/system/cpu; 0 when unknown.
int64_t private_cache_bytes(CpuId cpu);

}  // namespace schedlab
