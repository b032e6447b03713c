// Basic vocabulary shared by every stage: time, identifiers, CPU masks.
#pragma once

#include <cstdint>
#include <string>

#include "util/cpu_mask.h"

namespace schedlab {

// Virtual and real time alike: integer nanoseconds.
using Time = int64_t;
using TaskId = int32_t;
using CpuId = int32_t;
// 128-bit integers for products of times and weights that may exceed 64 bits.
__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

inline constexpr TaskId kNoTask = -1;
inline constexpr CpuId kNoCpu = -1;
inline constexpr Time kNsPerUs = 1000;
inline constexpr Time kNsPerMs = 1000 * 1000;
inline constexpr Time kNsPerSec = 1000 * 1000 * 1000;
// Longest duration any input may name (about 13 days): keeps work * 1024 within int64.
inline constexpr Time kMaxDurationNs = Time{1} << 50;
// CPUs of one machine (CpuMask holds any number; this bounds what an input may ask).
inline constexpr int kMaxCpus = 4096;

// Calls fn(cpu) for each CPU of the mask in increasing order (for_each_cpu()).
template <typename Fn>
void for_each_cpu(const CpuMask& mask, Fn&& fn) {
  mask.for_each(fn);
}

// The lowest CPU in both masks, or in all three (cpumask_first_and, cpumask_first_and_and),
// or kNoCpu; without building the intersection.
inline CpuId first_and(const CpuMask& a, const CpuMask& b) {
  const size_t c = a.first_common(b, b);
  return c == CpuMask::kNone ? kNoCpu : static_cast<CpuId>(c);
}
inline CpuId first_and_and(const CpuMask& a, const CpuMask& b, const CpuMask& c) {
  const size_t cpu = a.first_common(b, c);
  return cpu == CpuMask::kNone ? kNoCpu : static_cast<CpuId>(cpu);
}

inline CpuMask all_cpus(int ncpus) {
  return CpuMask::first_n(static_cast<size_t>(ncpus));
}

// The scheduling policies of sched_setscheduler(2), and SCHED_ISO of the -ck kernels
// (policy 4 there; BFS only here).
enum class SchedPolicy : uint8_t { kOther, kBatch, kIdle, kFifo, kRR, kDeadline, kIso };

inline bool is_rt(SchedPolicy p) {
  return p == SchedPolicy::kFifo || p == SchedPolicy::kRR;
}
inline bool is_normal(SchedPolicy p) {
  return p == SchedPolicy::kOther || p == SchedPolicy::kBatch || p == SchedPolicy::kIdle ||
         p == SchedPolicy::kIso;
}
// The policies Linux 6.12 gives a custom slice from sched_attr.sched_runtime (its
// fair_policy(): not SCHED_IDLE).
inline bool takes_custom_slice(SchedPolicy p) {
  return p == SchedPolicy::kOther || p == SchedPolicy::kBatch;
}
const char* policy_name(SchedPolicy p);

}  // namespace schedlab
