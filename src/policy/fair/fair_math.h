// The fixed-point arithmetic of the 2.6.2x/2.6.3x fair class (kernel/sched.c of 2.6.31
// and 2.6.32, identical in both): the nice-to-weight table, its inverse, calc_delta_mine
// with the kernel's rounding and overflow path, and the 1/8 running average.
#pragma once

#include <array>
#include <cstdint>

#include "util/types.h"

namespace schedlab::fair {

inline constexpr int64_t kNice0Load = 1024;             // NICE_0_LOAD and SCHED_LOAD_SCALE
inline constexpr int64_t kIdlePrioWeight = 3;           // WEIGHT_IDLEPRIO (SCHED_IDLE)
inline constexpr uint64_t kIdlePrioWmult = 1431655765;  // WMULT_IDLEPRIO

// prio_to_weight[], nice -20 .. 19: each step is about 1.25x (10 % CPU per nice level).
inline constexpr std::array<int64_t, 40> kPrioToWeight = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906,  3121,  2501,  1991,  1586,  1277,  1024,  820,   655,   526,   423,  335,  272,  215,
    172,   137,   110,   87,    70,    56,    45,    36,    29,    23,    18,   15};

// prio_to_wmult[] = 2^32 / weight, precomputed in the kernel.
inline constexpr std::array<uint64_t, 40> kPrioToWmult = {
    48388,    59856,    76040,    92818,     118348,    147320,    184698,    229616,
    287308,   360437,   449829,   563644,    704093,    875809,    1099582,   1376151,
    1717300,  2157191,  2708050,  3363326,   4194304,   5237765,   6557202,   8165337,
    10153587, 12820798, 15790321, 19976592,  24970740,  31350126,  39045157,  49367440,
    61356676, 76695844, 95443717, 119304647, 148102320, 186737708, 238609294, 286331153};

struct LoadWeight {
  int64_t weight = 0;
  uint64_t inv_weight = 0;  // 0: compute on demand, as update_load_add() leaves it
};

inline LoadWeight task_load_weight(SchedPolicy policy, int nice) {
  if (policy == SchedPolicy::kIdle) return {kIdlePrioWeight, kIdlePrioWmult};
  const int i = nice + 20;
  return {kPrioToWeight[i], kPrioToWmult[i]};
}

// calc_delta_mine(): delta * weight / lw.weight through the 32-bit inverse, rounding as
// the kernel's SRR does, including the split multiply when delta * weight > 2^32.
inline int64_t calc_delta_mine(int64_t delta, int64_t weight, const LoadWeight& lw) {
  constexpr uint64_t kWmultConst = 1ULL << 32;
  auto srr = [](uint64_t x, int y) { return (x + (1ULL << (y - 1))) >> y; };
  uint64_t inv = lw.inv_weight;
  if (inv == 0) {
    const auto w = static_cast<uint64_t>(lw.weight);
    inv = w >= kWmultConst ? 1 : 1 + (kWmultConst - w / 2) / (w + 1);
  }
  uint64_t tmp = static_cast<uint64_t>(delta) * static_cast<uint64_t>(weight);
  if (tmp > kWmultConst)
    tmp = srr(srr(tmp, 16) * inv, 16);
  else
    tmp = srr(tmp * inv, 32);
  return static_cast<int64_t>(std::min<uint64_t>(tmp, INT64_MAX));
}

// calc_delta_fair(): wall time to virtual time for an entity of this weight.
inline int64_t calc_delta_fair(int64_t delta, const LoadWeight& lw) {
  if (lw.weight == kNice0Load) return delta;
  return calc_delta_mine(delta, kNice0Load, lw);
}

// update_avg(): avg += (sample - avg) / 8, with the arithmetic shift of a signed diff.
inline void update_avg(int64_t& avg, int64_t sample) {
  avg += (sample - avg) >> 3;
}

}  // namespace schedlab::fair
