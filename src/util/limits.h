// What one input may make schedlab spend, in one place (README "Limits"): past a limit a
// run stops with an input error (exit 2) that names it and the option that raises it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace schedlab {

// Bytes of one input file (scenario, machine, experiment, CSV, trace); --max-input.
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t{64} << 20;
// Nesting of arrays and objects in a JSON input (scenarios need a handful of levels).
inline constexpr int kMaxJsonDepth = 256;
// Tasks alive at once in a simulation (each costs the engine, the policy and the analyzer
// about a kilobyte); --max-tasks.
inline constexpr int kDefaultMaxLiveTasks = 100'000;
// Threads alive at once in `host run` (each a real thread with its own stack); --max-tasks.
inline constexpr int kDefaultMaxHostThreads = 4096;
// Runs in one sweep (points x schedulers x repeats).
inline constexpr uint64_t kMaxSweepRuns = 100'000;

}  // namespace schedlab
