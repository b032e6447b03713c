// The switches and tunables of CFS 2.6.31 and 2.6.32, each declared once: the SCHED_FEAT
// switches of kernel/sched_features.h (in 2.6.32's order, 2.6.31's own beside them), the
// sysctls before the boot-time scaling, and the domain flags a user may flip. `since`
// names the releases that have it; each preset (presets.cpp) is a row of these defaults
// and lists the ones its release offers, in its own features.h order.
#pragma once

#include "params/declared.h"

namespace schedlab::cfs {

#define CFS_PARAMS(X)                                                                          \
  X(bool, FAIR_SLEEPERS, true, params::any(), "2.6.32", "waking tasks get sleeper credit")     \
  X(bool, NEW_FAIR_SLEEPERS, true, params::any(), "2.6.31",                                    \
    "waking tasks get up to one latency of sleeper credit")                                    \
  X(bool, GENTLE_FAIR_SLEEPERS, true, params::any(), "2.6.32", "halve the sleeper credit")     \
  X(bool, NORMALIZED_SLEEPER, false, params::any(), "2.6.31-32",                               \
    "sleeper credit scaled by the task's weight")                                              \
  X(bool, START_DEBIT, true, params::any(), "2.6.31-32",                                       \
    "a new task starts one virtual slice after min_vruntime")                                  \
  X(bool, WAKEUP_PREEMPT, true, params::any(), "2.6.31-32",                                    \
    "wake-ups may preempt; also the tick's vruntime-spread test")                              \
  X(bool, ADAPTIVE_GRAN, true, params::any(), "2.6.31-32",                                     \
    "wake-up granularity shrinks for frequent wakers")                                         \
  X(bool, ASYM_GRAN, true, params::any(), "2.6.31-32",                                         \
    "wake-up granularity in the woken task's virtual time")                                    \
  X(bool, WAKEUP_SYNC, false, params::any(), "2.6.32", "a sync wake-up always preempts")       \
  X(bool, WAKEUP_OVERLAP, false, params::any(), "2.6.31-32",                                   \
    "preempt when both tasks overlap briefly (avg_overlap)")                                   \
  X(bool, WAKEUP_RUNNING, false, params::any(), "2.6.32",                                      \
    "preempt when the woken task runs shorter bursts")                                         \
  X(bool, SYNC_WAKEUPS, true, params::any(), "2.6.31-32", "honour the sync hint of a wake-up") \
  X(bool, AFFINE_WAKEUPS, true, params::any(), "2.6.31-32",                                    \
    "wake_affine may pull a woken task to the waker's CPU")                                    \
  X(bool, SYNC_LESS, true, params::any(), "2.6.32",                                            \
    "drop the sync hint when either task overlaps long")                                       \
  X(bool, SYNC_MORE, false, params::any(), "2.6.32",                                           \
    "add the sync hint when both tasks overlap briefly")                                       \
  X(bool, NEXT_BUDDY, false, params::any(), "2.6.32",                                          \
    "prefer the woken task at the next pick (when loaded)")                                    \
  X(bool, LAST_BUDDY, true, params::any(), "2.6.31-32",                                        \
    "prefer returning the CPU to the task a wake-up preempted")                                \
  X(bool, CACHE_HOT_BUDDY, true, params::any(), "2.6.31-32",                                   \
    "buddies count as cache hot for load balancing")                                           \
  X(bool, ARCH_POWER, false, params::any(), "2.6.32",                                          \
    "architecture CPU power; x86 of the time has none: no effect")                             \
  X(bool, HRTICK, false, params::any(), "2.6.31-32",                                           \
    "not modelled (slices end at jiffy ticks); 1 is rejected")                                 \
  X(bool, DOUBLE_TICK, false, params::any(), "2.6.31-32", "only with HRTICK; no effect")       \
  X(bool, LB_BIAS, true, params::any(), "2.6.31-32",                                           \
    "source/target_load use the cpu_load[] averages")                                          \
  X(bool, LB_SHARES_UPDATE, true, params::any(), "2.6.32",                                     \
    "group-scheduling shares update; no effect on a flat queue")                               \
  X(bool, LB_WAKEUP_UPDATE, true, params::any(), "2.6.31",                                     \
    "group-scheduling shares update; no effect on a flat queue")                               \
  X(bool, ASYM_EFF_LOAD, true, params::any(), "2.6.31-32",                                     \
    "group-scheduling effective load; no effect on a flat queue")                              \
  X(bool, OWNER_SPIN, true, params::any(), "2.6.31-32",                                        \
    "kernel mutex owner spinning; no effect on user-space locks")                              \
  X(int64_t, sched_latency_ns, 5'000'000, params::at_least(0), "2.6.31-32",                    \
    "targeted preemption latency, before scaling by CPU count")                                \
  X(int64_t, sched_min_granularity_ns, 1'000'000, params::at_least(0), "2.6.31-32",            \
    "minimal slice, before scaling by CPU count")                                              \
  X(int64_t, sched_wakeup_granularity_ns, 1'000'000, params::at_least(0), "2.6.31-32",         \
    "wake-up preemption granularity, before scaling by CPU count")                             \
  X(int, sched_tunable_scaling, 1, params::at_least(0), "2.6.36 (model)",                      \
    "scaling of the three above: 0 none, 1 1+ilog2(cpus) (the kernel's), 2 linear")            \
  X(bool, sched_child_runs_first, false, params::any(), "2.6.31-32",                           \
    "a forked child runs before its parent on the same CPU")                                   \
  X(bool, sched_compat_yield, false, params::any(), "2.6.31-32",                               \
    "sched_yield moves the task to the far right")                                             \
  X(int64_t, sched_migration_cost_ns, 500'000, params::at_least(0), "2.6.31-32",               \
    "a task that ran this recently is cache hot")                                              \
  X(int, sched_nr_migrate, 32, params::at_least(0), "2.6.31-32",                               \
    "tasks examined per balancing pass")                                                       \
  X(bool, SD_BALANCE_NEWIDLE, true, params::any(), "2.6.31-32",                                \
    "MC and CPU levels pull when a CPU goes idle")                                             \
  X(bool, SD_BALANCE_FORK, true, params::any(), "2.6.31-32",                                   \
    "forks go to the idlest CPU (all levels)")                                                 \
  X(bool, SD_WAKE_AFFINE, true, params::any(), "2.6.31-32",                                    \
    "wake-ups may move to the waker's CPU (all levels)")                                       \
  X(bool, SD_WAKE_BALANCE, true, params::any(), "2.6.31",                                      \
    "passive balancing at wake-up (all levels)")                                               \
  X(bool, SD_PREFER_SIBLING, true, params::any(), "2.6.32",                                    \
    "MC and CPU levels: idle siblings first")
SCHEDLAB_DECLARE_PARAMS(CfsParams, CFS_PARAMS)

}  // namespace schedlab::cfs
