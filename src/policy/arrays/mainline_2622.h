// What O(1) and Staircase Deadline share of mainline 2.6.21/2.6.22 besides the arrays
// (kernel/sched.c of 2.6.22; docs/algorithms/o1.md, docs/algorithms/sd.md): the
// scheduling domains, the balancer's rules, try_to_wake_up()'s affine wake-ups and its
// preemption test. SD 0.46 replaced the per-CPU scheduling and kept these.
#pragma once

#include <vector>

#include "policy/arrays/prio_arrays.h"
#include "policy/balance/balancer.h"
#include "policy/sched_class.h"

namespace schedlab::arrays {

// 2.6.22's domains: 2.6.23's SD_*_INIT without SD_WAKE_IDLE (x86 without SMT had no
// wake_idle; the values are unverified for 2.6.22, see docs/algorithms/balancing.md).
std::vector<balance::DomainTemplate> domains_2622();

// load_balance() and its helpers as 2.6.22 had them (modelled without sd_idle).
balance::Rules rules_2622();

// try_to_wake_up() of 2.6.22: a task woken by another CPU moves to the waker's CPU when
// that is not unbalanced (SD_WAKE_AFFINE); a fork stays on the parent's CPU (no
// SD_BALANCE_FORK). Unsigned arithmetic as in the kernel; a sync wake-up discounts the
// waker's weight.
template <class Entity>
CpuId select_cpu_2622(balance::Balancer& balancer, const PrioArrays<Entity>& q, const Task& t,
                      CpuId prev, const WakeInfo& how) {
  CpuId cpu = prev;
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed.find_first());
  if (how.kind == WakeKind::kFork) {
    const CpuId parent = how.waker_cpu;
    return parent != kNoCpu && t.allowed_on(parent) ? parent : cpu;
  }
  const CpuId this_cpu = how.waker_cpu;
  if (how.kind != WakeKind::kWakeup || how.waker == kNoTask || this_cpu == kNoCpu ||
      this_cpu == cpu || !t.allowed_on(this_cpu))
    return cpu;
  const balance::Domain* this_sd = nullptr;
  for (const balance::Domain& sd : balancer.domains(this_cpu))
    if (sd.span.test(static_cast<size_t>(cpu))) {
      this_sd = &sd;
      break;
    }
  if (!this_sd || !this_sd->has(balance::kSdWakeAffine)) return cpu;
  const int idx = this_sd->t.wake_idx;
  const uint64_t imbalance = 100 + (this_sd->t.imbalance_pct - 100) / 2;
  const auto load = static_cast<uint64_t>(balancer.source_load(cpu, idx));
  uint64_t tl = static_cast<uint64_t>(balancer.target_load(this_cpu, idx));
  const auto tl_per_task = static_cast<uint64_t>(balancer.cpu_avg_load_per_task(this_cpu));
  if (how.sync && q.known(how.waker)) tl -= static_cast<uint64_t>(q[how.waker].load_weight);
  const auto weight = static_cast<uint64_t>(q[t.id].load_weight);
  if ((tl <= load && tl + static_cast<uint64_t>(balancer.target_load(cpu, idx)) <= tl_per_task) ||
      100 * (tl + weight) <= imbalance * load)
    return this_cpu;
  return cpu;
}

// TASK_PREEMPTS_CURR: a better priority preempts, except a sync wake-up on the waker's
// CPU and a thread's child on its parent's, which wait for the current task to schedule.
inline bool wakeup_preempts_2622(CpuId cpu, int curr_prio, int woken_prio, const WakeInfo& how) {
  if (how.kind == WakeKind::kFork && how.waker_cpu == cpu) return false;
  if (how.kind == WakeKind::kWakeup && how.sync && how.waker_cpu == cpu) return false;
  return woken_prio < curr_prio;
}

}  // namespace schedlab::arrays
