// MySQL 5.1.45 InnoDB's rw-lock state changes (innodb_rw_lock.h has the source).
#include "sim/innodb_rw_lock.h"

#include <algorithm>

namespace schedlab {

RwTry innodb_rw_try(InnodbRwLockState& lock, TaskId task, LwLockMode mode) {
  const RwTry got = rw_rules::try_lock(lock, task, mode);
  if (got == RwTry::kGranted && mode == LwLockMode::kShared) lock.readers.push_back(task);
  return got;
}

bool innodb_rw_spin_over(const InnodbRwLockState& lock, TaskId task, LwLockMode mode) {
  return rw_rules::spin_over(lock, task, mode);
}

bool innodb_rw_unlock(InnodbRwLockState& lock, TaskId task, bool& signal) {
  const bool exclusive = rw_rules::holds_x(lock, task);
  if (!exclusive) {
    const auto it = std::find(lock.readers.begin(), lock.readers.end(), task);
    if (it == lock.readers.end()) return false;
    lock.readers.erase(it);
  }
  signal = rw_rules::unlock(lock, kNoTask, exclusive);
  return true;
}

}  // namespace schedlab
