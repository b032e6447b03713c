// PostgreSQL 8.4's LWLockAcquire/LWLockRelease state changes (lwlock.h has the source).
#include "sim/lwlock.h"

#include <algorithm>

namespace schedlab {

bool lwlock_try_acquire(LwLockState& lock, TaskId task, LwLockMode mode, bool retry) {
  if (retry)
    lock.release_ok = true;  // lwlock.c: "If retrying, allow LWLockRelease to
                             // release waiters again"
  const bool free = mode == LwLockMode::kExclusive ? lock.exclusive == 0 && lock.shared == 0
                                                   : lock.exclusive == 0;
  if (!free) {
    lock.queue.push_back({task, mode});  // to the tail; its semaphore wait follows
    return false;
  }
  if (mode == LwLockMode::kExclusive)
    ++lock.exclusive;
  else
    ++lock.shared;
  lock.holders.push_back(task);
  return true;
}

bool lwlock_release(LwLockState& lock, TaskId task, std::vector<TaskId>& woken) {
  const auto it = std::find(lock.holders.begin(), lock.holders.end(), task);
  if (it == lock.holders.end()) return false;
  lock.holders.erase(it);
  if (lock.exclusive > 0)
    --lock.exclusive;
  else
    --lock.shared;
  if (lock.queue.empty() || lock.exclusive != 0 || lock.shared != 0 || !lock.release_ok)
    return true;
  // The head alone if it wants exclusive; else the run of shared waiters at the head.
  const bool head_exclusive = lock.queue.front().mode == LwLockMode::kExclusive;
  do {
    woken.push_back(lock.queue.front().task);
    lock.queue.pop_front();
  } while (!head_exclusive && !lock.queue.empty() &&
           lock.queue.front().mode == LwLockMode::kShared);
  lock.release_ok = false;  // "prevent additional wakeups until retryer gets to run"
  return true;
}

}  // namespace schedlab
