// The priority arrays of the O(1) scheduler (kernel/sched.c of 2.6.22), which Staircase
// Deadline kept: per CPU an active and an expired array of 40 FIFO lists, one per
// priority, with a bitmap of the lists that hold a task; the running task stays in its
// list. Both o1 and sd use this component, and hand its queues to the balancer in
// 2.6.22's move_tasks() order.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "policy/balance/movable.h"
#include "policy/sched_class.h"
#include "policy/task_list.h"

namespace schedlab::arrays {

constexpr int kMaxRtPrio = 100, kMaxPrio = 140, kLevels = 40;

// pull_task()'s enqueue_task(p, this_array): a task taken from its CPU's expired array
// goes to the expired array of the CPU it moves to (EnqueueFlags::class_bits).
constexpr uint32_t kToExpired = 1;

// A task's place in its CPU's arrays; a scheduler's per-task entry derives from it.
struct Slot {
  Task* task = nullptr;
  int prio = 120;  // its list: kMaxRtPrio + level
  int array = -1;  // 0/1: which array of its CPU holds it; -1: none
  CpuId rq_cpu = kNoCpu;
  int64_t load_weight = 0;  // its weight for the balancer
  int64_t last_ran = 0;     // ns: when it last left a CPU (the cache-hot test)
  TaskLinks links;          // its place in its list
};

struct PrioArray {
  std::array<TaskList, kLevels> queue{};
  uint64_t bitmap = 0;
  int nr_active = 0;
};

// One CPU's queues (the part of struct rq both schedulers keep).
struct Queue {
  std::array<PrioArray, 2> arrays{};
  int active = 0;
  int nr_running = 0;  // queued and running tasks of the class
  int64_t raw_weighted_load = 0;
  int best_expired_prio = kMaxPrio;  // the best static priority expired this epoch
  TaskId curr = kNoTask;             // the running task, which stays in its list
};

template <class Entity>
class PrioArrays final : public balance::MovableTasks {
 public:
  // `cache_hot_ns`: a task that left a CPU this recently is cache hot there.
  void attach(SchedContext& ctx, int64_t cache_hot_ns) {
    ctx_ = &ctx;
    cache_hot_ns_ = cache_hot_ns;
    rq_.resize(static_cast<size_t>(ctx.cpus()));
    crowded_ = all_cpus(ctx.cpus()).reset();  // sized once: set() never allocates
  }

  Entity& operator[](TaskId id) { return se_[id]; }
  const Entity& operator[](TaskId id) const { return se_[id]; }
  Queue& rq(CpuId cpu) { return rq_[cpu]; }
  const Queue& rq(CpuId cpu) const { return rq_[cpu]; }
  // The task has an entry (a waker from another class has none).
  bool known(TaskId id) const {
    return id != kNoTask && static_cast<size_t>(id) < se_.size() && se_[id].task;
  }
  void grow(TaskId id) {
    if (static_cast<size_t>(id) >= se_.size()) se_.resize(static_cast<size_t>(id) + 1);
  }

  // enqueue_task() / dequeue_task(): into or out of a list, at the tail.
  void enqueue(CpuId cpu, Entity& e, int array) {
    PrioArray& a = rq_[cpu].arrays[array];
    const int level = e.prio - kMaxRtPrio;
    list_append(a.queue[level], se_, e.task->id);
    a.bitmap |= uint64_t{1} << level;
    ++a.nr_active;
    e.array = array;
    e.rq_cpu = cpu;
  }
  void dequeue(Entity& e) {
    PrioArray& a = rq_[e.rq_cpu].arrays[e.array];
    const int level = e.prio - kMaxRtPrio;
    list_unlink(a.queue[level], se_, e.task->id);
    if (a.queue[level].empty()) a.bitmap &= ~(uint64_t{1} << level);
    --a.nr_active;
    e.array = -1;
  }
  // requeue_task(): to the tail of its list.
  void requeue(Entity& e) {
    const int array = e.array;
    const CpuId cpu = e.rq_cpu;
    dequeue(e);
    enqueue(cpu, e, array);
  }
  // The task joins or leaves the CPU's count and load as well.
  void activate(CpuId cpu, Entity& e, int array) {
    enqueue(cpu, e, array);
    count_in(cpu, e);
  }
  // The CPU's count and load take the task (a class that places it itself).
  void count_in(CpuId cpu, const Entity& e) {
    if (++rq_[cpu].nr_running == 2) crowded_.set(static_cast<size_t>(cpu));
    rq_[cpu].raw_weighted_load += e.load_weight;
  }
  void deactivate(Entity& e) {
    Queue& rq = rq_[e.rq_cpu];
    if (--rq.nr_running == 1) crowded_.reset(static_cast<size_t>(e.rq_cpu));
    rq.raw_weighted_load -= e.load_weight;
    dequeue(e);
  }
  // The first task of the best list of the active array (which must not be empty).
  TaskId first_id(CpuId cpu) const {
    const PrioArray& a = rq_[cpu].arrays[rq_[cpu].active];
    return a.queue[std::countr_zero(a.bitmap)].head;
  }
  bool best_from_bitmaps = false;  // see best_prio()

  bool expired(TaskId id) const {
    const Entity& e = se_[id];
    return e.array >= 0 && e.array != rq_[e.rq_cpu].active;
  }

  // The bitmaps, lists, counts and loads agree: a description of what is broken, or empty.
  std::string check(const char* who) const {
    for (CpuId cpu = 0; cpu < static_cast<CpuId>(rq_.size()); ++cpu) {
      const Queue& rq = rq_[cpu];
      int count = 0;
      int64_t load = 0;
      for (int a = 0; a < 2; ++a) {
        int in_array = 0;
        for (int level = 0; level < kLevels; ++level) {
          const bool bit = (rq.arrays[a].bitmap >> level) & 1;
          if (bit != (rq.arrays[a].queue[level].head != kNoTask))
            return fmt::format("{}: CPU {} array {} bitmap disagrees at prio {}", who, cpu, a,
                               level + kMaxRtPrio);
          for (TaskId id = rq.arrays[a].queue[level].head; id != kNoTask; id = se_[id].links.next) {
            const Entity& e = se_[id];
            if (e.prio != level + kMaxRtPrio || e.array != a || e.rq_cpu != cpu)
              return fmt::format("{}: {} is listed at the wrong place", who, e.task->name);
            ++in_array;
            load += e.load_weight;
          }
        }
        if (in_array != rq.arrays[a].nr_active)
          return fmt::format("{}: CPU {} array {} counts {} but lists {}", who, cpu, a,
                             rq.arrays[a].nr_active, in_array);
        count += in_array;
      }
      if (count != rq.nr_running || load != rq.raw_weighted_load)
        return fmt::format("{}: CPU {} counts {} tasks of load {} but lists {} of load {}", who,
                           cpu, rq.nr_running, rq.raw_weighted_load, count, load);
      if (crowded_.test(static_cast<size_t>(cpu)) != (count >= 2))
        return fmt::format("{}: CPU {} lists {} tasks but is {}marked crowded", who, cpu, count,
                           count >= 2 ? "not " : "");
    }
    return {};
  }

  // ---- balance::MovableTasks: expired array first, best priority first, each list from
  // its tail (2.6.22's move_tasks)
  std::vector<balance::LoadRef> load_refs() const override {
    std::vector<balance::LoadRef> refs;
    for (const Queue& rq : rq_) refs.push_back({&rq.raw_weighted_load, &rq.nr_running});
    return refs;
  }
  const CpuMask& crowded_cpus() const override { return crowded_; }
  balance::MovePass move_from(CpuId cpu, balance::MovePass pass) override {
    const Queue& src = rq_[cpu];
    // Read once: pulling a task changes neither.
    const int active = src.active;
    const TaskId curr = src.curr;
    const Task* running = ctx_->curr(cpu);
    const int64_t hot_since = ctx_->now() - cache_hot_ns_;  // task_hot(): ran after this
    for (int array : {active ^ 1, active}) {
      if (array != active && src.arrays[array].nr_active == 0) continue;
      for (int level = 0; level < kLevels; ++level) {
        TaskId id = src.arrays[array].queue[level].tail;
        while (id != kNoTask) {
          const Entity& e = se_[id];
          const TaskId prev_in_list = e.links.prev;  // read first: a pull unlinks e
          if (!pass.visit({e.task, e.load_weight, level + kMaxRtPrio,
                           id == curr || e.task == running, false, e.last_ran > hot_since,
                           array != active ? kToExpired : 0u, false}))
            return pass;
          id = prev_in_list;
        }
      }
    }
    return pass;
  }
  // rq_best_prio(): the best expired static priority, or the running task's if better;
  // with best_from_bitmaps (Staircase Deadline's), the best level queued on either array.
  balance::BestPrio best_prio(CpuId cpu) const override {
    const Queue& rq = rq_[cpu];
    if (best_from_bitmaps) {
      const uint64_t queued = rq.arrays[0].bitmap | rq.arrays[1].bitmap;
      const int best = queued ? kMaxRtPrio + std::countr_zero(queued) : kMaxPrio;
      return {best, rq.curr != kNoTask && se_[rq.curr].prio == best};
    }
    if (rq.curr == kNoTask) return {rq.best_expired_prio, false};
    const int curr = se_[rq.curr].prio;
    const int best = std::min(rq.best_expired_prio, curr);
    return {best, best == curr};
  }

 private:
  SchedContext* ctx_ = nullptr;
  int64_t cache_hot_ns_ = 0;
  std::vector<Entity> se_;
  std::vector<Queue> rq_;
  CpuMask crowded_;  // CPUs whose queue holds two tasks of the class or more
};

}  // namespace schedlab::arrays
