// The load balancer of kernel/sched.c (2.6.22 to 2.6.32), one for every per-CPU class:
// cpu_load[] averages, fork balancing (find_idlest_group / find_idlest_cpu), periodic
// balancing (rebalance_domains, load_balance, find_busiest_group with calculate_imbalance
// and fix_small_imbalance, find_busiest_queue, move_tasks), new-idle balancing
// (idle_balance, load_balance_newidle), active balancing by the migration thread, and the
// idle CPUs' balancing. It moves a class's tasks through that class's MovableTasks.
// docs/algorithms/balancing.md.
//
// Where the releases' balancers differ, Rules says how. Judgement, not in the source: idle
// CPUs are balanced once per jiffy from the first busy CPU's tick, standing in for the
// NO_HZ idle load balancer (the engine does not tick idle CPUs); power-savings balancing
// is off; NR_CPUS = 64 for the interval cap.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "policy/balance/domains.h"
#include "policy/balance/movable.h"
#include "policy/sched_class.h"

namespace schedlab::balance {

enum class IdleType : uint8_t { kNotIdle, kIdle, kNewlyIdle };  // enum cpu_idle_type

// One line for each way the modelled releases' balancers differ; the defaults are 2.6.31's.
// task_hot()'s buddy test: kAny (2.6.31 and the -tip of October 2009) holds a buddy hot
// whatever the queues; f685ceac (2.6.32) only while this_rq()->nr_running, the CPU running
// the balancer (the puller, or in active balancing the busiest with its migration
// thread); 2.6.39+ and 6.x only while env->dst_rq->nr_running (the puller or the target).
enum class HotBuddyRq : uint8_t { kAny, kThisRq, kDstRq };

struct Rules {
  // ---- cpu_load[]
  // CPU_LOAD_IDX_MAX: the averages kept (2.6.22: 3).
  int cpu_load_indices = 5;
  // An idle CPU's averages decay for the ticks it missed when next read (2.6.22 model: one
  // step per busy tick, none while idle).
  bool catch_up_missed_ticks = true;
  // update_cpu_load() rounds a rising load up (2.6.23 does not).
  bool round_up_rising = true;
  // LB_BIAS: source_load/target_load mix in cpu_load[] (off: the instantaneous load).
  bool lb_bias = true;
  // cpu_avg_load_per_task() of an empty queue (2.6.22: SCHED_LOAD_SCALE).
  int64_t empty_load_per_task = 0;
  // nr_running counts the RT or deadline task running there, as rq->nr_running does
  // (2.6.22 model: the class's own tasks only).
  bool count_other_classes = true;
  // ---- find_busiest_group()
  // Group power: 2.6.32 sums the CPUs; before, a group sharing a core or cache is one CPU.
  GroupPower group_power = GroupPower::kOnePerSharedGroup;
  // SMT domains: balancing while a sibling is busy counts as done, -1 (2.6.22 model: no).
  bool sd_idle = true;
  // A group whose CPUs differ by more than two tasks' load may be the busiest (2.6.22: no).
  bool group_imbalance = true;
  // 2.6.32: a group's capacity is its power rounded to whole CPUs, not truncated.
  bool round_capacity = false;
  // 2.6.32: below an SD_PREFER_SIBLING level a group holds one task before spilling.
  bool prefer_sibling = false;
  // 2.6.22 fix_small_imbalance: compares max - this without adding one task's load, and
  // finds no busiest group when moving one task would not help.
  bool small_imbalance_2622 = false;
  // ---- move_tasks()
  SkipForLoad skip_for_load = SkipForLoad::kHalfWeight;
  // sched_nr_migrate: the tasks examined per pull (2.6.22: no limit).
  int64_t nr_migrate = 32;
  // 2.6.22: at most nr_running - 1 tasks move per pull.
  bool keep_one_task = false;
  // ---- new-idle balancing
  // 2.6.22 load_balance_newidle: a queue that gave nothing is retried elsewhere whatever
  // the reason, and a failure returns 0 (2.6.31: -1, which ends idle_balance's walk).
  bool newidle_2622 = false;
  // 2.6.22 idle_balance: the next balance from the NEWIDLE domains only, at most 60 s
  // ahead (2.6.31: 1 s), and reset only when nothing was pulled.
  bool idle_balance_2622 = false;
  // 2.6.32: no new-idle balancing while the CPU's average idle period < migration_cost.
  bool newidle_rate_limit = false;
  // 6.x newidle_balance(): none while the root domain is not overloaded (rd->overload: set
  // by add_nr_running() when a queue gets its second task, rewritten by each root-level
  // find_busiest_group from whether a CPU had more than one).
  bool overload_gate = false;
  // CACHE_HOT_BUDDY: whose queue must hold a task for a buddy to count as cache hot.
  HotBuddyRq hot_buddy_rq = HotBuddyRq::kAny;
  // ---- periodic and active balancing
  // msecs_to_jiffies() rounds up (2.6.22 model: truncates).
  bool jiffies_round_up = true;
  // A balance interval is at most HZ * NR_CPUS / 10 jiffies (2.6.22 model: no cap).
  bool cap_interval = true;
  // The migration thread moves a task only when more than this many are queued (2.6.31:
  // rq->nr_running <= 1 counts the thread itself; 2.6.22 model: 1 of the class's).
  int active_min_queued = 0;
  // sysctl_sched_migration_cost: the new-idle rate limit's threshold.
  int64_t migration_cost_ns = 500'000;
};

class Balancer {
 public:
  Balancer(Rules rules, std::vector<DomainTemplate> levels)
      : rules_(rules), levels_(std::move(levels)) {}

  // Builds the domains; `tasks` is the class whose tasks move.
  void attach(SchedContext& ctx, MovableTasks& tasks);

  const Rules& rules() const { return rules_; }
  const std::vector<Domain>& domains(CpuId cpu) const { return cpus_[cpu].domains; }
  int64_t jiffies() const { return ctx_->now() / ctx_->tick_ns(); }

  // ---- the loads placement reads
  // source_load / target_load: a low and a high guess of a CPU's load, mixing the average
  // of index idx with the instantaneous weight (LB_BIAS).
  int64_t source_load(CpuId cpu, int idx);
  int64_t target_load(CpuId cpu, int idx);
  int64_t cpu_avg_load_per_task(CpuId cpu) const;
  // cpu_load[i] after catching up (2.6.23's SLEEPER_LOAD_AVG reads cpu_load[2]).
  int64_t cpu_load(CpuId cpu, int i);
  // update_cpu_load() for the ticks the CPU missed: before an idle CPU's queue fills.
  void sync_cpu_load(CpuId cpu);
  // rq->nr_running as the balancer counts it.
  int nr_running(CpuId cpu) const;

  // ---- the class's hooks
  // sched_balance_self() / select_task_rq_fair()'s fork branch: from the widest
  // SD_BALANCE_FORK domain down, the idlest group's idlest CPU.
  CpuId balance_fork(const Task& p, CpuId cpu);
  // try_to_wake_up()'s avg_idle sample, when a wake-up fills an idle CPU.
  void note_wakeup(CpuId cpu);
  // scheduler_tick(): cpu_load[], then periodic balancing and the idle CPUs' (tick_balance).
  void tick(CpuId cpu);
  // schedule() found nothing to run (idle_balance).
  void idle_balance(CpuId cpu);
  // A task was queued on `cpu` (add_nr_running(): the overload mark, under overload_gate).
  void note_enqueued(CpuId cpu) {
    if (rules_.overload_gate && !overload_ && nr_running(cpu) >= 2) overload_ = true;
  }
  // For tests: the new-idle balances that walked the domains.
  uint64_t newidle_walks() const { return newidle_walks_; }
  // For tests: the balances that found no busiest group without reading the CPUs.
  uint64_t shortcuts() const { return shortcuts_; }
  // The migration thread's active_load_balance(), before the CPU picks (balance).
  void active_balance(CpuId cpu);

  // Off: groups of one CPU are walked as masks too, and none_can_be_busiest() never
  // answers without the walk (the tests compare the two walks).
  void set_cpu_number_groups(bool on) { cpu_number_groups_ = on; }

 private:
  // struct rq's balancing part
  struct CpuState {
    std::array<int64_t, 5> cpu_load{};
    int64_t load_jiffy = 0;  // the last jiffy cpu_load[] was updated for
    int64_t next_balance_jiffy = 0;
    bool active_balance = false;
    CpuId push_cpu = kNoCpu;
    int64_t idle_stamp = 0, avg_idle = 0;  // 2.6.32's new-idle rate limit
    std::vector<Domain> domains;
  };
  // find_busiest_group()'s figures for one group
  struct GroupStats {
    int64_t load = 0, nr_running = 0, weighted_load = 0, avg_per_task_sum = 0;
    int64_t max_cpu_load = 0, min_cpu_load = std::numeric_limits<int64_t>::max();
    CpuId balance_cpu = kNoCpu;
    bool overloaded = false;  // a CPU of the group runs more than one task (SG_OVERLOAD)
  };

  // What calculate_imbalance() works from (struct sd_lb_stats).
  struct Figures {
    int64_t max_load = 0, this_load = 0, avg_load = 0;
    int64_t busiest_load_per_task = 0, this_weighted_load = 0, this_nr_running = 0;
    int64_t busiest_power = 0, this_power = 0;
  };

  int64_t msecs_to_jiffies(int64_t ms) const;
  // get_sd_balance_interval(): the domain's interval in jiffies, longer on a busy CPU.
  int64_t balance_interval(const Domain& sd, bool busy) const;
  QueueLoad queue_load(CpuId cpu) const { return loads_[cpu].get(); }
  void step_cpu_load(CpuState& st, int64_t this_load) const;
  void sync_cpu_load(CpuId cpu, int64_t this_load);
  int other_classes_running(CpuId cpu) const;
  int64_t source_load(CpuId cpu, int idx, int64_t total);
  int64_t target_load(CpuId cpu, int idx, int64_t total);
  int load_idx(const Domain& sd, IdleType idle) const;
  int find_idlest_group(const Domain& sd, const Task& p, CpuId this_cpu, int idx);
  CpuId find_idlest_cpu(const CpuMask& group, const Task& p, CpuId this_cpu) const;
  int move_tasks(CpuId this_cpu, CpuId busiest, int max_nr_move, int64_t max_load_move,
                 const Domain& sd, bool* all_pinned);
  // Inlined: find_busiest_group() calls it for every group of a domain.
  [[gnu::always_inline]] GroupStats group_stats(const CpuMask& group, bool local, int load_idx,
                                                const CpuMask& cpus, bool* sd_idle);
  // group_stats() of a group that is the one CPU c.
  [[gnu::always_inline]] GroupStats cpu_stats(CpuId c, bool local, int load_idx,
                                              const CpuMask& cpus, bool* sd_idle);
  // The groups' CPUs when every group of the list is one CPU (and the walk may use them).
  const std::vector<CpuId>* cpu_numbers(const GroupList& list) const {
    return cpu_number_groups_ && !list.cpu_of.empty() ? &list.cpu_of : nullptr;
  }
  bool prefers_sibling(CpuId this_cpu, const Domain& sd) const;
  bool fix_small_imbalance(const Figures& f, CpuId this_cpu, int64_t* imbalance) const;
  bool calculate_imbalance(const Figures& f, CpuId this_cpu, int64_t* imbalance) const;
  bool none_can_be_busiest(const Domain& sd) const;
  int find_busiest_group(CpuId this_cpu, Domain& sd, IdleType idle, const CpuMask& cpus,
                         bool* balance, bool* sd_idle, int64_t* imbalance);
  CpuId find_busiest_queue(const Domain& sd, int group, int64_t imbalance,
                           const CpuMask& cpus) const;
  // A busy SMT sibling: balancing counts as done (-1), under the sd_idle rule.
  int smt_busy(bool sd_idle, const Domain& sd) const {
    return rules_.sd_idle && !sd_idle && sd.has(kSdShareCpupower) ? -1 : 0;
  }
  int max_moves(CpuId busiest) const {
    return rules_.keep_one_task ? nr_running(busiest) - 1 : std::numeric_limits<int>::max();
  }
  int load_balance(CpuId this_cpu, Domain& sd, IdleType idle, bool* balance);
  int load_balance_newidle(CpuId this_cpu, Domain& sd);
  void rebalance_domains(CpuId cpu, IdleType idle);

  Rules rules_;
  std::vector<DomainTemplate> levels_;
  SchedContext* ctx_ = nullptr;
  MovableTasks* tasks_ = nullptr;
  std::vector<LoadRef> loads_;  // per CPU
  std::vector<CpuState> cpus_;
  int64_t ilb_jiffy_ = -1;  // the last jiffy idle CPUs were balanced for
  bool overload_ = false;   // rd->overload (overload_gate)
  uint64_t newidle_walks_ = 0;
  uint64_t shortcuts_ = 0;
  bool cpu_number_groups_ = true;
};

}  // namespace schedlab::balance
