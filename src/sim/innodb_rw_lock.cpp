// MySQL 5.1.45 InnoDB's rw-lock state changes (innodb_rw_lock.h has the source).
#include "sim/innodb_rw_lock.h"

#include <algorithm>

namespace schedlab {

RwTry innodb_rw_try(InnodbRwLockState& lock, TaskId task, LwLockMode mode) {
  if (mode == LwLockMode::kShared) {
    if (lock.writer != RwWriter::kNotLocked) return RwTry::kFailed;
    ++lock.reader_count;
    lock.readers.push_back(task);
    return RwTry::kGranted;
  }
  if (lock.writer == RwWriter::kNotLocked) {
    lock.writer_task = task;
    if (lock.reader_count > 0) {
      lock.writer = RwWriter::kWaitEx;  // "There are readers, we have to wait"
      return RwTry::kWaitEx;
    }
    lock.writer = RwWriter::kEx;
    lock.writer_count = 1;
    return RwTry::kGranted;
  }
  if (lock.writer_task != task) return RwTry::kFailed;
  if (lock.writer == RwWriter::kWaitEx) {
    if (lock.reader_count > 0) return RwTry::kWaitEx;
    lock.writer = RwWriter::kEx;
    lock.writer_count = 1;
    return RwTry::kGranted;
  }
  ++lock.writer_count;  // recursion
  return RwTry::kGranted;
}

bool innodb_rw_spin_over(const InnodbRwLockState& lock, TaskId task, LwLockMode mode) {
  if (mode == LwLockMode::kExclusive && lock.writer == RwWriter::kWaitEx &&
      lock.writer_task == task)
    return lock.reader_count == 0;
  return lock.writer == RwWriter::kNotLocked;
}

bool innodb_rw_unlock(InnodbRwLockState& lock, TaskId task, bool& signal) {
  signal = false;
  if (lock.writer == RwWriter::kEx && lock.writer_task == task) {
    if (--lock.writer_count == 0) {
      lock.writer = RwWriter::kNotLocked;
      lock.writer_task = kNoTask;
      signal = lock.waiters;
    }
  } else {
    const auto it = std::find(lock.readers.begin(), lock.readers.end(), task);
    if (it == lock.readers.end()) return false;
    lock.readers.erase(it);
    --lock.reader_count;
    signal = lock.waiters && lock.reader_count == 0;
  }
  if (signal) lock.waiters = false;
  return true;
}

}  // namespace schedlab
