// Writing MySQL 5.1 InnoDB rw-lock acquisitions and releases into a program
// (src/sim/innodb_rw_lock.h has the lock's rules and their source). Every S or X lock and
// unlock first takes the rw-lock's own InnoDB mutex, changes the state under it, and
// releases it:
//   spin_lock(mutex), run(mutex_ns), innodb_rw_lock(lock, mode)   [releases the mutex]
//   spin_lock(mutex), run(mutex_ns), innodb_rw_unlock(lock)       [releases the mutex]
// A waiter goes back to its spin_lock step for each try under the mutex.
#pragma once

#include <string>
#include <vector>

#include "workload/program.h"

namespace schedlab {

// Declares the rw-lock `name` (once; later calls return the same index) with its mutex
// spinlock `name`.mutex. `spin_config` indexes w.spin_configs: the InnoDB spin settings
// (fallback kEvent) that both the mutex and the rw-lock's own spin phase use.
int32_t declare_innodb_rwlock(Workload& w, const std::string& name, int64_t spin_config);

// `mutex_ns`: the CPU spent holding the rw-lock's mutex (an assumption; 0 adds no step).
void append_innodb_rw_lock(const Workload& w, std::vector<Step>& steps, int32_t lock,
                           LwLockMode mode, Time mutex_ns);
void append_innodb_rw_unlock(const Workload& w, std::vector<Step>& steps, int32_t lock,
                             Time mutex_ns);

}  // namespace schedlab
