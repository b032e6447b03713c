// The Completely Fair Scheduler of Linux 2.6.23, 2.6.31 and 2.6.32 (SCHED_NORMAL,
// SCHED_BATCH, SCHED_IDLE). One class serves the three releases; `Era` selects where they
// differ. 2.6.23 is a different fair algorithm (fair_clock and wait_runtime) that shares
// the run queues, domains and balancing.
//
//   fair.cpp       kernel/sched_fair.c of 2.6.31/32: run queues, vruntime, slices,
//                  placement, wake-up and tick preemption, buddies, yield,
//                  select_task_rq_fair
//   fair_2623.cpp  kernel/sched_fair.c of 2.6.23 and its try_to_wake_up
//   balance.cpp  kernel/sched.c: cpu_load[], fork balancing, periodic, new-idle and
//                active load balancing over the scheduling domains
//   presets.cpp  the SCHED_FEAT switches, tunables and presets cfs-2.6.31 / cfs-2.6.32
//
// Group scheduling is left out (one flat cfs_rq per CPU, as with CONFIG_FAIR_GROUP_SCHED
// off). Run-queue load counts CFS tasks only: an RT task on the CPU adds no weight.
#pragma once

#include <array>
#include <vector>

#include "policy/cfs/fair_math.h"
#include "policy/cfs/sched_domains.h"
#include "policy/cfs/timeline.h"
#include "policy/params.h"
#include "policy/sched_class.h"

namespace schedlab::cfs {

enum class Era : uint8_t { k2623, k2631, k2632, k66, k612 };

// SCHED_FEAT switches (kernel/sched_features.h). A switch the era lacks stays false.
struct Features {
  bool new_fair_sleepers = false;  // 2.6.31
  bool fair_sleepers = false;      // 2.6.32
  bool gentle_fair_sleepers = false;
  bool normalized_sleeper = false;
  bool adaptive_gran = false;
  bool wakeup_preempt = false;
  bool start_debit = false;
  bool affine_wakeups = false;
  bool cache_hot_buddy = false;
  bool sync_wakeups = false;
  bool asym_gran = false;
  bool lb_bias = false;
  bool wakeup_overlap = false;
  bool last_buddy = false;
  bool next_buddy = false;              // 2.6.32 (2.6.31 always sets the next buddy)
  bool wakeup_sync = false;             // 2.6.32
  bool wakeup_running = false;          // 2.6.32
  bool sync_less = false;               // 2.6.32
  bool sync_more = false;               // 2.6.32
  bool sleeper_avg = false;             // 2.6.23
  bool sleeper_load_avg = false;        // 2.6.23
  bool skip_initial = false;            // 2.6.23
  bool place_lag = false;               // EEVDF
  bool place_deadline_initial = false;  // EEVDF
  bool place_rel_deadline = false;      // 6.12
  bool run_to_parity = false;           // EEVDF
  bool preempt_short = false;           // 6.12
  bool delay_dequeue = false;           // 6.12
  bool delay_zero = false;              // 6.12
};

// sysctl values in effect (after the boot-time scaling by CPU count).
struct Tunables {
  int64_t latency = 0, min_granularity = 0, wakeup_granularity = 0, migration_cost = 0;
  int64_t nr_latency = 5;
  bool child_runs_first = false;
  bool compat_yield = false;
  int nr_migrate = 32;
  int64_t batch_wakeup_granularity = 0;  // 2.6.23 (not scaled)
  int64_t runtime_limit = 0;             // 2.6.23: bound of wait_runtime; 0 = the latency
  bool forks_are_threads = true;         // 2.6.23: CLONE_VM forks skip task_new_fair
  int64_t base_slice = 0;                // EEVDF: sysctl_sched_base_slice
};

struct CfsConfig {
  Era era = Era::k2632;
  Features feat;
  Tunables base;            // before scaling
  int tunable_scaling = 1;  // 0 none, 1 1+ilog2(ncpus) (the only mode of 2.6.31/32)
  std::vector<DomainTemplate> domains;
};

CfsConfig cfs_config(Era era, const ParamValues& p);

class Cfs final : public SchedClass {
 public:
  explicit Cfs(CfsConfig config) : cfg_(std::move(config)) {}

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
  void balance(CpuId cpu) override;
  void idle_balance(CpuId cpu) override;
  void tick_balance(CpuId cpu) override;
  void post_schedule(CpuId cpu) override {
    if (eevdf()) rq_[cpu].prev = kNoTask;  // pick_eevdf's curr lives for one schedule()
  }

  std::string check_invariants() const override;

  // For tests and reports.
  int64_t vruntime_of(TaskId id) const { return se_[id].vruntime; }
  int64_t deadline_of(TaskId id) const { return se_[id].deadline; }
  int64_t vlag_of(TaskId id) const { return se_[id].vlag; }
  bool delayed(TaskId id) const { return se_[id].sched_delayed; }
  int nr_running_of(CpuId cpu) const { return rq_[cpu].nr_running; }
  int64_t avg_vruntime_of(CpuId cpu) const { return avg_vruntime(rq_[cpu]); }
  int64_t min_vruntime_of(CpuId cpu) const { return rq_[cpu].min_vruntime; }
  const Tunables& tunables() const { return tun_; }
  const std::vector<Domain>& domains_of(CpuId cpu) const { return rq_[cpu].domains; }

 private:
  // struct sched_entity, plus the task fields the fair class reads.
  struct Entity {
    Task* task = nullptr;
    LoadWeight load;
    int64_t vruntime = 0;
    CpuId frame_cpu = kNoCpu;  // the run queue whose min_vruntime `vruntime` follows
    bool on_rq = false;
    int64_t charged_exec = 0;  // Task::sum_exec_ns already turned into vruntime
    int64_t prev_sum_exec = 0;
    int64_t exec_start = 0;
    int64_t last_wakeup = 0, start_runtime = 0;
    int64_t avg_overlap = 0, avg_wakeup = 0, avg_running = 0;
    TaskId parent = kNoTask;  // set by a fork until the child is first queued
    TaskId list_prev = kNoTask, list_next = kNoTask;  // cfs_rq->tasks, newest first
    // 2.6.23
    int64_t fair_key = 0, wait_runtime = 0, wait_start_fair = 0, sleep_start_fair = 0;
    // EEVDF
    int64_t deadline = 0, vlag = 0, slice = 0;
    bool custom_slice = false, sched_delayed = false, rel_deadline = false;
  };

  // struct rq with its cfs_rq.
  struct RunQueue {
    explicit RunQueue(std::vector<int32_t>* positions) : timeline(positions) {}
    Timeline timeline;
    int64_t min_vruntime = 0;
    LoadWeight load;
    int nr_running = 0;
    TaskId curr = kNoTask, next = kNoTask, last = kNoTask;
    TaskId tasks_head = kNoTask;
    std::array<int64_t, 5> cpu_load{};
    int64_t load_jiffy = 0;  // the last jiffy cpu_load[] was updated for
    int64_t next_balance_jiffy = 0;
    bool active_balance = false;
    CpuId push_cpu = kNoCpu;
    int64_t idle_stamp = 0, avg_idle = 0;       // 2.6.32 new-idle rate limit
    int64_t fair_clock = 0, sleeper_bonus = 0;  // 2.6.23
    // EEVDF: sum of weight x (vruntime - min_vruntime) and of weight over the timeline
    Int128 avg_vruntime = 0;
    int64_t avg_load = 0;
    TaskId prev = kNoTask;  // put back by this schedule(): pick_eevdf's curr
    std::vector<Domain> domains;
  };

  enum class IdleType : uint8_t { kNotIdle, kIdle, kNewlyIdle };

  // ---- fair.cpp
  bool era31() const { return cfg_.era == Era::k2631; }
  bool era23() const { return cfg_.era == Era::k2623; }
  bool era32() const { return cfg_.era == Era::k2632; }
  bool eevdf() const { return cfg_.era == Era::k66 || cfg_.era == Era::k612; }
  bool era612() const { return cfg_.era == Era::k612; }
  // Balancing behaviours 2.6.32 introduced and later kernels kept (new-idle balancing
  // rate-limited by avg_idle, SD_PREFER_SIBLING, group power as the sum of CPUs).
  bool balance32() const { return era32() || eevdf(); }
  Entity& se(TaskId id) { return se_[id]; }
  void update_curr(CpuId cpu);
  void update_min_vruntime(RunQueue& rq);
  int64_t sched_period(int64_t nr_running) const;
  int64_t sched_slice(const RunQueue& rq, const Entity& e) const;
  int64_t sched_vslice(const RunQueue& rq, const Entity& e) const;
  void place_entity(RunQueue& rq, Entity& e, bool initial);
  void account_enqueue(CpuId cpu, Entity& e);
  void account_dequeue(CpuId cpu, Entity& e);
  void enqueue_entity(CpuId cpu, Entity& e);
  void dequeue_entity(CpuId cpu, Entity& e);
  void clear_buddies(RunQueue& rq, TaskId id);
  void set_next_entity(CpuId cpu, TaskId id);
  TaskId pick_next_entity(RunQueue& rq);
  void check_preempt_tick(CpuId cpu, Entity& curr);
  int64_t wakeup_gran(const Entity& curr, const Entity& woken, const RunQueue& rq) const;
  int wakeup_preempt_entity(const Entity& curr, const Entity& woken, const RunQueue& rq) const;
  void task_new_fair(CpuId cpu, Entity& child, CpuId parent_cpu);
  void follow_frame(CpuId cpu, Entity& e);
  void record_wakeup_by(TaskId waker);
  CpuId select_wake_cpu_2631(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker);
  CpuId select_wake_cpu_2632(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker);
  bool wake_affine(const Domain& sd, Task& p, CpuId prev, CpuId this_cpu, bool sync, TaskId waker,
                   int64_t load, int64_t this_load);

  // ---- fair_2623.cpp
  void update_curr_23(CpuId cpu);
  int64_t sched_granularity_23(const RunQueue& rq) const;
  int64_t niced_granularity_23(const Entity& curr, int64_t granularity) const;
  void add_wait_runtime_23(Entity& e, int64_t delta) const;
  void update_stats_enqueue_23(RunQueue& rq, Entity& e);
  void update_stats_wait_end_23(RunQueue& rq, Entity& e);
  void enqueue_sleeper_23(CpuId cpu, Entity& e);
  void enqueue_entity_23(CpuId cpu, Entity& e, bool wakeup);
  void dequeue_entity_23(CpuId cpu, Entity& e, bool sleep);
  void check_preempt_curr_fair_23(CpuId cpu, Entity& woken, Entity& curr, int64_t granularity);
  void follow_frame_23(CpuId cpu, Entity& e);
  void enqueue_23(CpuId cpu, Task& t, EnqueueKind how);
  void dequeue_23(CpuId cpu, Task& t, DequeueKind how);
  Task* pick_next_23(CpuId cpu);
  void put_prev_23(CpuId cpu, Task& prev);
  void task_tick_23(CpuId cpu, Task& curr);
  void check_preempt_23(CpuId cpu, Task& curr, Task& woken);
  void yield_23(CpuId cpu);
  CpuId select_wake_cpu_2623(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker);
  CpuId wake_idle_23(CpuId cpu, const Task& p) const;

  // ---- eevdf.cpp
  int64_t calc_delta_fair_66(int64_t delta, const LoadWeight& lw) const;
  void avg_vruntime_add(RunQueue& rq, const Entity& e);
  void avg_vruntime_sub(RunQueue& rq, const Entity& e);
  struct VruntimeSums {
    Int128 sum;
    int64_t load;
  };
  VruntimeSums vruntime_sums(const RunQueue& rq) const;
  int64_t avg_vruntime(const RunQueue& rq) const;
  bool entity_eligible(const RunQueue& rq, const Entity& e) const;
  void update_min_vruntime_66(RunQueue& rq);
  void update_curr_66(CpuId cpu);
  void update_deadline(CpuId cpu, Entity& e);
  void update_entity_lag(const RunQueue& rq, Entity& e);
  void place_entity_66(RunQueue& rq, Entity& e, bool initial);
  TaskId pick_eevdf(const RunQueue& rq, TaskId curr) const;
  bool protect_slice(const Entity& e) const { return e.vlag == e.deadline; }
  void finish_dequeue_66(CpuId cpu, Entity& e, bool sleep);
  void enqueue_66(CpuId cpu, Task& t, EnqueueKind how);
  void dequeue_66(CpuId cpu, Task& t, DequeueKind how);
  Task* pick_next_66(CpuId cpu);
  void put_prev_66(CpuId cpu, Task& prev);
  void task_tick_66(CpuId cpu, Task& curr);
  void check_preempt_66(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how);
  void yield_66(CpuId cpu);
  CpuId select_wake_cpu_66(Task& t, CpuId prev, CpuId this_cpu, bool sync);
  CpuId select_idle_sibling(const Task& p, CpuId prev, CpuId target) const;
  std::vector<CpuMask> llc_span_;  // per CPU: the CPUs sharing its last-level cache

  // ---- balance.cpp
  int64_t jiffies() const { return ctx_->now() / ctx_->tick_ns(); }
  int64_t msecs_to_jiffies(int64_t ms) const;
  void sync_cpu_load(CpuId cpu);
  int64_t weighted_cpuload(CpuId cpu) const { return rq_[cpu].load.weight; }
  // The kernel's rq->nr_running counts every class: the fair tasks, plus the RT or
  // deadline task running there (queued RT/deadline tasks are not seen from here).
  int64_t all_running(CpuId cpu) const {
    const Task* curr = ctx_->curr(cpu);
    const bool other_class =
        curr && (is_rt(curr->policy) || curr->policy == SchedPolicy::kDeadline);
    return rq_[cpu].nr_running + (other_class ? 1 : 0);
  }
  int64_t source_load(CpuId cpu, int idx);
  int64_t target_load(CpuId cpu, int idx);
  int64_t cpu_avg_load_per_task(CpuId cpu) const;
  int find_idlest_group(const Domain& sd, const Task& p, CpuId this_cpu, int idx);
  CpuId find_idlest_cpu(const CpuMask& group, const Task& p, CpuId this_cpu) const;
  CpuId balance_fork(Task& p, CpuId cpu);
  bool task_hot(const Entity& e, const Domain* sd) const;
  bool can_migrate_task(Entity& e, CpuId busiest, CpuId this_cpu, const Domain& sd,
                        bool* all_pinned) const;
  void pull_task(Entity& e, CpuId this_cpu);
  int64_t move_tasks(CpuId this_cpu, CpuId busiest, int64_t max_load_move, const Domain& sd,
                     bool* all_pinned);
  int find_busiest_group(CpuId this_cpu, Domain& sd, IdleType idle, const CpuMask& cpus,
                         bool* balance, bool* sd_idle, int64_t* imbalance);
  CpuId find_busiest_queue(const Domain& sd, int group, int64_t imbalance,
                           const CpuMask& cpus) const;
  int load_balance(CpuId this_cpu, Domain& sd, IdleType idle, bool* balance);
  int load_balance_newidle(CpuId this_cpu, Domain& sd);
  void rebalance_domains(CpuId cpu, IdleType idle);

  CfsConfig cfg_;
  Tunables tun_;
  std::vector<Entity> se_;
  std::vector<int32_t> timeline_pos_;
  std::vector<RunQueue> rq_;
  CpuMask no_cfs_tasks_;    // CPUs whose run queue holds no CFS task
  int64_t ilb_jiffy_ = -1;  // the last jiffy idle CPUs were balanced for
};

}  // namespace schedlab::cfs
