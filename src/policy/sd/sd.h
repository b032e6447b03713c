// Staircase Deadline 0.46 (Con Kolivas, April 2007, for 2.6.21; ALGORITHMS.md §3 and the
// RSDL design notes of lkml 2007/3/4, "SD is the new name of RSDL"). Per-CPU run queues
// with an active and an expired array of 40 priority levels. Every task holds a quota of
// rr_interval at each level its nice gives it a slot on (prio_matrix); each level also
// holds the sum of the quotas handed out on it. A task that uses its quota drops to its
// next slot; a level whose quota is used up pushes everything on it down (minor
// rotation); a task with no slot left waits on the expired array until the active one
// empties and the arrays swap (major rotation, a new epoch). A task that sleeps and wakes
// in the same epoch keeps its level and what is left of its quota; a waking task on a
// better level than the running one preempts it. No sleep-based bonus anywhere.
//
// Judgement calls (the 0.46 patch itself was not found; marked where they apply):
// - prio_matrix: nice n has 20 - n slots, spread evenly so that every nice has slot 39;
//   this reproduces the rows the patch's comment pictured for nice -20, 0, 10, 15, 19.
// - every task's quota is rr_interval (8 ms, times 1 + ilog2(CPUs) on SMP); nice works
//   only through the number of slots, so CPU shares are in the ratio of slot counts.
// - a task newly in an epoch, or moving down, takes its first free slot at or below the
//   level its nice's peers have reached on that CPU (per-nice prio_level, as 0.4x kept
//   it), so it never gets ahead of tasks that ran all along.
// - quotas are charged in nanoseconds; expiry is checked at ticks and switches.
// - fork: the child shares the parent's slot and remaining quota, half each (no new
//   quota enters the level); yield gives up the rest of the current slot.
// - SCHED_BATCH never preempts on wake-up; SCHED_IDLE has nice 19's single slot.
// - load weight for the balancer: slots x 1024 / 20 (nice 0 = 1024); balancing, wake
//   affinity and domains are mainline's (2.6.21/22), shared with o1 (o1_balance.cpp).
// - a task moved to another CPU starts afresh in that CPU's epoch; the quota it held
//   leaves its old level.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "policy/o1/o1.h"

namespace schedlab::sd {

constexpr int kLevels = o1::kLevels;

// Which of the 40 levels a static priority (0 = nice -20 ... 39 = nice 19) has slots on.
uint64_t prio_matrix(int static_level);

struct Tunables {
  int64_t rr_interval_ms = 8;
  bool scale_rr_interval = true;  // by 1 + ilog2(CPUs)
  o1::Tunables o1;
};

class StaircaseDeadline final : public o1::O1 {
 public:
  explicit StaircaseDeadline(Tunables t)
      : O1(std::move(t.o1)), rr_interval_ms_(t.rr_interval_ms), scale_rr_(t.scale_rr_interval) {}

  void attach(SchedContext& ctx) override;
  void task_new(Task& t, const Task* parent) override;
  void enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) override;
  void dequeue(CpuId cpu, Task& t, DequeueKind how) override;
  void check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) override;
  Task* pick_next(CpuId cpu) override;
  void put_prev(CpuId cpu, Task& prev) override;
  void task_tick(CpuId cpu, Task& curr) override;
  void yield(CpuId cpu) override;
  void task_dead(Task&) override {}
  std::string check_invariants() const override;

  // For tests.
  int level_of(TaskId id) const { return se_[id].prio - o1::kMaxRtPrio; }
  int64_t quota_left(TaskId id) const { return stair_[id].time_slice; }
  int64_t epoch(CpuId cpu) const { return rot_[cpu].epoch; }
  int64_t rr_interval_ns() const { return quota_; }

 private:
  struct Stair {
    int static_level = 20;  // nice + 20
    uint64_t used = 0;      // slots already handed out in this epoch
    int64_t epoch = -1;
    CpuId epoch_cpu = kNoCpu;
    int64_t time_slice = 0;  // ns of quota left on the current level
    int64_t exec_start = 0;
  };
  struct Rotation {
    int64_t epoch = 0;
    std::array<int64_t, kLevels> level_quota{};  // ns
    std::array<int, kLevels> prio_level{};       // per static level: where peers are
  };

  void set_static(Entity& e, Stair& s);
  bool take_slot(CpuId cpu, Entity& e, Stair& s);
  void place(CpuId cpu, Entity& e, int array);
  void queue_task(CpuId cpu, Entity& e);
  void move_down(CpuId cpu, Entity& e);
  void charge(CpuId cpu, Entity& e);
  bool quota_check(CpuId cpu, Entity& e);
  void minor_rotation(CpuId cpu, int level);
  void major_rotation(CpuId cpu);

  int64_t rr_interval_ms_;
  bool scale_rr_;
  int64_t quota_ = 0;  // rr_interval in ns, scaled for the machine at attach
  std::vector<Stair> stair_;
  std::vector<Rotation> rot_;
};

PolicyInfo sd_policy_info();

}  // namespace schedlab::sd
