// MySQL 5.1's InnoDB rw-lock (btr_search_latch, index->lock, the page latches), the state
// that the engine's innodb_rw_lock and innodb_rw_unlock steps change
// (docs/workloads/oltp.md). Source: MySQL 5.1.45's built-in InnoDB,
// dolphinsboy/mysql-5.1.45 @87180dde564e, storage/innobase: sync/sync0rw.c
// (rw_lock_s_lock_spin at 247, rw_lock_x_lock_low at 359, rw_lock_x_lock_func at 466) and
// include/sync0rw.ic (rw_lock_s_lock_low at 126, rw_lock_s_lock_func at 220,
// rw_lock_s_unlock_func at 347, rw_lock_x_unlock_func at 428).
//
// What 5.1.45 does, and what this models:
// - The state is reader_count, writer (not locked, EX, or WAIT_EX: a writer's reservation
//   while readers drain), the writer's thread, writer_count (recursion) and a `waiters`
//   flag, all changed under the lock's own InnoDB mutex (the program's spin_lock step
//   before each rw step; the mutex waits as InnoDB's mutex_spin_wait).
// - S (rw_lock_s_lock_low): succeeds if writer is not locked. A WAIT_EX reservation counts
//   as locked, so a waiting writer bars new readers.
// - X (rw_lock_x_lock_low): EX if nothing holds it; the WAIT_EX reservation if readers do;
//   EX from the thread's own WAIT_EX once the readers are gone; one more recursion if it
//   holds EX already; else it fails.
// - A failed try releases the mutex and spins: up to SYNC_SPIN_ROUNDS random delays while
//   the awaited field is busy (S, and X without the reservation: writer; X with its
//   reservation: reader_count), without the mutex; an os_thread_yield() if every round was
//   spent; then one more try under the mutex. If that fails too, it sets `waiters`,
//   releases the mutex and waits on the lock's event. Woken, S starts over with the spin
//   (rw_lock_s_lock_spin's lock_loop), X with a try under the mutex (rw_lock_x_lock_func's).
//   A WAIT_EX writer keeps its reservation while it spins and waits.
// - Unlock: under the mutex drop the hold; if `waiters` is set and the last reader (S) or
//   the writer's last recursion (X) is gone, clear `waiters` and, after the mutex, set the
//   event: every waiter wakes and competes again, none is handed the lock.
// Not modelled: the `pass` argument (a lock released by another thread), the Windows
// wait_ex_event, and the sync array's own mutex (the cell reservation takes no time here).
#pragma once

#include <vector>

#include "util/types.h"
#include "workload/program.h"  // LwLockMode

namespace schedlab {

enum class RwWriter : uint8_t { kNotLocked, kEx, kWaitEx };

struct InnodbRwLockState {
  int reader_count = 0;
  RwWriter writer = RwWriter::kNotLocked;
  TaskId writer_task = kNoTask;  // of EX or of the WAIT_EX reservation
  int writer_count = 0;          // EX recursion
  bool waiters = false;
  std::vector<TaskId> event_waiters;  // blocked on the lock's event, woken all at once
  std::vector<TaskId> spinners;       // in the spin phase, in the order they began
  std::vector<TaskId> readers;        // S holders, for the unlock check only
};

enum class RwTry : uint8_t { kGranted, kWaitEx, kFailed };

// The rules on a lock's fields, which the simulator's state below and the host runner's
// (atomic fields) share: `Lock` has reader_count, writer, writer_task, writer_count and
// waiters.
namespace rw_rules {

// rw_lock_s_lock_low / rw_lock_x_lock_low, under the mutex.
template <class Lock, class Id>
RwTry try_lock(Lock& l, Id task, LwLockMode mode) {
  if (mode == LwLockMode::kShared) {
    if (l.writer != RwWriter::kNotLocked) return RwTry::kFailed;
    ++l.reader_count;
    return RwTry::kGranted;
  }
  if (l.writer == RwWriter::kNotLocked) {
    l.writer_task = task;
    if (l.reader_count > 0) {
      l.writer = RwWriter::kWaitEx;  // "There are readers, we have to wait"
      return RwTry::kWaitEx;
    }
    l.writer = RwWriter::kEx;
    l.writer_count = 1;
    return RwTry::kGranted;
  }
  if (l.writer_task != task) return RwTry::kFailed;
  if (l.writer == RwWriter::kWaitEx) {
    if (l.reader_count > 0) return RwTry::kWaitEx;
    l.writer = RwWriter::kEx;
    l.writer_count = 1;
    return RwTry::kGranted;
  }
  ++l.writer_count;  // recursion
  return RwTry::kGranted;
}

// The spin's test, without the mutex: the field it waits for is free.
template <class Lock, class Id>
bool spin_over(const Lock& l, Id task, LwLockMode mode) {
  if (mode == LwLockMode::kExclusive && l.writer == RwWriter::kWaitEx && l.writer_task == task)
    return l.reader_count == 0;
  return l.writer == RwWriter::kNotLocked;
}

// Whether `task` holds the lock exclusively.
template <class Lock, class Id>
bool holds_x(const Lock& l, Id task) {
  return l.writer == RwWriter::kEx && l.writer_task == task;
}

// rw_lock_x_unlock_func / rw_lock_s_unlock_func's change, under the mutex (the caller
// knows the hold): whether the event is to be set after the mutex.
template <class Lock, class Id>
bool unlock(Lock& l, Id no_task, bool exclusive) {
  bool signal = false;
  if (exclusive) {
    if (--l.writer_count == 0) {
      l.writer = RwWriter::kNotLocked;
      l.writer_task = no_task;
      signal = l.waiters;
    }
  } else {
    signal = --l.reader_count == 0 && l.waiters;
  }
  if (signal) l.waiters = false;
  return signal;
}

}  // namespace rw_rules

// Under the mutex: rw_lock_s_lock_low or rw_lock_x_lock_low for `task`.
RwTry innodb_rw_try(InnodbRwLockState& lock, TaskId task, LwLockMode mode);

// Whether a spinning `task` stops spinning: the field it spins on is free (S, and X
// without its reservation: writer; X with its WAIT_EX: reader_count).
bool innodb_rw_spin_over(const InnodbRwLockState& lock, TaskId task, LwLockMode mode);

// Under the mutex: rw_lock_s_unlock_func or rw_lock_x_unlock_func, whichever hold `task`
// has (EX if it is the writer). Returns false if it holds none. `signal`: the event is to
// be set after the mutex (`waiters` was set and the lock is now free of the holder kind).
bool innodb_rw_unlock(InnodbRwLockState& lock, TaskId task, bool& signal);

}  // namespace schedlab
