// Workload programs: what every task runs, in the event vocabulary of rt-app plus the
// few events the seed workloads need. Generators and the rt-app reader produce these
// values; the simulator and the host runner execute them. Nothing here knows a policy.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "util/types.h"

namespace schedlab {

enum class Op : uint8_t {
  kRun,      // fixed work in ns at capacity 1024: a slower CPU stretches it
  kRuntime,  // busy until this much wall-clock time has passed since the step began
  kSleep,    // relative sleep
  kTimer,    // rt-app timer: sleep until the timer's next period boundary
  kLock,     // blocking mutex
  kUnlock,
  kWait,       // condvar wait, releasing and retaking `mutex`
  kSignal,     // wake one condvar waiter
  kBroadcast,  // wake every condvar waiter
  kSync,       // signal, then wait (rt-app "sync")
  kBarrier,    // all tasks naming the barrier meet
  kSuspend,    // wait on a named queue until a resume (a resume with no waiter is lost)
  kResume,     // wake every task suspended on the named queue
  kYield,      // sched_yield()
  kFork,       // start a new instance of a named task
  kMem,        // write `amount` bytes of memory (CPU work at the machine's bandwidth)
  kIoRun,      // write `amount` bytes to a device (modelled like kMem)
  kSpinLock,   // userland spinlock: spin, then yield/sleep/block as configured
  kSpinUnlock,
  kAdvance,       // add `amount` to a progress counter
  kWaitProgress,  // block until a progress counter reaches `amount`
  kMark,          // count `amount` application events (frames, transactions)
  kSemPost,       // add `amount` to a counting semaphore (a message sent, buffer space freed)
  kSemWait,       // take `amount` from a semaphore, blocking until it holds that much
                  // (after one sleep of duration_ns, when that is set and it must wait)
  // PostgreSQL 8.4's LWLock (src/sim/lwlock.h), `amount` its LwLockMode. Each follows a
  // spin_lock of the LWLock's mutex spinlock (workload lwlock_mutex) and releases it;
  // append_lwlock_acquire/release (workload/lwlock_steps.h) write the sequence.
  kLwLockAcquire,
  kLwLockRelease,
  // MySQL 5.1's InnoDB rw-lock (src/sim/innodb_rw_lock.h), `amount` its LwLockMode. Each
  // follows a spin_lock of the rw-lock's own InnoDB mutex (workload innodb_rwlock_mutex)
  // and releases it; append_innodb_rw_lock/unlock (workload/innodb_rw_lock_steps.h) write
  // the sequence.
  kInnodbRwLock,
  kInnodbRwUnlock,
};

// The mode of a PostgreSQL LWLock and of an InnoDB rw-lock.
enum class LwLockMode : uint8_t { kShared = 0, kExclusive = 1 };

const char* op_name(Op op);

struct Step {
  Op op = Op::kRun;
  Time duration_ns = 0;   // run, runtime, sleep; timer period; sem_wait's sleep first
  int64_t amount = 0;     // bytes (mem, iorun), counter delta or target, mark count
  int32_t object = -1;    // index into the workload's table for this kind of object
  int32_t mutex = -1;     // the mutex of wait and sync
  bool absolute = false;  // timer mode
  bool sync = false;      // sem_post: a sync wake-up (the poster is about to block, as a
                          // pipe or socket write followed by a read)
  bool recheck = false;   // wait_progress: a condition-variable waiter woken by every
                          // advance (pthread_cond_broadcast), which re-checks its target
                          // and waits again if it is not met
};

// What to do once a spinlock's spinning has failed (docs/workloads/oltp.md). kSleep:
// PostgreSQL's s_lock back-off. kBlock: block until the unlock hands the lock over (a
// futex-style queue). kEvent: InnoDB 5.0/5.1's mutex_spin_wait: spin_rounds random delay
// rounds, yield_rounds sched_yields each followed by one test-and-set, then block on the
// lock's event; every unlock wakes all such waiters and gives none the lock, and each
// starts its acquisition over.
enum class SpinFallback : uint8_t { kSleep, kBlock, kEvent };

// Defaults: the sleep schedule is PostgreSQL 8.x s_lock.c (MIN_DELAY_USEC 1 ms,
// MAX_DELAY_USEC 1 s, NUM_DELAYS 1000, cur_delay grows by up to 100 %). spin_ns is a
// judgement: PostgreSQL spins spins_per_delay (10..1000, adaptive) TAS rounds instead,
// which tas_round_ns > 0 models.
// One TAS + PAUSE round of PostgreSQL 8.4's s_lock spin loop: an assumption (no source
// gives it), the default of LWLock mutexes in rt-app files and of the pgsql generator.
inline constexpr Time kDefaultTasRoundNs = 50;

struct SpinLockConfig {
  Time spin_ns = 10 * kNsPerUs;  // CPU time spent spinning per attempt
  // > 0: spin the task's spins_per_delay rounds of this cost instead of spin_ns, adapted as
  // PostgreSQL 8.4's s_lock does (engine_program.cpp, step_spin_lock).
  Time tas_round_ns = 0;
  int yield_rounds = 0;  // spin-then-sched_yield rounds before the fallback
  SpinFallback fallback = SpinFallback::kSleep;
  // kEvent's spin phase, instead of spin_ns: spin_rounds rounds, each a busy delay of
  // uniform{0..round_delay_max} units of delay_unit_ns (InnoDB's SYNC_SPIN_ROUNDS,
  // srv_spin_wait_delay and ut_delay's loop; the generator's defaults cite them).
  int spin_rounds = 0;
  int round_delay_max = 0;
  Time delay_unit_ns = 0;
  // kSleep: PostgreSQL s_lock back-off. First sleep sleep_min_ns, each next one grows
  // by a random factor in [1, 1 + growth_max_percent/100], wrapping to the minimum once
  // past sleep_max_ns; after max_sleeps sleeps the run stops ("stuck spinlock").
  Time sleep_min_ns = kNsPerMs;
  Time sleep_max_ns = kNsPerSec;
  int growth_max_percent = 100;
  int max_sleeps = 1000;
};

struct SchedSettings {
  SchedPolicy policy = SchedPolicy::kOther;
  int nice = 0;         // SCHED_OTHER / BATCH / IDLE
  int rt_priority = 0;  // SCHED_FIFO / RR: 1..99
  Time dl_runtime_ns = 0, dl_deadline_ns = 0, dl_period_ns = 0;
  // sched_setattr's utilization clamps (uclamp, 0..1024; -1: not set), as rt-app's
  // util_min/util_max. Recorded only: the model has no PELT or frequency scaling.
  int util_min = -1, util_max = -1;
};

// What sched_setattr() finds unchanged between the settings a thread has and new ones
// (__sched_setscheduler() then returns at once): the policy, nice and RT priority; a
// deadline task's runtime, deadline and period (dl_param_changed()); and where the kernel
// has custom slices (6.12), an OTHER/BATCH task's slice (rt-app's dl-runtime).
bool sched_settings_unchanged(const SchedSettings& now, const SchedSettings& next,
                              bool custom_slices);

struct Phase {
  std::string name;
  int64_t loop = 1;
  std::optional<std::vector<int>> cpus;  // overrides the task's affinity for this phase
  std::optional<SchedSettings> sched;    // overrides the task's policy for this phase
  // Overrides the task's memory intensity for this phase (1/1024ths); -1: the task's.
  int memory_intensity_q10 = -1;
  // rt-app's taskgroup (a cgroup path such as "/tg1") from this phase on, and its
  // nodes_membind (NUMA nodes); recorded, see TaskSpec.
  std::optional<std::string> taskgroup;
  std::optional<std::vector<int>> nodes_membind;
  std::vector<Step> steps;
};

struct TaskSpec {
  std::string name;
  int instances = 1;  // 0: only started by a fork event
  int64_t loop = -1;  // -1: forever
  SchedSettings sched;
  std::optional<std::vector<int>> cpus;
  Time delay_ns = 0;
  // How memory-heavy its `run` work is, 0..1024 (1024 = 1.0): how much it slows, and is
  // slowed by, tasks on CPUs sharing its cache (machine cost shared_cache_slowdown).
  int memory_intensity_q10 = 0;
  // Not part of the workload: the machine's own noise (a kernel thread, interrupts), added
  // by the engine from the machine's "background"; it keeps no run alive.
  bool background = false;
  // rt-app's taskgroup ("" none: the root group) and nodes_membind. The model has no
  // group scheduling and no NUMA nodes: the scenario reader says where that matters.
  std::string taskgroup;
  std::optional<std::vector<int>> nodes_membind;
  std::vector<Phase> phases;
};

// Named objects are interned per kind; steps refer to them by index. Hashed, so that
// building a workload of many objects (24,000 x264 frames) stays linear.
struct NameTable {
  std::vector<std::string> names;  // by index; grown only by intern()
  std::unordered_map<std::string, int32_t> index;
  int32_t intern(const std::string& name);
  int32_t find(const std::string& name) const;
  size_t size() const { return names.size(); }
};

struct Workload {
  std::vector<TaskSpec> tasks;
  NameTable mutexes, condvars, barriers, suspend_queues, counters, marks, timers, spinlocks,
      semaphores;
  std::vector<int64_t> semaphore_initial;  // per semaphore (grown with the table; default 0)
  std::vector<bool> timer_unique;          // per timer: one per task instance ("unique…" refs)
  // Per timer: its grid's origin in ns from the run's start (origin_ns); none: rt-app's,
  // the first user's start (t_zero + delay).
  std::vector<std::optional<Time>> timer_origin_ns;
  std::optional<Time> timer_origin(int32_t timer) const {
    return static_cast<size_t>(timer) < timer_origin_ns.size()
               ? timer_origin_ns[static_cast<size_t>(timer)]
               : std::nullopt;
  }
  std::vector<int> barrier_users;            // per barrier: task instances that use it
  std::vector<SpinLockConfig> spin_configs;  // per spinlock
  NameTable lwlocks;
  std::vector<int32_t> lwlock_mutex;  // per LWLock: its mutex, a spinlock
  NameTable innodb_rwlocks;
  std::vector<int32_t> innodb_rwlock_mutex;  // per rw-lock: its mutex, a spinlock
  // Per rw-lock: its spin phase (spin_rounds, round_delay_max, delay_unit_ns), an index
  // into spin_configs; the server's one setting for every latch.
  std::vector<int64_t> innodb_rwlock_spin_config;
};

}  // namespace schedlab
