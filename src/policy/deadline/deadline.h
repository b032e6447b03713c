// SCHED_DEADLINE as in kernel/sched/deadline.c of Linux 6.x: each task is a constant
// bandwidth server (runtime every period, due by deadline), scheduled earliest deadline
// first on per-CPU queues, made global EDF by pushing to and pulling from other CPUs.
//
// Followed: the CBS wake-up rule (dl_entity_overflow, with the revised rule for
// constrained deadlines), dl_check_constrained_dl (4.11+), replenish_dl_entity, throttling
// when the runtime is used up and the replenishment timer at the next period, sched_yield
// as "job done, sleep until the next period", runtime consumption scaled by CPU capacity,
// select_task_rq_dl with find_later_rq (free CPUs first, else the CPU with the latest
// earliest deadline), push_dl_task after a switch, a wake-up or a replenishment (from an
// overloaded queue, or from 6.7 any queued task: Rules), pull_dl_task when a deadline task
// leaves a CPU. Like a kernel without HRTICK_DL (its default), the runtime is enforced at
// ticks, so a task may overrun its budget by up to a tick (charged to its next period).
// Left out: bandwidth reclaiming (GRUB, SCHED_FLAG_RECLAIM), the 0-lag inactive timer
// (bandwidth is released at exit), deadline servers for the fair class (6.12's
// fair_server), priority inheritance and capacity-aware placement on asymmetric machines.
// The class also owns sched_setattr()'s admission control and the count of jobs met and
// missed (accounting.cpp).
#pragma once

#include <vector>

#include "events/deadline_job.h"
#include "policy/sched_class.h"

namespace schedlab {

class DlClass final : public SchedClass {
 public:
  // What differs between the releases the stacks above model.
  struct Rules {
    // push_dl_task() moves a lone queued task to a CPU running no deadline task: from 6.7
    // (5fe7765997b1, the pushable tasks drive dl_rq->overloaded) any queued task that may
    // run elsewhere is pushed; before, only from a queue holding two or more.
    bool push_lone = false;
  };
  DlClass() = default;
  explicit DlClass(Rules rules) : rules_(rules) {}

  void attach(SchedContext& ctx) override;
  bool takes(SchedPolicy p) const override { return p == SchedPolicy::kDeadline; }
  bool idle_until_first_task() const override { return true; }
  // Its check_preempt decides for any current task (a throttled task waits for its
  // timer; one that cannot preempt is pushed).
  bool decides_preemption_of_lower() const override { return true; }
  bool follows_task_life() const override { return true; }
  // accounting.cpp: admission control, and the jobs.
  std::string sched_setattr(const Task& t, const SchedSettings& s) override;
  void task_woken(Task& t) override;
  void task_blocked(Task& t) override;
  void task_period_done(Task& t, bool next_started) override;
  void task_exiting(Task& t) override;
  void run_ended() override;

  void task_new(Task& t, const Task* parent) override;
  CpuId select_cpu(Task& t, CpuId prev, const WakeInfo& how) override;
  void enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) override;
  void dequeue(CpuId cpu, Task& t, DequeueKind how) override;
  // Called for every woken deadline task, whatever class the CPU's current task is in.
  void check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) override;
  Task* pick_next(CpuId cpu) override;
  void put_prev(CpuId cpu, Task& prev) override;
  void task_tick(CpuId cpu, Task& curr) override;
  // sched_yield(): the job is done; its budget is given up until the next period.
  void yield(CpuId cpu) override;
  void balance(CpuId cpu) override;
  void post_schedule(CpuId cpu) override;
  void timer_fired(TaskId id) override;
  std::string check_invariants() const override;

  // The earliest deadline on a CPU (running or queued), or -1 when it runs none.
  Time earliest_deadline(CpuId cpu) const;
  // For tests: a task's scheduling deadline, remaining runtime and throttled state.
  Time deadline_of(TaskId id) const { return se_[id].deadline; }
  Time runtime_of(TaskId id) const { return se_[id].runtime; }
  bool throttled(TaskId id) const { return se_[id].throttled; }

 private:
  struct Entity {
    Task* task = nullptr;
    Time runtime = 0;       // budget left in this period (negative after a tick-late throttle)
    Time deadline = 0;      // absolute scheduling deadline
    Time charged_exec = 0;  // Task::sum_exec_ns already charged to the budget
    Time timer_at = -1;     // pending replenishment, or -1
    uint64_t seq = 0;       // queue order among equal deadlines
    bool fresh = true;      // never activated with its current parameters
    bool throttled = false;
    bool yielded = false;
    bool in_queue = false;
    CpuId queue_cpu = kNoCpu;
    DeadlineJob job;  // the job counted against its deadline (not the CBS deadline above)
  };
  struct RunQueue {
    std::vector<TaskId> queue;  // sorted by (deadline, seq), latest first: the pick is back()
    TaskId curr = kNoTask;
    bool pull_wanted = false;  // a deadline task left this CPU (balance_dl)
  };

  bool earlier(const Entity& a, const Entity& b) const {
    return a.deadline != b.deadline ? a.deadline < b.deadline : a.seq < b.seq;
  }
  void insert(CpuId cpu, Entity& e);
  void remove(Entity& e);
  void update_curr(CpuId cpu);
  void replenish(Entity& e);
  void new_period(Entity& e);
  void update_on_wakeup(Entity& e);
  void throttle(CpuId cpu, Entity& e);
  bool held_to_next_period(Entity& e);
  bool overflows(const Entity& e, Time now) const;
  CpuId find_later_cpu(const Task& t) const;
  bool push_one(CpuId cpu);
  void pull(CpuId cpu);
  void preempt_if_earlier(CpuId cpu, Entity& e);
  void start_job(Task& t);
  void close_job(Task& t, bool exiting = false);

  // The bandwidth admitted for each task (runtime/period << 20; 0 for no reservation),
  // kept from its first sched_setattr, before it joins, until it exits.
  std::vector<int64_t> bw_;
  int64_t total_bw_ = 0;

  Rules rules_;
  std::vector<Entity> se_;
  std::vector<RunQueue> rq_;
  uint64_t next_seq_ = 0;
  int pushing_ = 0;  // re-entry guard: a push's migration asks check_preempt again
};

}  // namespace schedlab
