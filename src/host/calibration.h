// `schedlab calibrate`: this machine measured into a machine file (machine/costs.h):
// topology and HZ as `compare` reads them (host_machine.h), then the probes of probes.h:
//   context switch     pipe ping-pong of two threads on CPU 0
//   remote wake-up     futex wake-ups from CPU 0 to one CPU of each topology class (SMT
//                      sibling, shared cache, same package, other package), onto a busy
//                      target (the IPI) and onto a target idle a few us, 1, 10 and 100 ms
//                      (the idle exit by depth); the waker's time in FUTEX_WAKE (its send)
//   timer overshoot    1 ms clock_nanosleep
//   migration refill   a working set the size of a CPU's private cache, walked warm and
//                      then right after a move, within a cache and across caches (and
//                      4x that and 16 MB after a move, reported only)
//   co-run slowdown    a memory-heavy walk beside the same on a CPU sharing the cache; a
//                      compute loop beside the same on an SMT sibling
//   background noise   a pinned hog per CPU: the gaps in its run where another task ran
// Each figure keeps its spread; the load of the machine is sampled between probes and a
// busy machine is reported as such. Bounded in time (a few seconds; --quick less).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "machine/machine.h"

namespace schedlab {

struct CalibrationFigure {
  std::string name;  // what was measured, e.g. "remote wake-up, busy target (0->1)"
  std::string sets;  // the machine key it sets, or ""
  std::string unit;  // "ns" or "x" (a factor)
  double p50 = 0, p10 = 0, p90 = 0;
  size_t samples = 0;
  std::string note;  // "not measured: ..." when the machine has no such pair
};

struct Calibration {
  Machine machine;
  std::vector<CalibrationFigure> figures;
  bool busy = false;
  std::string load;  // the load summary (load_check.h)
  double seconds = 0;
};

struct CalibrationOptions {
  bool quick = false;  // fewer samples: about a second or two
};

// wakeup_ipi_ns from a traced remote wake-up's median (sched_waking to switch-in, the
// target idle between hand-offs) less the machine's idle exit at that depth; none when the
// exit is as long as the whole figure (calibrate then keeps the untraced figure).
std::optional<Time> traced_wakeup_ipi(Time traced_ns, Time idle_exit_ns);

// Measures this machine; `progress` is told of each probe as it starts.
Calibration calibrate_machine(const CalibrationOptions& options,
                              const std::function<void(const std::string&)>& progress = {});

// The figures as a table, one line each: value, 10th-90th percentile (a factor: the least
// and greatest of its measurements), samples, key set.
std::string calibration_table(const Calibration& c);

// Where calibrate keeps this machine's file for compare and validate:
// $XDG_CACHE_HOME/schedlab/machine.json, else ~/.cache/schedlab/machine.json, in a cache
// folder only this user controls (host/user_dirs.h: never /tmp, which any user could fill
// first); empty, with the reason in *why, when there is none. Read and written as a cache
// file: not through a symlink, replaced whole.
std::string cached_machine_path(std::string* why = nullptr);

// The model of this machine that compare and validate simulate on: `file` if given (an
// InputError if it does not read), else the cached calibration if it has this host's CPU
// count, else the host's topology and HZ without costs. `which` says which one, for the
// user: the file's path, or why there is none.
Machine model_of_this_machine(const std::string& file, std::string* which);

}  // namespace schedlab
