// EEVDF, the fair class of Linux 6.6 and 6.12, after kernel/sched/fair.c of those releases
// (docs/algorithms/eevdf.md): the weighted average vruntime V, lag = V - vruntime kept
// across sleep and migration and clamped, eligibility (V >= vruntime), a virtual deadline
// one weighted slice ahead, and the pick of the eligible entity with the earliest deadline.
//   6.6: PLACE_LAG, PLACE_DEADLINE_INITIAL, RUN_TO_PARITY, wake-up preemption when the
//        woken task would be picked.
//   6.12 adds PREEMPT_SHORT, DELAY_DEQUEUE with DELAY_ZERO, PLACE_REL_DEADLINE and custom
//        slices (sched_attr.sched_runtime of a fair task: rt-app's dl-runtime).
//
//   params.h     the switches and tunables, declared once
//   eevdf.cpp    the fair class, wake_affine (WA_IDLE) and select_idle_sibling
//   presets.cpp  eevdf-6.6, eevdf-6.12 (and eevdf): rows of defaults, 6.x's domains
//
// The run queues are the shared fair ones (policy/fair) with the deadline queue as the
// timeline (deadline_queue.h), the balancer the shared one
// (policy/balance) with 2.6.32's rules and 6.x's domain settings. Simplified: no PELT, so
// load balancing and fork placement use queue weights, WA_WEIGHT falls back to prev, and
// select_idle_sibling scans the whole cache domain (no SIS_UTIL limit, no idle-core
// search, no recent_used_cpu).
#pragma once

#include <vector>

#include "policy/balance/balancer.h"
#include "policy/eevdf/deadline_queue.h"
#include "policy/eevdf/params.h"
#include "policy/fair/fair_rq.h"
#include "policy/sched_class.h"

namespace schedlab::eevdf {

class Eevdf final : public SchedClass {
 public:
  // Where 6.6 and 6.12 differ in code rather than by a switch.
  struct Release {
    // 6.12: a fair task's sched_attr.sched_runtime is its slice (clamped to 0.1-100 ms).
    bool custom_slices = true;
  };
  static const Release k66, k612;

  Eevdf(const EevdfParams& p, const Release& release, std::vector<balance::DomainTemplate> levels);

  void attach(SchedContext& ctx) override;
  bool custom_slices() const override { return rel_.custom_slices; }
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
  // pick_eevdf's curr (the task put back) lives for one schedule().
  void post_schedule(CpuId cpu) override { q_.rq(cpu).prev = kNoTask; }
  std::string check_invariants() const override;

  // For tests and reports.
  int64_t vruntime_of(TaskId id) const { return q_[id].vruntime; }
  int64_t deadline_of(TaskId id) const { return q_[id].deadline; }
  int64_t vlag_of(TaskId id) const { return q_[id].vlag; }
  bool delayed(TaskId id) const { return q_[id].sched_delayed; }
  int nr_running_of(CpuId cpu) const { return q_.rq(cpu).nr_running; }
  int64_t avg_vruntime_of(CpuId cpu) const { return avg_vruntime(q_.rq(cpu)); }
  int64_t min_vruntime_of(CpuId cpu) const { return q_.rq(cpu).min_vruntime; }

 private:
  // struct sched_entity of 6.x
  struct Entity : fair::EntityBase {
    int64_t vruntime = 0;
    int64_t deadline = 0;  // virtual deadline (relative to vruntime while rel_deadline)
    int64_t vlag = 0;      // V - vruntime when it left; while running, the RUN_TO_PARITY mark
    int64_t slice = 0;
    bool custom_slice = false, sched_delayed = false, rel_deadline = false;
    // 6.12 DELAY_DEQUEUE: asleep but still queued, so never moved.
    bool held() const { return sched_delayed; }
  };
  struct RunQueue : fair::RqBase {
    int64_t min_vruntime = 0;
    // sum of weight x (vruntime - min_vruntime) and of weight over the timeline
    Int128 avg_vruntime = 0;
    int64_t avg_load = 0;
    TaskId prev = kNoTask;    // put back by this schedule(): pick_eevdf's curr
    DeadlineQueue deadlines;  // the timeline: vruntime order, and pick_eevdf()'s choice
  };
  struct VruntimeSums {
    Int128 sum;
    int64_t load;
  };

  void avg_vruntime_add(RunQueue& rq, const Entity& e);
  void avg_vruntime_sub(RunQueue& rq, const Entity& e);
  VruntimeSums vruntime_sums(const RunQueue& rq) const;
  int64_t avg_vruntime(const RunQueue& rq) const;
  bool entity_eligible(const RunQueue& rq, const Entity& e) const;
  void update_min_vruntime(RunQueue& rq);
  void update_curr(CpuId cpu);
  void update_deadline(CpuId cpu, Entity& e);
  void update_entity_lag(const RunQueue& rq, Entity& e);
  void place_entity(RunQueue& rq, Entity& e, bool initial);
  void timeline_insert(RunQueue& rq, const Entity& e);
  void timeline_erase(RunQueue& rq, TaskId id);
  TaskId pick_eevdf(RunQueue& rq, TaskId curr);
  bool protect_slice(const Entity& e) const { return e.vlag == e.deadline; }
  void requeue_delayed_entity(CpuId cpu, Entity& e);
  void finish_dequeue(CpuId cpu, Entity& e, bool sleep);
  CpuId select_wake_cpu(Task& t, CpuId prev, CpuId this_cpu, bool sync);
  CpuId select_idle_sibling(const Task& p, CpuId prev, CpuId target) const;

  EevdfParams p_;
  Release rel_;
  int64_t base_slice_ = 0;         // sysctl_sched_base_slice after the boot-time scaling
  std::vector<CpuMask> llc_span_;  // per CPU: the CPUs sharing its last-level cache
  fair::Queues<Entity, RunQueue> q_;
  DeadlineTree tree_;  // the nodes of the queues long enough for the tree form
  balance::Balancer balancer_;
};

}  // namespace schedlab::eevdf
