// This machine as the simulator's machine model: CPU count, SMT siblings, cache and
// package groups (from /sys/devices/system/cpu), HZ (the kernel's config file, else the
// rate of jiffies in /proc/timer_list), and which model matches its kernel.
#pragma once

#include <string>

#include "machine/machine.h"

namespace schedlab {

Machine host_machine();
std::string host_kernel_release();
// The preset closest to a kernel release: eevdf (6.12) from 6.12, eevdf-6.6 for 6.6 to
// 6.11, cfs-2.6.23 for 2.6.23, cfs-2.6.31 for 2.6.24 to 2.6.31, else cfs-2.6.32 (the
// nearest CFS modelled, for 2.6.32 to 6.5).
std::string model_for_kernel(const std::string& release);

}  // namespace schedlab
