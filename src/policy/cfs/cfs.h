// The Completely Fair Scheduler with virtual runtime, as in Linux 2.6.31, 2.6.32 and the
// -tip tree of October 2009 between them (kernel/sched_fair.c of 2.6.31.14, 2.6.32.2 and
// v2.6.32-rc5 with 92f6a5e3; docs/algorithms/cfs-2.6.31-32.md): SCHED_NORMAL, SCHED_BATCH
// and SCHED_IDLE.
//
//   params.h     every SCHED_FEAT switch, tunable and domain flag, declared once
//   cfs.cpp      the fair class: vruntime, slices, placement, wake-up and tick
//                preemption, buddies, yield, select_task_rq_fair
//   presets.cpp  cfs-2.6.31, cfs-tip-2009-10 and cfs-2.6.32: rows of defaults, domains,
//                code differences
//
// The run queues are the shared fair ones (policy/fair), the balancing the shared
// balancer's (policy/balance) with these releases' rules.
#pragma once

#include <vector>

#include "policy/balance/balancer.h"
#include "policy/cfs/params.h"
#include "policy/fair/fair_rq.h"
#include "policy/sched_class.h"

namespace schedlab::cfs {

class Cfs final : public SchedClass {
 public:
  // Where 2.6.31 and 2.6.32 differ in code rather than by a switch, one line each.
  struct Release {
    // 2.6.31 wake_up_new_task: a forked child is placed (task_new_fair) only when its
    // CPU runs a CFS task; otherwise it keeps its parent's vruntime.
    bool fork_needs_fair_curr = false;
    // 2.6.32 task_fork_fair: the child starts from the running task's (its parent's) vruntime.
    bool fork_from_curr = true;
    // 2.6.32 place_entity: a new task is never placed before its vruntime either.
    bool new_never_backwards = true;
    // 2.6.32 pick_next_entity: the last buddy wins over the next (2.6.31: next first).
    bool last_buddy_first = true;
    // 2.6.32 check_preempt_tick: also preempt a task a slice right of the leftmost.
    bool tick_spread_test = true;
    // 2.6.32 wake_affine: a waker's CPU left with no load is balanced.
    bool affine_empty_balanced = true;
    // 2.6.32.2 select_task_rq_fair (the stable backports a1f84a3a and fd210738): an idle
    // CPU of an SD_PREFER_SIBLING domain is preferred; vanilla 2.6.32 and -tip have none.
    bool wake_idle_search = true;
    // -tip of 7-15 September 2009: wake_affine() is consulted also when the waker's CPU is
    // prev (cdd2ab3d), and a task left on prev goes through wake_idle() (SD_WAKE_IDLE on
    // MC and CPU, a8fae3ec, with CONFIG_SCHED_SMT), until c88d5910 removed both paths.
    bool affine_on_prev = false;
    bool wake_idle = false;
    // -tip's pick_next_entity of 14-22 October 2009 (92f6a5e3): a buddy is cleared once
    // examined, and the next buddy is tried before the last.
    bool clear_examined_buddies = false;
    // The release's check_preempt_wakeup() and select_task_rq_fair() for a wake-up.
    void (Cfs::*check_preempt_wakeup)(CpuId, Task&, Task&, const WakeInfo&) = nullptr;
    CpuId (Cfs::*select_wake_cpu)(Task&, CpuId, CpuId, bool, TaskId) = nullptr;
    balance::Rules balance;  // the release's balancer
  };
  static const Release k2631, kTip200909, k2632, kTip200910;

  Cfs(const CfsParams& p, const Release& release, std::vector<balance::DomainTemplate> levels);

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
  std::string check_invariants() const override;

  // For tests and reports.
  int64_t vruntime_of(TaskId id) const { return q_[id].vruntime; }
  int64_t min_vruntime_of(CpuId cpu) const { return q_.rq(cpu).min_vruntime; }
  int nr_running_of(CpuId cpu) const { return q_.rq(cpu).nr_running; }

 private:
  // struct sched_entity, with the task statistics sched.c keeps for the fair class.
  struct Entity : fair::EntityBase {
    int64_t vruntime = 0;
    int64_t last_wakeup = 0, start_runtime = 0;
    int64_t avg_overlap = 0, avg_wakeup = 0;
    int64_t avg_running = 0;  // 2.6.32's statistic (only WAKEUP_RUNNING reads it)
  };
  struct RunQueue : fair::TimelineRqBase {
    using TimelineRqBase::TimelineRqBase;
    int64_t min_vruntime = 0;
  };

  // time and vruntime
  void update_curr(CpuId cpu);
  void update_min_vruntime(RunQueue& rq);
  int64_t sched_period(int64_t nr_running) const;
  int64_t sched_slice(const RunQueue& rq, const Entity& e) const;
  int64_t sched_vslice(const RunQueue& rq, const Entity& e) const;
  void follow_frame(CpuId cpu, Entity& e);
  void place_entity(RunQueue& rq, Entity& e, bool initial);
  void task_new_fair(CpuId cpu, Entity& child, CpuId parent_cpu);
  // queueing and picking
  void enqueue_entity(CpuId cpu, Entity& e);
  void dequeue_entity(CpuId cpu, Entity& e);
  void set_next_entity(CpuId cpu, TaskId id);
  TaskId pick_next_entity(RunQueue& rq);
  // preemption
  int64_t wakeup_gran(const Entity& curr, const Entity& woken, const RunQueue& rq) const;
  int wakeup_preempt_entity(const Entity& curr, const Entity& woken, const RunQueue& rq) const;
  bool overlapping(const Entity& a, const Entity& b) const;
  bool wakeup_may_preempt(CpuId cpu, const Task& curr, const Task& woken);
  void check_preempt_wakeup_2631(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how);
  void check_preempt_wakeup_2632(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how);
  void check_preempt_wakeup_tip(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how);
  bool forced_preemption(CpuId cpu, Task& curr, Task& woken, bool sync);
  void check_preempt_tick(CpuId cpu, Entity& curr);
  // choosing a CPU
  void record_wakeup_by(TaskId waker);
  bool wake_affine(const balance::Domain& sd, Task& p, CpuId prev, CpuId this_cpu, bool sync,
                   TaskId waker, int64_t load, int64_t this_load);
  CpuId select_wake_cpu_2631(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker);
  CpuId wake_idle(const Task& t, CpuId cpu) const;
  CpuId select_wake_cpu_2632(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker);

  CfsParams p_;
  Release rel_;
  // The sysctls after sched_init_granularity()'s boot-time scaling.
  int64_t latency_ = 0, min_granularity_ = 0, wakeup_granularity_ = 0, nr_latency_ = 5;
  fair::Queues<Entity, RunQueue> q_;
  balance::Balancer balancer_;
};

}  // namespace schedlab::cfs
