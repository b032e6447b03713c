// CFS as first merged, in Linux 2.6.23 (kernel/sched_fair.c and the wake-up path of
// kernel/sched.c of 2.6.23.17; docs/algorithms/cfs-2.6.23.md). A different algorithm from
// the vruntime CFS of 2.6.24 on: each run queue keeps a fair_clock that advances at
// 1/load of real time; each task a wait_runtime, the CPU time it is owed, clamped to
// +-runtime_limit. A task's key is fair_clock - wait_runtime (scaled by its weight), and
// the running task stays in the tree, re-keyed at every tick.
//
// Sleepers are credited the fair_clock time they slept (capped), paid back from the
// running task through sleeper_bonus. Forks made with CLONE_VM (threads, as rt-app's and
// x264's) are queued like any activation; only process forks go through task_new_fair,
// where child-runs-first and START_DEBIT act (forks_are_threads selects the model).
//
//   params.h     the switches and tunables, declared once
//   cfs23.cpp    the fair class and its try_to_wake_up
//   presets.cpp  cfs-2.6.23: the defaults and the domains
//
// The run queues are the shared fair ones (policy/fair); balancing is the shared
// balancer's (policy/balance) with the 2.6.31 code minus the cache-hot test, which
// 2.6.23's can_migrate_task did not have (judgement: 2.6.23's balancer was not modelled
// on its own).
#pragma once

#include <vector>

#include "policy/balance/balancer.h"
#include "policy/cfs23/params.h"
#include "policy/fair/fair_rq.h"
#include "policy/sched_class.h"

namespace schedlab::cfs23 {

class Cfs23 final : public SchedClass {
 public:
  Cfs23(const Cfs23Params& p, std::vector<balance::DomainTemplate> levels);

  void attach(SchedContext& ctx) override;
  void task_new(Task& t, const Task* parent) override;
  CpuId select_cpu(Task& t, CpuId prev, const WakeInfo& how) override;
  void enqueue(CpuId cpu, Task& t, const EnqueueFlags& flags) override;
  void dequeue(CpuId cpu, Task& t, DequeueKind how) override;
  void check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) override;
  Task* pick_next(CpuId cpu) override;
  void put_prev(CpuId cpu, Task& prev) override;
  void task_tick(CpuId cpu, Task& curr) override;
  void yield(CpuId cpu) override;
  void balance(CpuId cpu) override { balancer_.active_balance(cpu); }
  void idle_balance(CpuId cpu) override { balancer_.idle_balance(cpu); }
  void tick_balance(CpuId cpu) override { balancer_.tick(cpu); }
  std::string check_invariants() const override { return q_.check_load(); }

  // For tests and reports.
  int64_t wait_runtime_of(TaskId id) const { return q_[id].wait_runtime; }
  int64_t fair_clock_of(CpuId cpu) const { return q_.rq(cpu).fair_clock; }

 private:
  // struct sched_entity of 2.6.23
  struct Entity : fair::EntityBase {
    int64_t fair_key = 0;      // the timeline key: fair_clock - wait_runtime, weighted
    int64_t wait_runtime = 0;  // CPU time owed, within +-runtime_limit
    // fair_clock when it began to wait, and to sleep
    int64_t wait_start_fair = 0, sleep_start_fair = 0;
  };
  struct RunQueue : fair::TimelineRqBase {
    using TimelineRqBase::TimelineRqBase;
    int64_t fair_clock = 0, sleeper_bonus = 0;
  };

  void update_curr(CpuId cpu);
  int64_t sched_granularity(const RunQueue& rq) const;
  int64_t niced_granularity(const Entity& curr, int64_t granularity) const;
  void add_wait_runtime(Entity& e, int64_t delta) const;
  void update_stats_enqueue(RunQueue& rq, Entity& e);
  void update_stats_wait_end(RunQueue& rq, Entity& e);
  void enqueue_sleeper(CpuId cpu, Entity& e);
  void enqueue_entity(CpuId cpu, Entity& e, bool wakeup);
  void dequeue_entity(CpuId cpu, Entity& e, bool sleep);
  bool task_new_fair(CpuId cpu, Entity& e, TaskId parent);
  void check_preempt_curr_fair(CpuId cpu, Entity& woken, Entity& curr, int64_t granularity);
  void follow_frame(CpuId cpu, Entity& e);
  CpuId select_wake_cpu(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker);
  CpuId wake_idle(CpuId cpu, const Task& p) const;

  Cfs23Params p_;
  // The sysctls after sched_init_granularity()'s boot-time scaling.
  int64_t latency_ = 0, min_granularity_ = 0, wakeup_granularity_ = 0, runtime_limit_ = 0;
  fair::Queues<Entity, RunQueue> q_;
  balance::Balancer balancer_;
};

}  // namespace schedlab::cfs23
