// Staircase Deadline (Con Kolivas, spring 2007, for 2.6.21), as the nearest public source
// has it: the SD of 2.6.21-ck1 (4 May 2007; NixOS/nixpkgs
// pkgs/os-specific/linux/kernel/patch-2.6.21-ck1 @e20c559e5f8d, kernel/sched.c), nine days
// after SD 0.46, which E5 ran and which was not found (docs/algorithms/sd.md). The -ck
// additions (SCHED_ISO, SCHED_IDLEPRIO, rr_interval 6 and the `interactive` sysctl on)
// are not SD's: rr_interval is 8 ms and `interactive` off by default, as parameters.
//
// Per-CPU run queues with an active and an expired array of 40 priority levels. Each
// task gets a quota (rr_quota(): rr_interval for nice -6..0, nice^2/40 of it below, half
// above 0) on each level of its nice's row of prio_matrix; it takes its next free slot
// (next_entitled_slot(): at or below the levels tasks of its and better nice levels have
// reached on that CPU, prio_level) when its quota runs out, and goes to the expired array,
// on its first slot with a fresh quota, when it has none left or a better nice has
// expired. The arrays swap (a major rotation) when the active one is empty; the rotation
// also advances when the CPU goes idle. A task woken in the same rotation keeps its level
// while it has quota left. A woken task on the active array on a better level preempts.
// There is no per-level quota and no sleep-based bonus.
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

// The levels a static priority (0 = nice -20 ... 39 = nice 19) has slots on, as
// sched_init() generates prio_matrix (bit set: a slot; the kernel's rows mark slots 0).
uint64_t prio_matrix(int static_level);

#define SD_PARAMS(X)                                                                          \
  X(int64_t, rr_interval_ms, 8, params::at_least(0),                                          \
    "2.6.21-ck1 (\"a minimum of 8ms\"; -ck set 6)", "RR_INTERVAL, the nice-0 quota per slot") \
  X(bool, scale_rr_interval, true, params::any(), "2.6.21-ck1 sched_init_smp()",              \
    "multiply rr_interval by 1 + ilog2(CPUs)")                                                \
  X(bool, interactive, false, params::any(),                                                  \
    "2.6.21-ck1 sched_interactive (on in -ck; rolled into SD only at 1.00)",                  \
    "a task's slot search starts at level 0, not at its nice level's prio_level (still "      \
    "below where better nice levels have got to)")                                            \
  X(int64_t, cache_hot_time_ns, 2'500'000, params::at_least(0), "2.6.21 (assumed)",           \
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
  void task_dead(Task& t) override;
  void balance(CpuId cpu) override { balancer_.active_balance(cpu); }
  void idle_balance(CpuId cpu) override { balancer_.idle_balance(cpu); }
  void tick_balance(CpuId cpu) override { balancer_.tick(cpu); }
  std::string check_invariants() const override;

  // For tests.
  int level_of(TaskId id) const { return q_[id].prio - arrays::kMaxRtPrio; }
  int64_t quota_left_us(TaskId id) const { return q_[id].time_slice; }
  int64_t quota_us(TaskId id) const { return q_[id].quota; }
  int64_t rotation(CpuId cpu) const { return rot_[cpu].rotation; }
  bool expired(TaskId id) const { return q_.expired(id); }

 private:
  // The task_struct fields SD added (the Slot has prio and the list).
  struct Entity : arrays::Slot {
    int static_level = 20;  // USER_PRIO(static_prio): nice + 20
    bool batch = false;
    uint64_t bitmap = 0;      // p->bitmap: the levels it took quota on this rotation
    int64_t rotation = 0;     // p->rotation
    CpuId home_cpu = kNoCpu;  // p->array, which outlives a dequeue: that CPU's ...
    int home_array = -1;      // ... array 0 or 1
    int64_t time_slice = 0;   // us of quota left on the current level
    int64_t quota = 0;        // us per level (rr_quota)
    int64_t clock_at = 0;     // ns: last charged (update_cpu_clock's p->last_ran)
    bool first_time_slice = false;
    TaskId parent = kNoTask;
  };
  // A CPU's rotation count, prio_level (per static level, the level its tasks have
  // reached) and each array's best static priority (by index 0/1 of the arrays).
  struct Rotation {
    int64_t rotation = 0;
    std::array<int, kLevels> prio_level{};
    std::array<int, 2> best_static{kLevels - 1, kLevels - 1};
  };

  int64_t rr_quota_us(const Entity& e) const;
  void set_static(Entity& e);
  void set_quota(Entity& e);
  void reset_prio_levels(CpuId cpu);
  void new_array(CpuId cpu, Entity& e, int array);
  void queue_expired(CpuId cpu, Entity& e);
  int next_entitled_slot(CpuId cpu, Entity& e);
  void update_if_moved(CpuId cpu, Entity& e);
  void recalc_task_prio(CpuId cpu, Entity& e);
  void queue_task(CpuId cpu, Entity& e);
  void expired_entitlement(CpuId cpu, Entity& e);
  void charge(Entity& e, bool tick);

  SdParams p_;
  int64_t rr_interval_ms_ = 0;  // scaled for the machine at attach
  arrays::PrioArrays<Entity> q_;
  std::vector<Rotation> rot_;
  balance::Balancer balancer_;
};

}  // namespace schedlab::sd
