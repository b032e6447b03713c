// The engine's program side: stepping a running task through its workload program and
// the synchronisation objects the steps use. Steps that take no time run back to back
// while the task is on a CPU; a CPU burst or a block ends the sequence.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/engine.h"
#include "util/error.h"

namespace schedlab {
namespace {

// More zero-time steps at one instant than this means the program loops without
// ever consuming time (for example a loop of only marks or yields on an idle machine).
constexpr uint64_t kMaxStepsPerInstant = 10'000'000;
// What a step costs of that budget. A yield reschedules (so a yield-only loop must be
// caught before schedule()'s own livelock guard of 1,000,000 rescheduling rounds, which
// means a broken policy), and a fork creates a task, so both weigh more than a mark:
// 100,000 yields or 10,000 forks at one instant are no progress either.
constexpr uint64_t kYieldWeight = 100;
constexpr uint64_t kForkWeight = 1000;

uint64_t weight_of(Op op) {
  return op == Op::kYield ? kYieldWeight : op == Op::kFork ? kForkWeight : 1;
}

// InnoDB 5.0/5.1 mutex_spin_wait's spin phase (sync0sync.c; MySQL 5.1.45
// dolphinsboy/mysql-5.1.45 @5dccbbe05b49, the same in 5.0.96 zeroli/mysql-5.0.96-annotation
// @1f3d7d439294): spin_rounds rounds, each ut_delay(ut_rnd_interval(0, round_delay_max)),
// i.e. a uniform 0..round_delay_max units of delay_unit_ns. The delays are drawn here, when
// the spin starts, from the engine's seeded source, so that runs stay deterministic.
Time innodb_spin(const SpinLockConfig& cfg, Rng& rng) {
  if (cfg.round_delay_max <= 0 || cfg.delay_unit_ns <= 0) return 0;
  Time units = 0;
  for (int r = 0; r < cfg.spin_rounds; ++r)
    units += static_cast<Time>(rng.below(static_cast<uint64_t>(cfg.round_delay_max) + 1));
  return units * cfg.delay_unit_ns;
}

}  // namespace

void Engine::advance_program(CpuId cpu) {
  Task& t = *cpu_curr_[cpu];
  Exec& x = execs_[t.id];
  account(cpu);
  while (true) {
    if (x.burst != Burst::kNone) {
      arm_burst(cpu);
      return;
    }
    if (now_ != steps_instant_) {
      steps_instant_ = now_;
      steps_at_instant_ = 0;
    }
    if (!next_step(t, x)) return;
    const Step& s = x.spec->phases[x.phase].steps[x.step];
    steps_at_instant_ += weight_of(s.op);
    if (steps_at_instant_ > kMaxStepsPerInstant)
      throw WorkloadError(fmt::format(
          "task {} makes no progress at {} ns: its program loops without consuming time", t.name,
          now_));
    if (execute_step(cpu, t, x, s) == StepResult::kStop) return;
    // A step that woke a task which preempts this one was a system call: the kernel
    // switches at its return to user space, before the next step (a re-taken lock, a
    // second post), and this task goes on from there when it runs again; a return cost
    // (wakeup_return_ns) is spent first, as the stall it is. A reschedule still on its way
    // from another CPU (an IPI) leaves the task running meanwhile.
    if (const Cpu& c = cpus_[cpu]; c.need_resched && (!c.ipi_pending || c.resched_at_return))
      return;
  }
}

// Moves past the end of a phase iteration, a phase and the task's loop as needed.
bool Engine::next_step(Task& t, Exec& x) {
  const TaskSpec& spec = *x.spec;
  if (x.step == spec.phases[x.phase].steps.size()) {
    x.step = 0;
    if (++x.phase_iter >= spec.phases[x.phase].loop) {
      x.phase_iter = 0;
      if (++x.phase == spec.phases.size()) {
        x.phase = 0;
        ++x.task_iter;
        if (spec.loop >= 0 && x.task_iter >= spec.loop) {
          exit_task(t);
          return false;
        }
      }
    }
  }
  if (x.step == 0) {
    // a forked thread's delay, before its first phase (rt-app's thread_body); a
    // clock_nanosleep to a time already past returns at once
    if (x.start_at >= 0) {
      const Time until = x.start_at;
      x.start_at = -1;
      if (until > now_) {
        sleep_until(t, until, BlockReason::kSleep);
        return false;
      }
    }
    if (corun_) {
      const Phase& p = spec.phases[x.phase];
      set_memory_intensity(
          t.cpu, x,
          p.memory_intensity_q10 >= 0 ? p.memory_intensity_q10 : spec.memory_intensity_q10);
    }
    return enter_phase(t, x);
  }
  return true;
}

namespace {
// The settings a task has now, as a phase without its own keeps them.
SchedSettings current_settings(const Task& t) {
  SchedSettings s;
  s.policy = t.policy;
  s.nice = t.nice;
  s.rt_priority = t.rt_priority;
  if (t.policy == SchedPolicy::kDeadline) {
    s.dl_runtime_ns = t.dl_runtime_ns;
    s.dl_deadline_ns = t.dl_deadline_ns;
    s.dl_period_ns = t.dl_period_ns;
  } else {
    s.dl_runtime_ns = t.custom_slice_ns;
  }
  return s;
}
}  // namespace

// rt-app applies a phase's affinity and policy at the start of each of its iterations.
bool Engine::enter_phase(Task& t, Exec& x) {
  const PhaseAttributes& attributes = phase_attributes(*x.spec, x.phase);
  const CpuMask& mask = attributes.first;  // clang 14 cannot capture a structured binding
  const std::optional<SchedSettings>& phase_sched = attributes.second;
  // rt-app's thread_body applies the task's settings when the thread starts, after its
  // delay, then the phase's own; a phase without any keeps the thread's.
  const SchedSettings* sched = phase_sched ? &*phase_sched : nullptr;
  if (x.own_attrs_due) {
    x.own_attrs_due = false;
    if (!sched) sched = &x.spec->sched;
  }
  const auto change = [&](const SchedSettings& s) {
    x.attrs_pending = true;
    x.pending_allowed = mask;
    x.pending_sched = s;
    resched(t.cpu);
    return false;
  };
  if (!sched) return mask == t.allowed || change(current_settings(t));
  const SchedSettings now = current_settings(t);
  if (!sched_settings_unchanged(now, *sched, class_of(t).custom_slices())) return change(*sched);
  return mask == t.allowed || change(now);
}

void Engine::start_work(Exec& x, Burst kind, Time amount) {
  x.burst = kind;
  if (kind == Burst::kWork) x.work_scaled = static_cast<Int128>(amount) * 1024;
  if (kind == Burst::kRuntime) x.runtime_end = now_ + amount;
}

// One step of the program. The spinlock step is done only once the lock is taken; every
// other step is done as it starts, whatever it then waits for.
Engine::StepResult Engine::execute_step(CpuId cpu, Task& t, Exec& x, const Step& s) {
  if (s.op == Op::kSpinLock) return step_spin_lock(cpu, t, x, s);
  ++x.step;
  switch (s.op) {
    case Op::kRun:
      x.c_duration_ns += s.duration_ns;
      return step_work(x, Burst::kWork, s.duration_ns);
    case Op::kMem:
    case Op::kIoRun: {
      const int64_t per_us = machine_ref_.memory_bytes_per_us;
      return step_work(x, Burst::kWork, (s.amount * 1000 + per_us - 1) / per_us);
    }
    case Op::kRuntime:
      x.c_duration_ns += s.duration_ns;
      return step_work(x, Burst::kRuntime, s.duration_ns);
    case Op::kSleep:
      if (s.duration_ns == 0) return StepResult::kContinue;
      sleep_until(t, now_ + s.duration_ns, BlockReason::kSleep);
      return StepResult::kStop;
    case Op::kTimer:
      return step_timer(t, x, s);
    case Op::kLock:
      return mutex_lock(t, s.object) ? StepResult::kContinue : StepResult::kStop;
    case Op::kUnlock:
      mutex_unlock(t, s.object, "unlock");
      return StepResult::kContinue;
    case Op::kWait:
      wait_on_condvar(t, s.object, s.mutex);
      return StepResult::kStop;
    case Op::kSignal:
      signal_one(s.object, t);
      return StepResult::kContinue;
    case Op::kBroadcast:
      while (!sync_.condvars[s.object].waiters.empty()) signal_one(s.object, t);
      return StepResult::kContinue;
    case Op::kSync:
      signal_one(s.object, t);
      wait_on_condvar(t, s.object, s.mutex);
      return StepResult::kStop;
    case Op::kBarrier:
      return step_barrier(cpu, t, s);
    case Op::kSuspend:
      sync_.suspended[s.object].push_back(t.id);
      block(t, BlockReason::kSuspend, s.object);
      return StepResult::kStop;
    case Op::kResume: {
      std::vector<TaskId> waiters = std::move(sync_.suspended[s.object]);
      sync_.suspended[s.object].clear();
      wake_all(waiters, cpu, t);
      return StepResult::kContinue;
    }
    case Op::kYield:
      class_of(t).yield(cpu);  // the task's class: RT to the tail, a deadline job ends...
      resched(cpu);
      return StepResult::kStop;
    case Op::kFork: {
      const TaskSpec& target = workload_.tasks[s.object];
      const int k = target.instances + fork_counts_[s.object]++;
      create_task(s.object, fmt::format("{}-{}", target.name, k), &t);
      return StepResult::kContinue;
    }
    case Op::kSpinLock:  // handled above
      break;
    case Op::kSpinUnlock:
      spin_unlock(t, s.object);
      return StepResult::kContinue;
    case Op::kAdvance:
      return step_advance(cpu, t, s);
    case Op::kWaitProgress:
      return step_wait_progress(t, s);
    case Op::kMark:
      emit({now_, EventType::kMark, 0, cpu, t.id, kNoTask, s.object, s.amount});
      return StepResult::kContinue;
    case Op::kSemPost:
      return step_sem_post(cpu, t, s);
    case Op::kSemWait:
      return step_sem_wait(t, x, s);
    case Op::kLwLockAcquire:
      --x.step;  // done only once the lock is taken
      return step_lwlock_acquire(t, x, s);
    case Op::kLwLockRelease:
      return step_lwlock_release(cpu, t, s);
    case Op::kInnodbRwLock:
      --x.step;  // done only once the lock is taken
      return step_innodb_rw_lock(cpu, t, x, s);
    case Op::kInnodbRwUnlock:
      return step_innodb_rw_unlock(cpu, t, s);
  }
  return StepResult::kContinue;
}

Engine::StepResult Engine::step_work(Exec& x, Burst kind, Time amount) {
  if (amount == 0) return StepResult::kContinue;
  start_work(x, kind, amount);
  return StepResult::kBurst;
}

// rt-app's timer: sleep to the next expiry of a shared or per-thread timer; a late timer
// does not sleep, and in relative mode restarts its period from now. Its grid starts at
// the first user's t_first, or at the timer's origin_ns.
Engine::StepResult Engine::step_timer(Task& t, Exec& x, const Step& s) {
  const Time origin = workload_.timer_origin(s.object).value_or(x.t_first);
  Time* next = nullptr;
  bool* started = nullptr;
  bool unique_started = true;
  if (workload_.timer_unique[s.object]) {
    auto it = std::find_if(x.unique_timers.begin(), x.unique_timers.end(),
                           [&](const auto& p) { return p.first == s.object; });
    if (it == x.unique_timers.end()) {
      x.unique_timers.emplace_back(s.object, origin);
      it = x.unique_timers.end() - 1;
    }
    next = &it->second;
    started = &unique_started;
  } else {
    TimerState& ts = sync_.timers[s.object];
    next = &ts.next;
    started = &ts.started;
  }
  if (!*started) {
    *started = true;
    *next = origin;
  }
  *next += s.duration_ns;
  // rt-app's timing point: slack = t_next - now, c_period and c_duration of the iteration.
  emit({now_, EventType::kTimer, 0, t.cpu, t.id,
        static_cast<TaskId>(std::min<Time>(x.c_duration_ns / kNsPerUs, INT32_MAX)),
        static_cast<int32_t>(std::min<Time>(s.duration_ns / kNsPerUs, INT32_MAX)), *next});
  x.c_duration_ns = 0;
  notify_period_done(t, now_ >= *next);  // the period's work is done (a deadline job ends)
  if (now_ < *next) {
    sleep_until(t, *next, BlockReason::kTimer);
    return StepResult::kStop;
  }
  if (!s.absolute) *next = now_;  // relative mode: a late period restarts from now
  return StepResult::kContinue;
}

Engine::StepResult Engine::step_barrier(CpuId cpu, Task& t, const Step& s) {
  BarrierState& b = sync_.barriers[s.object];
  if (b.arrived + 1 >= workload_.barrier_users[s.object]) {
    std::vector<TaskId> waiters = std::move(b.waiters);
    b.waiters.clear();
    b.arrived = 0;
    wake_all(waiters, cpu, t);
    return StepResult::kContinue;
  }
  ++b.arrived;
  b.waiters.push_back(t.id);
  block(t, BlockReason::kBarrier, s.object);
  return StepResult::kStop;
}

void Engine::wake_all(const std::vector<TaskId>& waiters, CpuId cpu, const Task& waker) {
  for (TaskId id : waiters) wake(tasks_[id], WakeInfo{WakeKind::kWakeup, cpu, false}, waker.id);
}

// Take the spinlock if it is free, else spin (a CPU burst), or give up at once.
Engine::StepResult Engine::step_spin_lock(CpuId cpu, Task& t, Exec& x, const Step& s) {
  SpinLockState& lock = sync_.spinlocks[s.object];
  const SpinLockConfig& cfg = workload_.spin_configs[s.amount];
  if (lock.owner == kNoTask) lock.owner = t.id;
  if (lock.owner == t.id) {
    ++x.step;
    // PostgreSQL 8.4 s_lock.c (REL8_4_STABLE @da22ea6dc964, lines 146-156; the bounds
    // at 89-90): once s_lock has the lock, a backend that got
    // it without sleeping spins longer next time (+100, at most MAX_SPINS_PER_DELAY 1000),
    // one that slept spins a little less (-1, at least MIN_SPINS_PER_DELAY 10). An
    // uncontended S_LOCK (its first TAS succeeds) never calls s_lock and adapts nothing.
    if (cfg.tas_round_ns > 0 && x.spin_contended)
      x.spins_per_delay = x.spin_sleeps == 0 ? std::min(x.spins_per_delay + 100, 1000)
                                             : std::max(x.spins_per_delay - 1, 10);
    x.spin_contended = false;
    x.spin_yields = x.spin_sleeps = 0;
    x.spin_delay = 0;
    return StepResult::kContinue;
  }
  // The holder is runnable but off its CPU: the lock stays held for its whole wait.
  if (const Task& holder = tasks_[lock.owner]; holder.runnable && !holder.on_cpu) {
    Exec& hx = execs_[holder.id];
    if (!hx.holder_episode_counted) {
      hx.holder_episode_counted = true;
      emit({now_, EventType::kHolderPreempted, 0, cpu, holder.id, t.id, s.object, 0});
    }
  }
  x.spin_contended = true;
  // InnoDB (kEvent): back from a sched_yield the task makes one test-and-set and spins
  // no more; that test-and-set has just failed.
  if (cfg.fallback == SpinFallback::kEvent && x.spin_yields > 0) {
    spin_attempt_failed(cpu, t, x);
    return StepResult::kStop;
  }
  // 8.4 spins spins_per_delay TAS + PAUSE rounds before each sleep (the cost of one round
  // is the config's assumption); InnoDB spin_rounds random delays; the other policies spin
  // a fixed time.
  const Time spin = cfg.fallback == SpinFallback::kEvent ? innodb_spin(cfg, *rng_)
                    : cfg.tas_round_ns > 0               ? x.spins_per_delay * cfg.tas_round_ns
                                                         : cfg.spin_ns;
  if (spin == 0) {
    spin_attempt_failed(cpu, t, x);
    return StepResult::kStop;
  }
  x.burst = Burst::kSpin;
  x.spin_left = spin;
  lock.spinners.push_back(t.id);
  return StepResult::kBurst;  // the step is done once the lock is ours
}

// An advance wakes the waiters whose target it reaches; a recheck waiter (a condition
// variable broadcast, as x264_frame_cond_broadcast) wakes whatever its target, and one
// not yet satisfied goes back to its wait step to check again and sleep.
Engine::StepResult Engine::step_advance(CpuId cpu, Task& t, const Step& s) {
  CounterState& c = sync_.counters[s.object];
  c.value += s.amount;
  auto woken_begin = std::stable_partition(
      c.waiters.begin(), c.waiters.end(),
      [&](const CounterWaiter& w) { return w.target > c.value && !w.recheck; });
  std::vector<CounterWaiter> woken(woken_begin, c.waiters.end());
  c.waiters.erase(woken_begin, c.waiters.end());
  for (const CounterWaiter& w : woken) {
    if (w.target > c.value) --execs_[w.task].step;  // back to its wait_progress step
    wake(tasks_[w.task], WakeInfo{WakeKind::kWakeup, cpu, false}, t.id);
  }
  return StepResult::kContinue;
}

Engine::StepResult Engine::step_wait_progress(Task& t, const Step& s) {
  CounterState& c = sync_.counters[s.object];
  if (c.value >= s.amount) return StepResult::kContinue;
  c.waiters.push_back(CounterWaiter{t.id, s.amount, s.recheck});
  block(t, BlockReason::kProgress, s.object);
  return StepResult::kStop;
}

Engine::StepResult Engine::step_sem_post(CpuId cpu, Task& t, const Step& s) {
  SemaphoreState& sem = sync_.semaphores[s.object];
  sem.value += s.amount;
  // Waiters take what they need in arrival order; the first that cannot stops the rest.
  while (!sem.waiters.empty() && sem.value >= sem.waiters.front().second) {
    const auto [id, need] = sem.waiters.front();
    sem.waiters.pop_front();
    sem.value -= need;
    wake(tasks_[id], WakeInfo{WakeKind::kWakeup, cpu, s.sync}, t.id);
  }
  return StepResult::kContinue;
}

// A wait that cannot be served at once queues, in arrival order. With a sleep first
// (duration_ns, InnoDB's srv_conc_enter_innodb: sleep once, then try again before joining
// the queue) the task sleeps once and the step starts over; the queue comes only after.
Engine::StepResult Engine::step_sem_wait(Task& t, Exec& x, const Step& s) {
  SemaphoreState& sem = sync_.semaphores[s.object];
  if (sem.waiters.empty() && sem.value >= s.amount) {
    sem.value -= s.amount;
    x.sem_slept = false;
    return StepResult::kContinue;
  }
  if (s.duration_ns > 0 && !x.sem_slept) {
    x.sem_slept = true;
    --x.step;  // tried again when the sleep ends
    sleep_until(t, now_ + s.duration_ns, BlockReason::kSleep);
    return StepResult::kStop;
  }
  x.sem_slept = false;
  sem.waiters.emplace_back(t.id, s.amount);
  block(t, BlockReason::kSemaphore, s.object);
  return StepResult::kStop;
}

void Engine::sleep_until(Task& t, Time when, BlockReason reason) {
  block(t, reason, -1);
  Exec& x = execs_[t.id];
  agenda_.push(when + machine_ref_.costs.timer_overshoot_ns, AgendaKind::kTaskWake, t.id,
               ++x.wake_generation);
  if (!x.spec->background) ++workload_timers_;
}

bool Engine::mutex_lock(Task& t, int32_t m) {
  MutexState& mutex = sync_.mutexes[m];
  if (mutex.owner == kNoTask) {
    mutex.owner = t.id;
    return true;
  }
  if (mutex.owner == t.id)
    throw WorkloadError(fmt::format("task {} locks mutex '{}', which it already holds (deadlock)",
                                    t.name, workload_.mutexes.names[m]));
  mutex.waiters.push_back(t.id);
  block(t, BlockReason::kMutex, m);
  return false;
}

// Mutexes hand off: unlock gives the mutex to the first waiter, in FIFO order.
void Engine::mutex_unlock(Task& t, int32_t m, const char* what) {
  MutexState& mutex = sync_.mutexes[m];
  if (mutex.owner != t.id)
    throw WorkloadError(fmt::format("task {} does {} on mutex '{}', which it does not hold ({})",
                                    t.name, what, workload_.mutexes.names[m],
                                    mutex.owner == kNoTask
                                        ? std::string("it is free")
                                        : "held by " + tasks_[mutex.owner].name));
  if (mutex.waiters.empty()) {
    mutex.owner = kNoTask;
    return;
  }
  const TaskId next = mutex.waiters.front();
  mutex.waiters.pop_front();
  mutex.owner = next;
  wake(tasks_[next], WakeInfo{WakeKind::kWakeup, t.cpu, false}, t.id);
}

void Engine::wait_on_condvar(Task& t, int32_t condvar, int32_t mutex) {
  mutex_unlock(t, mutex, "wait");
  sync_.condvars[condvar].waiters.emplace_back(t.id, mutex);
  block(t, BlockReason::kCondvar, condvar);
}

// A signalled waiter must retake its mutex before it can run on.
void Engine::signal_one(int32_t condvar, const Task& waker) {
  auto& waiters = sync_.condvars[condvar].waiters;
  if (waiters.empty()) return;  // a signal with nobody waiting is lost, as with pthreads
  const auto [id, m] = waiters.front();
  waiters.pop_front();
  MutexState& mutex = sync_.mutexes[m];
  if (mutex.owner == kNoTask) {
    mutex.owner = id;
    wake(tasks_[id], WakeInfo{WakeKind::kWakeup, waker.cpu, false}, waker.id);
  } else {
    mutex.waiters.push_back(id);
    execs_[id].block_reason = BlockReason::kMutex;
    execs_[id].block_object = m;
  }
}

void Engine::spin_unlock(Task& t, int32_t l) {
  SpinLockState& lock = sync_.spinlocks[l];
  if (lock.owner != t.id)
    throw WorkloadError(fmt::format("task {} unlocks spinlock '{}', which it does not hold", t.name,
                                    workload_.spinlocks.names[l]));
  lock.owner = kNoTask;
  // A spinner that is on a CPU right now sees the lock free first; else a kBlock waiter
  // is handed it (so a kBlock waiter goes before woken kEvent waiters on a shared lock).
  bool taken = false;
  for (auto it = lock.spinners.begin(); it != lock.spinners.end(); ++it) {
    Task& s = tasks_[*it];
    if (!s.on_cpu || s.id == t.id) continue;
    lock.owner = s.id;
    lock.spinners.erase(it);
    account(s.cpu);
    execs_[s.id].spin_left = 0;
    arm_burst(s.cpu);
    taken = true;
    break;
  }
  if (!taken && !lock.blocked.empty()) {
    const TaskId next = lock.blocked.front();
    lock.blocked.pop_front();
    lock.owner = next;
    wake(tasks_[next], WakeInfo{WakeKind::kWakeup, t.cpu, false}, t.id);
  }
  // InnoDB's mutex_exit frees the word first, then os_event_set broadcasts: every kEvent
  // waiter wakes without the lock and starts its acquisition over (os0sync.c, 5.1.45 and
  // 5.0.96 as above), after the lock has found its taker. Woken in place and erased after,
  // so the list keeps its capacity on this path taken at every unlock.
  const size_t sleepers = lock.event_waiters.size();
  for (size_t i = 0; i < sleepers; ++i)
    wake(tasks_[lock.event_waiters[i]], WakeInfo{WakeKind::kWakeup, t.cpu, false}, t.id);
  lock.event_waiters.erase(lock.event_waiters.begin(),
                           lock.event_waiters.begin() + static_cast<std::ptrdiff_t>(sleepers));
}

void Engine::spin_attempt_failed(CpuId cpu, Task& t, Exec& x) {
  const Step& s = x.spec->phases[x.phase].steps[x.step];
  SpinLockState& lock = sync_.spinlocks[s.object];
  std::erase(lock.spinners, t.id);
  const SpinLockConfig& cfg = workload_.spin_configs[s.amount];
  if (x.spin_yields < cfg.yield_rounds) {
    ++x.spin_yields;
    class_of(t).yield(cpu);
    resched(cpu);
    return;
  }
  x.spin_yields = 0;
  if (cfg.fallback == SpinFallback::kBlock) {
    lock.blocked.push_back(t.id);
    block(t, BlockReason::kSpinBlock, s.object);
    return;
  }
  // InnoDB: wait on the lock's event (sync_array_wait_event). The per-attempt counters are
  // zero, so the wake-up starts a fresh spin and a fresh yield. The 4 test-and-sets
  // between reserving the cell and waiting are folded into the one just made.
  if (cfg.fallback == SpinFallback::kEvent) {
    lock.event_waiters.push_back(t.id);
    block(t, BlockReason::kSpinBlock, s.object);
    return;
  }
  if (x.spin_sleeps >= cfg.max_sleeps)
    throw WorkloadError(
        fmt::format("stuck spinlock: task {} slept {} times waiting for spinlock '{}' (held by {})",
                    t.name, x.spin_sleeps, workload_.spinlocks.names[s.object],
                    lock.owner == kNoTask ? std::string("nobody") : tasks_[lock.owner].name));
  ++x.spin_sleeps;
  if (x.spin_delay == 0) x.spin_delay = cfg.sleep_min_ns;
  const Time delay = x.spin_delay;
  // PostgreSQL s_lock: cur_delay += cur_delay * random fraction; wrap to the minimum.
  const double growth = rng_->unit() * cfg.growth_max_percent / 100.0;
  x.spin_delay = delay + static_cast<Time>(std::llround(static_cast<double>(delay) * growth));
  if (x.spin_delay > cfg.sleep_max_ns) x.spin_delay = cfg.sleep_min_ns;
  sleep_until(t, now_ + delay, BlockReason::kSpinSleep);
}

// An LWLock step runs with the LWLock's mutex spinlock held (lwlock_steps.h).
void Engine::check_lwlock_mutex(const Task& t, const Step& s) const {
  const int32_t mutex = workload_.lwlock_mutex[static_cast<size_t>(s.object)];
  if (sync_.spinlocks[mutex].owner != t.id)
    throw WorkloadError(fmt::format(
        "task {} does {} on LWLock '{}' without holding its spinlock '{}'", t.name, op_name(s.op),
        workload_.lwlocks.names[s.object], workload_.spinlocks.names[mutex]));
}

// One pass of 8.4's LWLockAcquire loop (sim/lwlock.h). x.step is this step's index. A
// waiter that must wait queues, releases the mutex and sleeps (blocked, no CPU) until a
// release wakes it; it then resumes at its spin_lock of the mutex and tries again.
Engine::StepResult Engine::step_lwlock_acquire(Task& t, Exec& x, const Step& s) {
  check_lwlock_mutex(t, s);
  const int32_t mutex = workload_.lwlock_mutex[static_cast<size_t>(s.object)];
  const bool got = lwlock_try_acquire(sync_.lwlocks[s.object], t.id,
                                      static_cast<LwLockMode>(s.amount), x.lwlock_retry);
  if (got) {
    ++x.step;
    x.lwlock_retry = false;
    spin_unlock(t, mutex);
    return StepResult::kContinue;
  }
  const std::vector<Step>& steps = x.spec->phases[x.phase].steps;
  size_t retry = x.step;
  while (retry > 0 && !(steps[retry - 1].op == Op::kSpinLock && steps[retry - 1].object == mutex))
    --retry;
  if (retry == 0)
    throw WorkloadError(fmt::format("task {}: lwlock_acquire of '{}' follows no spin_lock of '{}'",
                                    t.name, workload_.lwlocks.names[s.object],
                                    workload_.spinlocks.names[mutex]));
  x.step = retry - 1;
  x.lwlock_retry = true;
  spin_unlock(t, mutex);
  block(t, BlockReason::kLwLock, s.object);
  return StepResult::kStop;
}

// 8.4's LWLockRelease (sim/lwlock.h): the state change under the mutex, the mutex
// released, then the chosen waiters' semaphores posted.
Engine::StepResult Engine::step_lwlock_release(CpuId cpu, Task& t, const Step& s) {
  check_lwlock_mutex(t, s);
  std::vector<TaskId> woken;
  if (!lwlock_release(sync_.lwlocks[s.object], t.id, woken))
    throw WorkloadError(fmt::format("task {} releases LWLock '{}', which it does not hold", t.name,
                                    workload_.lwlocks.names[s.object]));
  spin_unlock(t, workload_.lwlock_mutex[static_cast<size_t>(s.object)]);
  for (TaskId id : woken) wake(tasks_[id], WakeInfo{WakeKind::kWakeup, cpu, false}, t.id);
  return StepResult::kContinue;
}

// An InnoDB rw-lock step runs with the rw-lock's mutex held (innodb_rw_lock_steps.h),
// except in the spin phase.
void Engine::check_innodb_rw_mutex(const Task& t, const Step& s) const {
  const int32_t mutex = workload_.innodb_rwlock_mutex[static_cast<size_t>(s.object)];
  if (sync_.spinlocks[mutex].owner != t.id)
    throw WorkloadError(fmt::format(
        "task {} does {} on InnoDB rw-lock '{}' without holding its mutex '{}'", t.name,
        op_name(s.op), workload_.innodb_rwlocks.names[s.object], workload_.spinlocks.names[mutex]));
}

// The index of the spin_lock step of the rw-lock's mutex before the current step: where a
// try under the mutex starts.
size_t Engine::innodb_rw_mutex_step(const Task& t, const Exec& x, const Step& s) const {
  const int32_t mutex = workload_.innodb_rwlock_mutex[static_cast<size_t>(s.object)];
  const std::vector<Step>& steps = x.spec->phases[x.phase].steps;
  size_t at = x.step;
  while (at > 0 && !(steps[at - 1].op == Op::kSpinLock && steps[at - 1].object == mutex)) --at;
  if (at == 0)
    throw WorkloadError(fmt::format("task {}: innodb_rw_lock of '{}' follows no spin_lock of '{}'",
                                    t.name, workload_.innodb_rwlocks.names[s.object],
                                    workload_.spinlocks.names[mutex]));
  return at - 1;
}

// 5.1.45's rw_lock_s_lock_func/rw_lock_s_lock_spin and rw_lock_x_lock_func
// (sim/innodb_rw_lock.h). x.step is this step's index; x.rw_stage says which pass this is.
Engine::StepResult Engine::step_innodb_rw_lock(CpuId cpu, Task& t, Exec& x, const Step& s) {
  if (x.rw_stage == RwStage::kSpin) return innodb_rw_spin(cpu, t, x, s);
  check_innodb_rw_mutex(t, s);
  InnodbRwLockState& lock = sync_.innodb_rwlocks[s.object];
  const auto mode = static_cast<LwLockMode>(s.amount);
  const int32_t mutex = workload_.innodb_rwlock_mutex[static_cast<size_t>(s.object)];
  if (innodb_rw_try(lock, t.id, mode) == RwTry::kGranted) {
    ++x.step;
    x.rw_stage = RwStage::kTry;
    spin_unlock(t, mutex);
    return StepResult::kContinue;
  }
  if (x.rw_stage == RwStage::kTry) {  // the first try failed: spin, without the mutex
    x.rw_stage = RwStage::kSpin;
    spin_unlock(t, mutex);
    return innodb_rw_spin(cpu, t, x, s);
  }
  // The try after the spin failed too: wait on the event. Woken, S spins first, X tries.
  lock.waiters = true;
  lock.event_waiters.push_back(t.id);
  if (mode == LwLockMode::kShared) {
    x.rw_stage = RwStage::kSpin;
  } else {
    x.rw_stage = RwStage::kTry;
    x.step = innodb_rw_mutex_step(t, x, s);
  }
  spin_unlock(t, mutex);
  block(t, BlockReason::kInnodbRwLock, s.object);
  return StepResult::kStop;
}

// The spin phase: SYNC_SPIN_ROUNDS random delays (the config's, drawn as the mutex's) while
// the awaited field is busy; over at once if it is free already.
Engine::StepResult Engine::innodb_rw_spin(CpuId cpu, Task& t, Exec& x, const Step& s) {
  InnodbRwLockState& lock = sync_.innodb_rwlocks[s.object];
  if (innodb_rw_spin_over(lock, t.id, static_cast<LwLockMode>(s.amount))) {
    x.rw_stage = RwStage::kRetry;
    x.step = innodb_rw_mutex_step(t, x, s);
    return StepResult::kContinue;
  }
  const int64_t config = workload_.innodb_rwlock_spin_config[static_cast<size_t>(s.object)];
  const Time spin = innodb_spin(workload_.spin_configs[config], *rng_);
  if (spin == 0) {  // no rounds to spin: every one spent at once, so the yield
    x.rw_stage = RwStage::kRetry;
    x.step = innodb_rw_mutex_step(t, x, s);
    class_of(t).yield(cpu);
    resched(cpu);
    return StepResult::kStop;
  }
  lock.spinners.push_back(t.id);
  x.burst = Burst::kRwSpin;
  x.spin_left = spin;
  return StepResult::kBurst;
}

// The spin burst is over (on_burst_end): every round spent (then os_thread_yield) or the
// field freed. Either way the try under the mutex comes next.
void Engine::innodb_rw_spin_ended(CpuId cpu, Task& t, Exec& x) {
  const Step& s = x.spec->phases[x.phase].steps[x.step];
  InnodbRwLockState& lock = sync_.innodb_rwlocks[s.object];
  std::erase(lock.spinners, t.id);
  const bool freed = innodb_rw_spin_over(lock, t.id, static_cast<LwLockMode>(s.amount));
  x.rw_stage = RwStage::kRetry;
  x.step = innodb_rw_mutex_step(t, x, s);
  if (freed) {
    advance_program(cpu);
    return;
  }
  class_of(t).yield(cpu);
  resched(cpu);
}

// A spinner on a CPU sees the field it spins on free and stops at once; one off its CPU
// finds out when it runs again (switch_to).
void Engine::end_finished_rw_spins(InnodbRwLockState& lock) {
  for (const TaskId id : lock.spinners) {
    Task& s = tasks_[id];
    Exec& sx = execs_[id];
    if (!s.on_cpu || sx.burst != Burst::kRwSpin || sx.spin_left == 0) continue;
    const Step& step = sx.spec->phases[sx.phase].steps[sx.step];
    if (!innodb_rw_spin_over(lock, id, static_cast<LwLockMode>(step.amount))) continue;
    account(s.cpu);
    sx.spin_left = 0;
    arm_burst(s.cpu);
  }
}

// rw_lock_s_unlock_func / rw_lock_x_unlock_func: the state change under the mutex, the
// mutex released, then the event set if waiters were flagged.
Engine::StepResult Engine::step_innodb_rw_unlock(CpuId cpu, Task& t, const Step& s) {
  check_innodb_rw_mutex(t, s);
  InnodbRwLockState& lock = sync_.innodb_rwlocks[s.object];
  bool signal = false;
  if (!innodb_rw_unlock(lock, t.id, signal))
    throw WorkloadError(fmt::format("task {} unlocks InnoDB rw-lock '{}', which it does not hold",
                                    t.name, workload_.innodb_rwlocks.names[s.object]));
  spin_unlock(t, workload_.innodb_rwlock_mutex[static_cast<size_t>(s.object)]);
  end_finished_rw_spins(lock);
  if (signal) {
    std::vector<TaskId> woken = std::move(lock.event_waiters);
    lock.event_waiters.clear();
    wake_all(woken, cpu, t);
  }
  return StepResult::kContinue;
}

std::string Engine::describe_wait(const Task& t) const {
  const Exec& x = execs_[t.id];
  const int32_t o = x.block_object;
  auto holder = [&](TaskId id) { return id == kNoTask ? std::string("nobody") : tasks_[id].name; };
  switch (x.block_reason) {
    case BlockReason::kMutex:
      return fmt::format("{} waits for mutex '{}' (held by {})", t.name, workload_.mutexes.names[o],
                         holder(sync_.mutexes[o].owner));
    case BlockReason::kCondvar:
      return fmt::format("{} waits on condvar '{}'", t.name, workload_.condvars.names[o]);
    case BlockReason::kBarrier:
      return fmt::format("{} waits at barrier '{}' ({} of {} arrived)", t.name,
                         workload_.barriers.names[o], sync_.barriers[o].arrived,
                         workload_.barrier_users[o]);
    case BlockReason::kSuspend:
      return fmt::format("{} is suspended on '{}'", t.name, workload_.suspend_queues.names[o]);
    case BlockReason::kProgress:
      return fmt::format("{} waits for counter '{}' (now {})", t.name, workload_.counters.names[o],
                         sync_.counters[o].value);
    case BlockReason::kSpinBlock:
      return fmt::format("{} waits for spinlock '{}' (held by {})", t.name,
                         workload_.spinlocks.names[o], holder(sync_.spinlocks[o].owner));
    case BlockReason::kSemaphore:
      return fmt::format("{} waits on semaphore '{}' (holds {})", t.name,
                         workload_.semaphores.names[o], sync_.semaphores[o].value);
    case BlockReason::kLwLock:
      return fmt::format("{} waits for LWLock '{}'", t.name, workload_.lwlocks.names[o]);
    case BlockReason::kInnodbRwLock: {
      const InnodbRwLockState& l = sync_.innodb_rwlocks[o];
      return fmt::format(
          "{} waits for InnoDB rw-lock '{}' ({} readers, writer {})", t.name,
          workload_.innodb_rwlocks.names[o], l.reader_count,
          l.writer == RwWriter::kNotLocked ? std::string("none") : holder(l.writer_task));
    }
    default:
      return fmt::format("{} sleeps", t.name);
  }
}

void Engine::deadlock() {
  std::string waits;
  for (const Task& t : tasks_) {
    if (execs_[t.id].exited || execs_[t.id].spec->background) continue;
    if (t.runnable)
      violation(fmt::format("task {} is runnable but no CPU will ever run it", t.name));
    waits += (waits.empty() ? "" : "; ") + describe_wait(t);
  }
  throw WorkloadError(fmt::format(
      "deadlock at {:.6f} s: every remaining task is blocked and nothing can wake them: {}",
      static_cast<double>(now_) / 1e9, waits));
}

}  // namespace schedlab
