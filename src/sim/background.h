// The machine's background noise (Machine::background) as tasks of the run: for each
// source and each of its CPUs, one task pinned to that CPU and named like the kernel thread
// it stands for ("kworker/{cpu}" -> "kworker/2"), whose program alternates a burst of work
// and a sleep, both drawn from the source's distributions with a random source of its own
// (seeded by the run's seed, the source and the CPU), so that the noise is the same in
// every run of a seed and leaves the run's own random numbers untouched.
#pragma once

#include "machine/machine.h"
#include "workload/program.h"

namespace schedlab {

// Whether the machine has a source that makes any task (a rate above 0, a CPU it has).
bool has_background(const Machine& m);
// `workload` with the noise tasks appended (TaskSpec::background set). Each task's program
// is a cycle of at most a few thousand drawn (burst, gap) pairs: enough for `horizon_ns` at
// the source's rate where that fits, repeating after that.
Workload with_background(const Workload& workload, const Machine& m, uint64_t seed,
                         Time horizon_ns);

}  // namespace schedlab
