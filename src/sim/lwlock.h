// PostgreSQL 8.4's lightweight lock (LWLock), the state that the engine's lwlock_acquire
// and lwlock_release steps change (docs/workloads/oltp.md). Source: the 8.4 branch,
// adunstan/pg-cvs-mirror (a CVS mirror of postgres/postgres) REL8_4_STABLE @da22ea6dc964
// (2009-10-14, 8.4.1), src/backend/storage/lmgr/lwlock.c: the struct at line 38,
// LWLockAcquire at 312 (releaseOK set again on a retry at 384, `retry = true` at 467),
// LWLockRelease at 560 (the wake condition at 605, releaseOK cleared at 623).
//
// What 8.4 does, and what this models:
// - The state is `exclusive` (0/1) and `shared` (a count), guarded by the LWLock's own
//   spinlock `mutex`: every acquire and release first takes that spinlock with s_lock (the
//   program's spin_lock step before the lwlock step) and changes the state under it.
// - LWLockAcquire loops: take the mutex; if retrying, set releaseOK = true; exclusive mode
//   gets the lock if exclusive == 0 and shared == 0, shared mode if exclusive == 0. If it
//   cannot, it appends itself to the FIFO queue (head/tail of PGPROCs, lwExclusive = the
//   mode), releases the mutex and sleeps on its own semaphore (PGSemaphoreLock): blocked,
//   no spinning on the LWLock itself. Once woken it loops back to the top and competes
//   again (retry = true); it may find the lock taken and sleep again. There is no hand-off
//   (the comment at the loop: handing the lock over would cost "a process swap for every
//   lock acquisition").
// - LWLockRelease takes the mutex, drops its hold, and if the queue is not empty, the lock
//   is now completely free and releaseOK is set, unlinks the waiters to wake: the head
//   alone if it wants exclusive, else the head and every following shared waiter up to the
//   first exclusive one; it sets releaseOK = false ("prevent additional wakeups until
//   retryer gets to run"), releases the mutex, then posts each one's semaphore.
//   So while a woken waiter has not yet run, later releases wake nobody.
// Not modelled: the semaphore's other users (8.4 counts and re-posts wakeups meant for the
// lock manager, `extraWaits`) and LWLockConditionalAcquire.
#pragma once

#include <deque>
#include <vector>

#include "util/types.h"
#include "workload/program.h"  // LwLockMode

namespace schedlab {

struct LwLockState {
  int exclusive = 0;       // 0 or 1
  int shared = 0;          // shared holders
  bool release_ok = true;  // 8.4's releaseOK
  struct Waiter {
    TaskId task;
    LwLockMode mode;
  };
  std::deque<Waiter> queue;     // FIFO, head first
  std::vector<TaskId> holders;  // for error messages and the release check only
};

// Under the mutex: one pass of LWLockAcquire's loop. Takes the lock and returns true, or
// queues `task` and returns false (the caller releases the mutex and blocks the task).
bool lwlock_try_acquire(LwLockState& lock, TaskId task, LwLockMode mode, bool retry);

// Under the mutex: LWLockRelease's state change. Returns the waiters to wake, in queue
// order (the caller releases the mutex, then wakes them). False if `task` holds no hold.
bool lwlock_release(LwLockState& lock, TaskId task, std::vector<TaskId>& woken);

}  // namespace schedlab
