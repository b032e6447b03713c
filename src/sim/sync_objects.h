// The state of a workload's synchronisation objects during a simulated run.
#pragma once

#include <deque>
#include <utility>
#include <vector>

#include "sim/innodb_rw_lock.h"
#include "sim/lwlock.h"
#include "util/types.h"
#include "workload/program.h"

namespace schedlab {

struct MutexState {
  TaskId owner = kNoTask;
  std::deque<TaskId> waiters;  // FIFO; unlock hands the mutex to the first
};

struct CondvarState {
  std::deque<std::pair<TaskId, int32_t>> waiters;  // task, mutex to retake
};

struct BarrierState {
  int arrived = 0;
  std::vector<TaskId> waiters;
};

struct CounterWaiter {
  TaskId task;
  int64_t target;
  bool recheck;  // woken by every advance, not only the one reaching its target
};

struct CounterState {
  int64_t value = 0;
  std::vector<CounterWaiter> waiters;
};

struct SemaphoreState {
  int64_t value = 0;
  std::deque<std::pair<TaskId, int64_t>> waiters;  // FIFO: task, amount it takes
};

struct TimerState {
  bool started = false;
  Time next = 0;
};

struct SpinLockState {
  TaskId owner = kNoTask;
  std::vector<TaskId> spinners;       // tasks in a spin burst, in the order they began
  std::deque<TaskId> blocked;         // tasks that gave up spinning and block (kBlock)
  std::vector<TaskId> event_waiters;  // kEvent: blocked on the lock's event, woken all at once
};

struct SyncObjects {
  explicit SyncObjects(const Workload& w)
      : mutexes(w.mutexes.size()),
        condvars(w.condvars.size()),
        barriers(w.barriers.size()),
        suspended(w.suspend_queues.size()),
        counters(w.counters.size()),
        timers(w.timers.size()),
        spinlocks(w.spinlocks.size()),
        semaphores(w.semaphores.size()),
        lwlocks(w.lwlocks.size()),
        innodb_rwlocks(w.innodb_rwlocks.size()) {
    for (size_t i = 0; i < w.semaphore_initial.size() && i < semaphores.size(); ++i)
      semaphores[i].value = w.semaphore_initial[i];
  }

  std::vector<MutexState> mutexes;
  std::vector<CondvarState> condvars;
  std::vector<BarrierState> barriers;
  std::vector<std::vector<TaskId>> suspended;
  std::vector<CounterState> counters;
  std::vector<TimerState> timers;
  std::vector<SpinLockState> spinlocks;
  std::vector<SemaphoreState> semaphores;
  std::vector<LwLockState> lwlocks;
  std::vector<InnodbRwLockState> innodb_rwlocks;
};

}  // namespace schedlab
