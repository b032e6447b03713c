// The switches and tunables of CFS 2.6.23, each declared once: the SCHED_FEAT bits of
// sysctl_sched_features (kernel/sched_fair.c of 2.6.23.17), the sysctls before the
// boot-time scaling, and the domain flags a user may flip.
#pragma once

#include "params/declared.h"

namespace schedlab::cfs23 {

#define CFS23_PARAMS(X)                                                                        \
  X(bool, FAIR_SLEEPERS, true, params::any(), "2.6.23",                                        \
    "sleepers are credited the fair-clock time they slept")                                    \
  X(bool, SLEEPER_AVG, false, params::any(), "2.6.23",                                         \
    "the credit scaled by load / (load + weight)")                                             \
  X(bool, SLEEPER_LOAD_AVG, true, params::any(), "2.6.23",                                     \
    "SLEEPER_AVG uses cpu_load[2] as the load")                                                \
  X(bool, PRECISE_CPU_LOAD, false, params::any(), "2.6.23",                                    \
    "not modelled (cpu_load from exec/fair ratios); 1 is rejected")                            \
  X(bool, START_DEBIT, true, params::any(), "2.6.23",                                          \
    "a process fork starts owing half a granularity")                                          \
  X(bool, SKIP_INITIAL, false, params::any(), "2.6.23",                                        \
    "a process fork's first wait is not credited")                                             \
  X(int64_t, sched_latency_ns, 20'000'000, params::at_least(0), "2.6.23",                      \
    "targeted preemption latency, before scaling by CPU count")                                \
  X(int64_t, sched_min_granularity_ns, 2'000'000, params::at_least(0), "2.6.23",               \
    "minimal slice, before scaling by CPU count")                                              \
  X(int64_t, sched_wakeup_granularity_ns, 1'000'000, params::at_least(0), "2.6.23",            \
    "wake-up preemption granularity, before scaling (at boot 2.6.23 sets it to the scaled "    \
    "min_granularity / 2)")                                                                    \
  X(int, sched_tunable_scaling, 1, params::at_least(0), "2.6.36 (model)",                      \
    "scaling of the three above: 0 none, 1 1+ilog2(cpus) (the kernel's), 2 linear")            \
  X(bool, sched_child_runs_first, true, params::any(), "2.6.23",                               \
    "a forked child runs before its parent on the same CPU")                                   \
  X(bool, sched_compat_yield, false, params::any(), "2.6.23",                                  \
    "sched_yield moves the task to the far right")                                             \
  X(int64_t, sched_batch_wakeup_granularity_ns, 25'000'000, params::at_least(0), "2.6.23",     \
    "wake-up granularity of SCHED_BATCH tasks (not scaled)")                                   \
  X(int64_t, sched_runtime_limit_ns, 0, params::at_least(0), "2.6.23",                         \
    "bound of wait_runtime; 0 = sched_latency after scaling (the boot value)")                 \
  X(bool, forks_are_threads, true, params::any(), "model",                                     \
    "forks are CLONE_VM threads (pthread_create), which skip task_new_fair; 0 models process " \
    "forks")                                                                                   \
  X(bool, SD_BALANCE_NEWIDLE, true, params::any(), "2.6.23",                                   \
    "MC and CPU levels pull when a CPU goes idle")                                             \
  X(bool, SD_BALANCE_FORK, false, params::any(), "2.6.23",                                     \
    "forks go to the idlest CPU (all levels)")                                                 \
  X(bool, SD_WAKE_AFFINE, true, params::any(), "2.6.23",                                       \
    "wake-ups may move to the waker's CPU (all levels)")                                       \
  X(bool, SD_WAKE_IDLE, true, params::any(), "2.6.23",                                         \
    "a wake-up next to one task moves to an idle CPU")
SCHEDLAB_DECLARE_PARAMS(Cfs23Params, CFS23_PARAMS)

}  // namespace schedlab::cfs23
