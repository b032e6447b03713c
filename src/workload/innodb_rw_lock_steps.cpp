#include "workload/innodb_rw_lock_steps.h"

namespace schedlab {

int32_t declare_innodb_rwlock(Workload& w, const std::string& name, int64_t spin_config) {
  const int32_t lock = w.innodb_rwlocks.intern(name);
  if (static_cast<size_t>(lock) >= w.innodb_rwlock_mutex.size()) {
    w.innodb_rwlock_mutex.push_back(w.spinlocks.intern(name + ".mutex"));
    w.innodb_rwlock_spin_config.push_back(spin_config);
  }
  return lock;
}

namespace {

void append(const Workload& w, std::vector<Step>& steps, Op op, int32_t lock, int64_t amount,
            Time mutex_ns) {
  const auto l = static_cast<size_t>(lock);
  steps.push_back(Step{Op::kSpinLock, 0, w.innodb_rwlock_spin_config[l], w.innodb_rwlock_mutex[l],
                       -1, false, false});
  if (mutex_ns > 0) steps.push_back(Step{Op::kRun, mutex_ns, 0, -1, -1, false, false});
  steps.push_back(Step{op, 0, amount, lock, -1, false, false});
}

}  // namespace

void append_innodb_rw_lock(const Workload& w, std::vector<Step>& steps, int32_t lock,
                           LwLockMode mode, Time mutex_ns) {
  append(w, steps, Op::kInnodbRwLock, lock, static_cast<int64_t>(mode), mutex_ns);
}

void append_innodb_rw_unlock(const Workload& w, std::vector<Step>& steps, int32_t lock,
                             Time mutex_ns) {
  append(w, steps, Op::kInnodbRwUnlock, lock, 0, mutex_ns);
}

}  // namespace schedlab
