// The O(1) scheduler of Linux 2.6.22 (kernel/sched.c; docs/algorithms/o1.md), the normal
// class before CFS: per-CPU run queues with an active and an expired array of 40 FIFO
// priority lists, timeslices by static priority, the sleep_avg interactivity bonus,
// TASK_INTERACTIVE reinsertion with the expired-starvation limit, TIMESLICE_GRANULARITY
// round robin, fork slice splitting with sleep_avg penalties. The arrays, the domains,
// wake-up placement and the balancer are components shared with SD (policy/arrays,
// policy/balance).
//
// Judgement: RT tasks stay in the RT class above (2.6.22 kept them in the same arrays
// at priorities 0-99, always above these, so the order is the same; their load is not
// counted here); every task is a user task (p->mm set); forks are threads (CLONE_VM: the
// child runs last); a task created without a parent starts with a full timeslice and no
// sleep_avg; sleeps end TASK_INTERRUPTIBLE, woken from interrupt context (timers) or by
// another task; wake_idle() (x86 only with SMT) is left out; cache_hot_time, calibrated at
// boot by 2.6.22, is a parameter (default 2.5 ms, unverified). The domains are 2.6.23's
// without SD_WAKE_IDLE (unverified for 2.6.22).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "params/declared.h"
#include "policy/arrays/prio_arrays.h"
#include "policy/balance/balancer.h"
#include "policy/sched_class.h"

namespace schedlab::o1 {

#define O1_PARAMS(X)                                                                \
  X(int64_t, cache_hot_time_ns, 2'500'000, params::at_least(0), "2.6.22 (assumed)", \
    "a task that ran this recently is cache hot (calibrated at boot by 2.6.22)")    \
  X(int64_t, starvation_limit_ms, 1000, params::at_least(0), "2.6.22",              \
    "STARVATION_LIMIT per runnable task before interactive tasks expire too (0: off)")
SCHEDLAB_DECLARE_PARAMS(O1Params, O1_PARAMS)

class O1 final : public SchedClass {
 public:
  explicit O1(const O1Params& p);

  void attach(SchedContext& ctx) override;
  void task_new(Task& t, const Task* parent) override;
  CpuId select_cpu(Task& t, CpuId prev, const WakeInfo& how) override;
  void enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) override;
  void dequeue(CpuId cpu, Task& t, DequeueKind how) override;
  void check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) override;
  Task* pick_next(CpuId cpu) override;
  void put_prev(CpuId cpu, Task& prev) override;
  void task_tick(CpuId cpu, Task& curr) override;
  void yield(CpuId cpu) override;
  void balance(CpuId cpu) override { balancer_.active_balance(cpu); }
  void idle_balance(CpuId cpu) override { balancer_.idle_balance(cpu); }
  void tick_balance(CpuId cpu) override { balancer_.tick(cpu); }
  void task_dead(Task& t) override;
  std::string check_invariants() const override { return q_.check("o1"); }

  // For tests.
  int prio_of(TaskId id) const { return q_[id].prio; }
  bool expired(TaskId id) const { return q_.expired(id); }
  int64_t sleep_avg_of(TaskId id) const { return q_[id].sleep_avg; }

 private:
  enum class SleepType : uint8_t { kNormal, kNonInteractive, kInteractive, kInterrupted };
  // The task_struct fields of the O(1) scheduler.
  struct Entity : arrays::Slot {
    int static_prio = 120;
    int64_t sleep_avg = 0;   // ns
    int64_t time_slice = 0;  // jiffies
    int64_t timestamp = 0;   // ns: last switch, wake-up or fork
    bool first_time_slice = false;
    SleepType sleep_type = SleepType::kNormal;
    TaskId parent = kNoTask;
  };

  int64_t jiffies() const { return ctx_->now() / ctx_->tick_ns(); }
  int64_t ns_to_jiffies(int64_t ns) const { return ns / ctx_->tick_ns(); }
  int64_t jiffies_to_ns(int64_t j) const { return j * ctx_->tick_ns(); }
  int64_t min_timeslice() const;
  int64_t def_timeslice() const;
  int64_t max_sleep_avg() const { return def_timeslice() * 10; }  // jiffies
  int64_t task_timeslice(const Entity& e) const;
  int current_bonus(const Entity& e) const;
  int delta(const Entity& e) const;
  bool task_interactive(const Entity& e) const;
  int64_t interactive_sleep(const Entity& e) const;
  int64_t timeslice_granularity(const Entity& e) const;
  int normal_prio(const Entity& e) const;
  void set_load_weight(Entity& e);
  int recalc_task_prio(Entity& e, int64_t now);
  bool expired_starving(CpuId cpu) const;
  void activate(CpuId cpu, Entity& e);
  void switch_out(Entity& e);
  void slice_tick(CpuId cpu, Entity& e);

  O1Params p_;
  arrays::PrioArrays<Entity> q_;
  std::vector<int64_t> expired_timestamp_;  // per CPU, jiffies: the first expiry; 0: none
  balance::Balancer balancer_;
};

}  // namespace schedlab::o1
