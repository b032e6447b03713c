// The switches and tunables of EEVDF 6.6 and 6.12, each declared once: the SCHED_FEAT
// switches of kernel/sched/features.h (6.12's order, 6.6's own where 6.6 had them), the
// sysctls before the boot-time scaling, and the domain flags a user may flip. `since`
// names the releases that have it; each preset (presets.cpp) offers its release's. The
// 6.6 list was written from memory of features.h (unverified against the file); 6.12's
// was read from the source.
#pragma once

#include "params/declared.h"

namespace schedlab::eevdf {

#define EEVDF_PARAMS(X)                                                                           \
  X(bool, PLACE_LAG, true, params::any(), "6.6-6.12",                                             \
    "keep a task's lag across sleep and migration")                                               \
  X(bool, PLACE_DEADLINE_INITIAL, true, params::any(), "6.6-6.12",                                \
    "a new task's first slice is halved")                                                         \
  X(bool, PLACE_REL_DEADLINE, true, params::any(), "6.12",                                        \
    "keep the relative deadline on migration")                                                    \
  X(bool, RUN_TO_PARITY, true, params::any(), "6.6-6.12",                                         \
    "no wake-up preemption until curr's slice or 0-lag point")                                    \
  X(bool, PREEMPT_SHORT, true, params::any(), "6.12",                                             \
    "a woken task with a shorter slice may cancel RUN_TO_PARITY")                                 \
  X(bool, NEXT_BUDDY, false, params::any(), "6.6-6.12", "prefer the woken task at the next pick") \
  X(bool, CACHE_HOT_BUDDY, true, params::any(), "6.6-6.12",                                       \
    "buddies count as cache hot for load balancing")                                              \
  X(bool, DELAY_DEQUEUE, true, params::any(), "6.12",                                             \
    "an ineligible sleeper stays queued until picked or woken")                                   \
  X(bool, DELAY_ZERO, true, params::any(), "6.12", "clip a delayed task's positive lag to zero")  \
  X(bool, WAKEUP_PREEMPTION, true, params::any(), "6.6-6.12",                                     \
    "wake-ups may preempt the running task")                                                      \
  X(bool, HRTICK, false, params::any(), "6.6-6.12",                                               \
    "not modelled (slices end at jiffy ticks); 1 is rejected")                                    \
  X(bool, HRTICK_DL, false, params::any(), "6.6-6.12", "deadline hrtick; no effect here")         \
  X(bool, DOUBLE_TICK, false, params::any(), "6.6-6.12", "only with HRTICK; no effect")           \
  X(bool, NONTASK_CAPACITY, true, params::any(), "6.6-6.12",                                      \
    "IRQ time lowers capacity; no IRQs simulated: no effect")                                     \
  X(bool, TTWU_QUEUE, true, params::any(), "6.6-6.12",                                            \
    "remote wake-ups queued by IPI; no effect on the model")                                      \
  X(bool, SIS_PROP, false, params::any(), "6.6", "select_idle_sibling scan limit; not modelled")  \
  X(bool, SIS_UTIL, true, params::any(), "6.6-6.12",                                              \
    "select_idle_sibling scan limit by utilisation; not modelled")                                \
  X(bool, WARN_DOUBLE_CLOCK, false, params::any(), "6.6-6.12", "debugging; no effect")            \
  X(bool, RT_PUSH_IPI, true, params::any(), "6.6-6.12", "RT push by IPI; no effect on the model") \
  X(bool, RT_RUNTIME_SHARE, false, params::any(), "6.6-6.12", "RT throttling; not modelled")      \
  X(bool, LB_MIN, false, params::any(), "6.6-6.12", "balancing minimum; no effect")               \
  X(bool, ATTACH_AGE_LOAD, true, params::any(), "6.6-6.12", "PELT ageing; not modelled")          \
  X(bool, WA_IDLE, true, params::any(), "6.6-6.12", "wake_affine by idleness")                    \
  X(bool, WA_WEIGHT, true, params::any(), "6.6-6.12",                                             \
    "wake_affine by PELT load; not modelled (falls back to prev)")                                \
  X(bool, WA_BIAS, true, params::any(), "6.6-6.12",                                               \
    "wake_affine bias; no effect without WA_WEIGHT")                                              \
  X(bool, UTIL_EST, true, params::any(), "6.6-6.12", "PELT utilisation estimate; not modelled")   \
  X(bool, UTIL_EST_FASTUP, true, params::any(), "6.6", "PELT utilisation estimate; not modelled") \
  X(bool, LATENCY_WARN, false, params::any(), "6.6-6.12", "debugging; no effect")                 \
  X(bool, HZ_BW, true, params::any(), "6.6", "bandwidth timer at HZ; no effect")                  \
  X(int64_t, sched_base_slice_ns, 750'000, params::at_least(0), "6.6-6.12",                       \
    "the slice, before scaling by 1 + ilog2(min(cpus, 8))")                                       \
  X(int, sched_tunable_scaling, 1, params::at_least(0), "6.6-6.12",                               \
    "0 none, 1 logarithmic (default), 2 linear")                                                  \
  X(int64_t, sched_migration_cost_ns, 500'000, params::at_least(0), "6.6-6.12",                   \
    "a task that ran this recently is cache hot")                                                 \
  X(int, sched_nr_migrate, 32, params::at_least(0), "6.6-6.12",                                   \
    "tasks examined per balancing pass")                                                          \
  X(bool, SD_BALANCE_NEWIDLE, true, params::any(), "6.6-6.12",                                    \
    "MC and CPU levels pull when a CPU goes idle")                                                \
  X(bool, SD_BALANCE_FORK, true, params::any(), "6.6-6.12",                                       \
    "forks go to the idlest CPU (all levels)")                                                    \
  X(bool, SD_WAKE_AFFINE, true, params::any(), "6.6-6.12",                                        \
    "wake-ups may move to the waker's CPU (all levels)")
SCHEDLAB_DECLARE_PARAMS(EevdfParams, EEVDF_PARAMS)

}  // namespace schedlab::eevdf
