// The machine's costs beyond the context switch and the migration refill (machine.h): what
// a remote wake-up, an idle CPU, a timer, co-running work and the machine's own background
// activity (kernel threads, interrupts) cost a workload. Each one is 0 (off) by default,
// so a machine file that names none keeps its meaning; machines/*.json cite the source of
// each value they set, and `schedlab calibrate` measures them on the host.
#pragma once

#include <string>
#include <vector>

#include "params/declared.h"
#include "util/types.h"

namespace schedlab {

// The costs that are one number each, declared once (params/declared.h): the key of a
// machine file, its type, default and effect.
#define SCHEDLAB_MACHINE_COSTS(X)                                                             \
  X(int64_t, wakeup_ipi_ns, 0, params::duration(), "schedlab",                                \
    "a wake-up or fork onto another CPU than the waker's: delay before the woken task can "   \
    "run there (the reschedule IPI and its handling)")                                        \
  X(int64_t, wakeup_send_ns, 0, params::duration(), "schedlab",                               \
    "the waker's own time to send that IPI, charged to the waker's work")                     \
  X(int64_t, wakeup_return_ns, 0, params::duration(), "schedlab",                             \
    "a running task's wake-up or fork of another: the rest of that system call and its "      \
    "return, the waker's CPU time before its next step; its CPU switches to another task "    \
    "(the woken one preempting it, or its own block) only after it")                          \
  X(int64_t, wakeup_refill_ns, 0, params::duration(), "schedlab",                             \
    "first run after a task woke or forked it onto a CPU sharing no cache with the waker's: " \
    "the data the waker handed over (a message, a socket buffer, a thread's start) refilled") \
  X(int64_t, timer_overshoot_ns, 0, params::duration(), "schedlab",                           \
    "a timed sleep (sleep, timer, spinlock back-off) ends this much after its expiry "        \
    "(hrtimer slack and the interrupt's delivery)")                                           \
  X(int64_t, timer_resched_ns, 0, params::duration(), "schedlab",                             \
    "a timer's wake-up on its own CPU: delay before the woken task is switched in (the rest " \
    "of the timer interrupt, its exit and schedule(); what a trace shows from the "           \
    "sched_waking to the sched_switch)")                                                      \
  X(int64_t, tick_restart_ns, 0, params::duration(), "schedlab",                              \
    "a timer's wake-up on its own CPU after it idled a tick or more (NO_HZ_IDLE stopped the " \
    "tick): restarting the tick on the way out of the idle loop, before the switch")          \
  X(double, shared_cache_slowdown, 0.0, params::range(0, 16), "schedlab",                     \
    "`run` work of a task of memory_intensity m slows to 1 / (1 + this x m x the sum of the " \
    "memory_intensity of the tasks running on CPUs that share its cache)")                    \
  X(double, smt_slowdown, 0.0, params::range(0, 16), "schedlab",                              \
    "`run` work slows to 1 / (1 + this x the number of busy SMT siblings), whatever its "     \
    "memory intensity (shared execution units)")
SCHEDLAB_DECLARE_PARAMS(MachineCosts, SCHEDLAB_MACHINE_COSTS)

// One idle state (a C-state): a CPU that has idled at least idle_ns is in it, and leaving it
// takes exit_ns. As acpi_idle/intel_idle list them: exit_latency, target_residency; the
// menu governor's prediction of the idle time is taken to be the idle time itself.
struct IdleState {
  std::string name;
  Time idle_ns = 0;
  Time exit_ns = 0;
};

// A source of background noise: one task per CPU of `cpus`, pinned there and named like
// the kernel thread it stands for, that sleeps an exponentially distributed gap (a Poisson
// arrival process of rate_hz) and then runs an exponentially distributed burst.
#define SCHEDLAB_BACKGROUND_PARAMS(X)                                                              \
  X(std::string, name, "kworker/{cpu}", params::any(), "schedlab",                                 \
    "the tasks' name; {cpu} is replaced by the CPU number (as a kernel thread's name)")            \
  X(params::CpuList, cpus, std::nullopt, params::any(), "schedlab",                                \
    "the CPUs with such a task (absent: every CPU)")                                               \
  X(double, rate_hz, 100.0, params::range(0, 1e6), "schedlab",                                     \
    "bursts per second on each CPU (the mean gap is 1/rate)")                                      \
  X(int64_t, burst_ns, 20000, params::duration(), "schedlab", "mean length of a burst")            \
  X(int64_t, burst_max_ns, 0, params::duration(), "schedlab",                                      \
    "longest burst: longer draws are cut here (0: 10 x burst_ns)")                                 \
  X(std::string, policy, "SCHED_OTHER", params::one_of({"SCHED_OTHER", "SCHED_FIFO"}), "schedlab", \
    "the tasks' policy (kernel threads are SCHED_OTHER, threaded IRQs SCHED_FIFO)")                \
  X(int, priority, 0, params::range(-20, 99), "schedlab",                                          \
    "nice for SCHED_OTHER (2.6 kthreads ran at -5), RT priority 1..99 for SCHED_FIFO")
SCHEDLAB_DECLARE_PARAMS(BackgroundSource, SCHEDLAB_BACKGROUND_PARAMS)

}  // namespace schedlab
