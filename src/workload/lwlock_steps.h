// Writing PostgreSQL 8.4 LWLock acquisitions and releases into a program (src/sim/lwlock.h
// has the lock's rules and their source). Both LWLockAcquire and LWLockRelease first take
// the LWLock's mutex spinlock with s_lock, change the state under it, and release it:
//   spin_lock(mutex), run(mutex_ns), lwlock_acquire(lock, mode)   [releases the mutex]
//   spin_lock(mutex), run(mutex_ns), lwlock_release(lock)         [releases the mutex]
// A waiter woken from the queue goes back to its spin_lock step (8.4's retry loop).
#pragma once

#include <string>
#include <vector>

#include "workload/program.h"

namespace schedlab {

// Declares the LWLock `name` (once; later calls return the same index) with its mutex
// spinlock `name`.mutex.
int32_t declare_lwlock(Workload& w, const std::string& name);

// `spin_config` indexes w.spin_configs: how the mutex's s_lock waits. `mutex_ns` is the CPU
// the backend spends holding the mutex (an assumption; 0 leaves it uncontended).
void append_lwlock_acquire(const Workload& w, std::vector<Step>& steps, int32_t lock,
                           LwLockMode mode, int64_t spin_config, Time mutex_ns);
void append_lwlock_release(const Workload& w, std::vector<Step>& steps, int32_t lock,
                           int64_t spin_config, Time mutex_ns);

}  // namespace schedlab
