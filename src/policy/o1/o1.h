// The O(1) scheduler of Linux 2.6.22 (kernel/sched.c; ALGORITHMS.md §4), the normal
// class before CFS: per-CPU run queues with an active and an expired array of 40 FIFO
// priority lists, timeslices by static priority, the sleep_avg interactivity bonus,
// TASK_INTERACTIVE reinsertion with the expired-starvation limit, TIMESLICE_GRANULARITY
// round robin, fork slice splitting with sleep_avg penalties, and its load balancer.
// o1.cpp holds the scheduling of one CPU, o1_balance.cpp placement and balancing.
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

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "policy/cfs/sched_domains.h"
#include "policy/registry.h"
#include "policy/task_list.h"

namespace schedlab::o1 {

constexpr int kMaxRtPrio = 100, kMaxPrio = 140, kLevels = 40;

enum class SleepType : uint8_t { kNormal, kNonInteractive, kInteractive, kInterrupted };
enum class IdleType : uint8_t { kIdle, kNotIdle, kNewlyIdle };

struct Tunables {
  int64_t cache_hot_time_ns = 2'500'000;
  int64_t starvation_limit_ms = 1000;  // STARVATION_LIMIT = MAX_SLEEP_AVG at HZ 1000
  std::vector<cfs::DomainTemplate> domains;
};

class O1 : public SchedClass {
 public:
  explicit O1(Tunables t) : tun_(std::move(t)) {}

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
  void balance(CpuId cpu) override;
  void idle_balance(CpuId cpu) override;
  void tick_balance(CpuId cpu) override;
  void task_dead(Task& t) override;
  std::string check_invariants() const override;

  // For tests.
  int prio_of(TaskId id) const { return se_[id].prio; }
  bool expired(TaskId id) const;
  int64_t sleep_avg_of(TaskId id) const { return se_[id].sleep_avg; }

 protected:  // SD 0.46 (policy/sd) keeps these arrays and this balancer
  struct Entity {
    Task* task = nullptr;
    int static_prio = 120, prio = 120;
    int64_t sleep_avg = 0;   // ns
    int64_t time_slice = 0;  // jiffies
    int64_t timestamp = 0;   // ns: last switch, wake-up or fork
    int64_t last_ran = 0;    // ns: when it last left a CPU (cache-hot test)
    int64_t load_weight = 0;
    bool first_time_slice = false;
    SleepType sleep_type = SleepType::kNormal;
    int array = -1;  // 0/1: which array of its CPU holds it; -1: none
    CpuId rq_cpu = kNoCpu;
    TaskLinks links;  // its place in its priority list
    TaskId parent = kNoTask;
  };
  struct PrioArray {
    std::array<TaskList, kLevels> queue{};
    uint64_t bitmap = 0;
    int nr_active = 0;
  };
  struct RunQueue {
    std::array<PrioArray, 2> arrays{};
    int active = 0;
    int nr_running = 0;  // queued and running tasks of this class
    int64_t raw_weighted_load = 0;
    int64_t expired_timestamp = 0;  // jiffies; 0: none
    int best_expired_prio = kMaxPrio;
    std::array<int64_t, 3> cpu_load{};
    TaskId curr = kNoTask;  // the running task, which stays in its list as in the kernel
    std::vector<cfs::Domain> domains;
    int64_t next_balance = 0;  // jiffies
    bool active_balance = false;
    CpuId push_cpu = kNoCpu;
  };

  // o1.cpp
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
  bool expired_starving(const RunQueue& rq) const;
  void enqueue_task(CpuId cpu, Entity& e, int array);
  void dequeue_task(Entity& e);
  void requeue_task(Entity& e);
  void activate(CpuId cpu, Entity& e);
  void deactivate(Entity& e);
  void switch_out(Entity& e);
  void slice_tick(CpuId cpu, Entity& e);

  // o1_balance.cpp
  int64_t source_load(CpuId cpu, int idx) const;
  int64_t target_load(CpuId cpu, int idx) const;
  int64_t cpu_avg_load_per_task(CpuId cpu) const;
  void update_load(CpuId cpu);
  bool task_hot(const Entity& e, const cfs::Domain& sd) const;
  bool can_migrate(const Entity& e, CpuId src, CpuId this_cpu, const cfs::Domain& sd,
                   bool* all_pinned) const;
  int move_tasks(CpuId this_cpu, CpuId busiest, int max_nr_move, int64_t max_load_move,
                 const cfs::Domain& sd, bool* all_pinned);
  int find_busiest_group(CpuId this_cpu, cfs::Domain& sd, IdleType idle, const CpuMask& cpus,
                         bool* balance, int64_t* imbalance) const;
  CpuId find_busiest_queue(const cfs::Domain& sd, int group, int64_t imbalance,
                           const CpuMask& cpus) const;
  int load_balance(CpuId this_cpu, cfs::Domain& sd, IdleType idle, bool* balance);
  int load_balance_newidle(CpuId this_cpu, cfs::Domain& sd);
  void rebalance_domains(CpuId cpu, IdleType idle);

  // pull_task()'s enqueue_task(p, this_array): the moved task was in its CPU's expired
  // array, and goes to the expired array here (EnqueueFlags::class_bits).
  static constexpr uint32_t kToExpired = 1;

  Tunables tun_;
  std::vector<Entity> se_;
  std::vector<RunQueue> rq_;
  int64_t ilb_jiffy_ = -1;
};

// 2.6.22's sched domains (shared with SD 0.46, which kept mainline's balancer).
std::vector<cfs::DomainTemplate> domains_2622();

PolicyInfo o1_policy_info();

}  // namespace schedlab::o1
