// What the balancer asks of a class whose tasks it moves: the kernel's struct
// rq_iterator with the class's side of can_migrate_task(), as 2.6.2x's
// load_balance_fair() handed its tasks to the one balance_tasks() of kernel/sched.c. The
// class walks a CPU's tasks in its own order and hands each to a MovePass, which decides
// and pulls; MovePass is a concrete class so that the walk calls it directly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "policy/sched_class.h"

namespace schedlab::balance {

// One of a CPU's tasks, as the balancer sees it.
struct Movable {
  Task* task = nullptr;
  int64_t weight = 0;       // its load weight
  int prio = 0;             // its priority list (2.6.22's skip rule); 0 where the class has none
  bool running = false;     // the CPU's current task: never pulled
  bool held = false;        // queued but not runnable (EEVDF's delayed dequeue): never pulled
  bool hot = false;         // task_hot(): it ran there within migration_cost
  uint32_t class_bits = 0;  // what the class's enqueue is told when it moves (its array)
  bool buddy = false;       // a next or last buddy there (CACHE_HOT_BUDDY)
};

// rq_best_prio() of 2.6.22: the best priority queued or running on a CPU, and whether the
// running task holds it.
struct BestPrio {
  int prio = 0;
  bool running = false;
};

// A CPU's queue as the balancer counts it.
struct QueueLoad {
  int64_t weight = 0;  // weighted_cpuload(): the load weight of the class's tasks there
  int nr_running = 0;  // the class's tasks there, the running one included
};

// Where the class keeps a CPU's queue weight and count, which the balancer reads as the
// kernel's reads rq->load.weight and rq->nr_running (only moving tasks goes through the
// class).
struct LoadRef {
  const int64_t* weight = nullptr;
  const int* nr_running = nullptr;
  QueueLoad get() const { return {*weight, *nr_running}; }
};

// move_tasks()'s test for a task too heavy for what is left to move.
enum class SkipForLoad : uint8_t {
  kHalfWeight,            // 2.6.23+ balance_tasks: weight / 2 > what is left
  kWeightUnlessBestPrio,  // 2.6.22: weight > what is left, unless it would be the best
                          // priority here and the busiest's best has not been passed over
};

// One pass of move_tasks() (balance_tasks()) from one CPU to `to`: each task the class
// hands over is pulled or passed over; visit() returns false to end the pass.
class MovePass {
 public:
  struct Limits {
    int max_nr_move;
    int64_t max_load_move;
    int64_t nr_migrate;  // sched_nr_migrate: tasks examined
    SkipForLoad skip;
    bool ignore_hot;   // balancing failed more than cache_nice_tries times
    bool buddies_hot;  // a buddy counts as cache hot (Rules::hot_buddy_rq)
  };
  MovePass(SchedContext& ctx, CpuId to, const Limits& limits, int this_best_prio,
           BestPrio busiest_best)
      : ctx_(&ctx),
        to_(to),
        limits_(limits),
        rem_load_move_(limits.max_load_move),
        this_best_prio_(this_best_prio),
        busiest_best_prio_(busiest_best.prio),
        best_prio_seen_(busiest_best.running) {}

  bool visit(const Movable& m) {
    if (loops_++ > limits_.nr_migrate) return false;
    if (too_heavy(m) || !can_migrate(m)) {
      best_prio_seen_ = best_prio_seen_ || m.prio == busiest_best_prio_;
      return true;
    }
    ctx_->migrate_queued(*m.task, to_, m.class_bits);  // pull_task()
    ++pulled_;
    rem_load_move_ -= m.weight;
    if (pulled_ >= limits_.max_nr_move || rem_load_move_ <= 0) return false;
    this_best_prio_ = std::min(this_best_prio_, m.prio);
    return true;
  }
  int pulled() const { return pulled_; }
  // No task was passed over only because it may not run there.
  bool all_pinned() const { return pinned_; }

 private:
  bool too_heavy(const Movable& m) const {
    if (limits_.skip == SkipForLoad::kHalfWeight) return (m.weight >> 1) > rem_load_move_;
    // To spread the best priorities, a task that would be the best here moves whatever
    // its load, unless it is the busiest queue's first of its best priority.
    const bool heavy = m.weight > rem_load_move_;
    if (heavy && m.prio < this_best_prio_) return !best_prio_seen_ && m.prio == busiest_best_prio_;
    return heavy;
  }
  // can_migrate_task(): allowed there, not running, and cache-cold unless balancing keeps
  // failing.
  bool can_migrate(const Movable& m) {
    if (m.held || !m.task->allowed_on(to_)) return false;
    pinned_ = false;
    if (m.running) return false;
    return limits_.ignore_hot || !(m.hot || (m.buddy && limits_.buddies_hot));
  }

  SchedContext* ctx_;
  CpuId to_;
  Limits limits_;
  int64_t rem_load_move_;
  int64_t loops_ = 0;
  int pulled_ = 0;
  bool pinned_ = true;
  int this_best_prio_, busiest_best_prio_;
  bool best_prio_seen_;
};

class MovableTasks {
 public:
  virtual ~MovableTasks() = default;
  // Each CPU's LoadRef, once the class's queues exist (they must not move afterwards).
  virtual std::vector<LoadRef> load_refs() const = 0;
  // The CPUs where the class's count (nr_running) is two or more.
  virtual const CpuMask& crowded_cpus() const = 0;
  // Hands the CPU's tasks to pass.visit() in the order the class has them tried (CFS: its
  // task list, newest first; O(1): the expired array first, best priority first, from the
  // tail of each list) until it returns false, and returns the pass. visit may pull the
  // task it is given. (The pass travels by value so that it can live in registers.)
  virtual MovePass move_from(CpuId cpu, MovePass pass) = 0;
  // Only 2.6.22's skip rule asks.
  virtual BestPrio best_prio(CpuId) const { return {}; }
};

}  // namespace schedlab::balance
