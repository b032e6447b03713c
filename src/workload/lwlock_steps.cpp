#include "workload/lwlock_steps.h"

namespace schedlab {

int32_t declare_lwlock(Workload& w, const std::string& name) {
  const int32_t lock = w.lwlocks.intern(name);
  if (static_cast<size_t>(lock) >= w.lwlock_mutex.size())
    w.lwlock_mutex.push_back(w.spinlocks.intern(name + ".mutex"));
  return lock;
}

namespace {

void append(const Workload& w, std::vector<Step>& steps, Op op, int32_t lock, int64_t amount,
            int64_t spin_config, Time mutex_ns) {
  const int32_t mutex = w.lwlock_mutex[static_cast<size_t>(lock)];
  steps.push_back(Step{Op::kSpinLock, 0, spin_config, mutex, -1, false, false});
  if (mutex_ns > 0) steps.push_back(Step{Op::kRun, mutex_ns, 0, -1, -1, false, false});
  steps.push_back(Step{op, 0, amount, lock, -1, false, false});
}

}  // namespace

void append_lwlock_acquire(const Workload& w, std::vector<Step>& steps, int32_t lock,
                           LwLockMode mode, int64_t spin_config, Time mutex_ns) {
  append(w, steps, Op::kLwLockAcquire, lock, static_cast<int64_t>(mode), spin_config, mutex_ns);
}

void append_lwlock_release(const Workload& w, std::vector<Step>& steps, int32_t lock,
                           int64_t spin_config, Time mutex_ns) {
  append(w, steps, Op::kLwLockRelease, lock, 0, spin_config, mutex_ns);
}

}  // namespace schedlab
