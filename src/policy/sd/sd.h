// Staircase Deadline 0.46 (Con Kolivas, April 2007, for 2.6.21; docs/algorithms/sd.md and
// the RSDL design notes of lkml 2007/3/4, "SD is the new name of RSDL"). Per-CPU run queues
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
// - load weight for the balancer: slots x 1024 / 20 (nice 0 = 1024); the arrays,
//   balancing, wake affinity and domains are mainline's (2.6.21/22), components shared
//   with o1 (policy/arrays, policy/balance).
// - a task moved to another CPU starts afresh in that CPU's epoch; the quota it held
//   leaves its old level.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "params/declared.h"
#include "policy/arrays/prio_arrays.h"
#include "policy/balance/balancer.h"
#include "policy/sched_class.h"

namespace schedlab::sd {

constexpr int kLevels = arrays::kLevels;

// Which of the 40 levels a static priority (0 = nice -20 ... 39 = nice 19) has slots on.
uint64_t prio_matrix(int static_level);

#define SD_PARAMS(X)                                                                            \
  X(int64_t, rr_interval_ms, 8, params::at_least(0), "SD 0.46", "quota per slot (RR_INTERVAL)") \
  X(bool, scale_rr_interval, true, params::any(), "SD 0.46",                                    \
    "multiply rr_interval by 1 + ilog2(CPUs) (unverified)")                                     \
  X(int64_t, cache_hot_time_ns, 2'500'000, params::at_least(0), "2.6.21 (assumed)",             \
    "a task that ran this recently is cache hot (mainline's balancer)")
SCHEDLAB_DECLARE_PARAMS(SdParams, SD_PARAMS)

class StaircaseDeadline final : public SchedClass {
 public:
  explicit StaircaseDeadline(const SdParams& p);

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
  std::string check_invariants() const override;

  // For tests.
  int level_of(TaskId id) const { return q_[id].prio - arrays::kMaxRtPrio; }
  int64_t quota_left(TaskId id) const { return q_[id].time_slice; }
  int64_t epoch(CpuId cpu) const { return rot_[cpu].epoch; }
  int64_t rr_interval_ns() const { return quota_; }

 private:
  // A task's place on the staircase.
  struct Entity : arrays::Slot {
    int static_level = 20;  // nice + 20
    uint64_t used = 0;      // slots already handed out in this epoch
    int64_t epoch = -1;
    CpuId epoch_cpu = kNoCpu;
    int64_t time_slice = 0;  // ns of quota left on the current level
    int64_t exec_start = 0;
  };
  // A CPU's epoch and its levels' quotas.
  struct Rotation {
    int64_t epoch = 0;
    std::array<int64_t, kLevels> level_quota{};  // ns
    std::array<int, kLevels> prio_level{};       // per static level: where peers are
  };

  void set_static(Entity& e);
  bool take_slot(CpuId cpu, Entity& e);
  void place(CpuId cpu, Entity& e, int array);
  void queue_task(CpuId cpu, Entity& e);
  void move_down(CpuId cpu, Entity& e);
  void charge(CpuId cpu, Entity& e);
  bool quota_check(CpuId cpu, Entity& e);
  void minor_rotation(CpuId cpu, int level);
  void major_rotation(CpuId cpu);

  SdParams p_;
  int64_t quota_ = 0;  // rr_interval in ns, scaled for the machine at attach
  arrays::PrioArrays<Entity> q_;
  std::vector<Rotation> rot_;
  balance::Balancer balancer_;
};

}  // namespace schedlab::sd
