// The run-queue pieces the three fair classes (CFS 2.6.23, CFS 2.6.31/32, EEVDF) share:
// the part of a sched_entity and of a cfs_rq that all of them keep, the queues' load and
// task list (account_entity_enqueue / _dequeue), update_curr()'s charge of new CPU time,
// the tunables' boot-time scaling, and the queues as the balancer sees them.
//
// Group scheduling is left out (one flat cfs_rq per CPU, as with CONFIG_FAIR_GROUP_SCHED
// off). A queue's load counts the class's tasks only: an RT task on the CPU adds no
// weight.
#pragma once

#include <fmt/format.h>

#include <string>
#include <type_traits>
#include <vector>

#include "policy/balance/movable.h"
#include "policy/fair/fair_math.h"
#include "policy/fair/timeline.h"
#include "policy/sched_class.h"
#include "policy/task_list.h"

namespace schedlab::fair {

// What every fair class keeps of a sched_entity.
struct EntityBase {
  Task* task = nullptr;
  LoadWeight load;
  bool on_rq = false;
  CpuId frame_cpu = kNoCpu;   // the run queue whose clock the entity's key follows
  int64_t charged_exec = 0;   // Task::sum_exec_ns already charged by update_curr
  int64_t prev_sum_exec = 0;  // Task::sum_exec_ns when it was last picked
  int64_t exec_start = 0;     // when it last started running or was charged (cache-hot test)
  TaskLinks links;            // its place in cfs_rq->tasks
  // Queued but not runnable, so never moved (EEVDF's delayed dequeue says so).
  bool held() const { return false; }
};

// What every fair class keeps of a cfs_rq.
struct RqBase {
  LoadWeight load;
  int nr_running = 0;
  TaskId curr = kNoTask;
  TaskId next = kNoTask, last = kNoTask;  // the buddies (2.6.23 has none)
  TaskList tasks;  // every queued entity, the running one included, newest first
};

// ... with the CFS releases' timeline (EEVDF keeps its own: eevdf/deadline_queue.h).
struct TimelineRqBase : RqBase {
  explicit TimelineRqBase(std::vector<int32_t>* positions) : timeline(positions) {}
  Timeline timeline;
};

// sched_init_granularity()'s factor: sysctl_sched_tunable_scaling's modes (named from
// 2.6.36; 2.6.2x/3x always scaled logarithmically): 0 none, 1 1 + ilog2(cpus), 2 cpus.
inline int64_t tunable_factor(int mode, int cpus) {
  int log2 = 0;
  for (int n = cpus; n >>= 1;) ++log2;
  return mode == 0 ? 1 : mode == 2 ? cpus : 1 + log2;
}

// A fair class's entities and per-CPU queues. Entity derives from EntityBase, Rq from
// RqBase, or from TimelineRqBase (constructed from the timeline positions).
template <class Entity, class Rq>
class Queues final : public balance::MovableTasks {
  static constexpr bool kTimeline = std::is_base_of_v<TimelineRqBase, Rq>;

 public:
  void attach(SchedContext& ctx) {
    ctx_ = &ctx;
    rq_.reserve(static_cast<size_t>(ctx.cpus()));
    for (CpuId c = 0; c < ctx.cpus(); ++c) {
      if constexpr (kTimeline)
        rq_.emplace_back(&timeline_pos_);
      else
        rq_.emplace_back();
    }
    no_tasks_ = all_cpus(ctx.cpus());
    crowded_ = all_cpus(ctx.cpus()).reset();  // sized once: set() never allocates
  }
  // The cache-hot test of the balancer: a buddy (CACHE_HOT_BUDDY), or a task that ran
  // within migration_cost (0: never hot).
  void set_cache_hot(bool buddies, int64_t migration_cost_ns) {
    hot_buddies_ = buddies;
    migration_cost_ns_ = migration_cost_ns;
  }

  Entity& operator[](TaskId id) { return se_[id]; }
  const Entity& operator[](TaskId id) const { return se_[id]; }
  Rq& rq(CpuId cpu) { return rq_[cpu]; }
  const Rq& rq(CpuId cpu) const { return rq_[cpu]; }
  int cpus() const { return static_cast<int>(rq_.size()); }
  // The task has joined the class (a waker from another class has not).
  bool known(TaskId id) const {
    return id != kNoTask && static_cast<size_t>(id) < se_.size() && se_[id].task;
  }
  // Room for a task's entity, the first time its id is seen.
  void grow(TaskId id) {
    if (static_cast<size_t>(id) < se_.size()) return;
    se_.resize(static_cast<size_t>(id) + 1);
    if constexpr (kTimeline) timeline_pos_.resize(static_cast<size_t>(id) + 1, -1);
  }
  // CPUs whose queue holds no task of the class.
  const CpuMask& empty_cpus() const { return no_tasks_; }

  // account_entity_enqueue / _dequeue: the queue's load, count and task list.
  void account_enqueue(CpuId cpu, Entity& e) {
    Rq& rq = rq_[cpu];
    rq.load.weight += e.load.weight;
    rq.load.inv_weight = 0;
    if (rq.nr_running++ == 0) no_tasks_.reset(static_cast<size_t>(cpu));
    if (rq.nr_running == 2) crowded_.set(static_cast<size_t>(cpu));
    e.on_rq = true;
    list_push_front(rq.tasks, se_, e.task->id);
  }
  void account_dequeue(CpuId cpu, Entity& e) {
    Rq& rq = rq_[cpu];
    rq.load.weight -= e.load.weight;
    rq.load.inv_weight = 0;
    if (--rq.nr_running == 0) no_tasks_.set(static_cast<size_t>(cpu));
    if (rq.nr_running == 1) crowded_.reset(static_cast<size_t>(cpu));
    e.on_rq = false;
    list_unlink(rq.tasks, se_, e.task->id);
  }
  // update_curr()'s first step: the CPU time the running entity received since it was
  // last charged, now charged (0: none).
  int64_t charge(Entity& e) const {
    const int64_t delta = e.task->sum_exec_ns - e.charged_exec;
    if (delta <= 0) return 0;
    e.charged_exec = e.task->sum_exec_ns;
    e.exec_start = ctx_->now();
    return delta;
  }
  // set_next_entity()'s bookkeeping: the entity runs from now.
  void start_running(CpuId cpu, Entity& e) {
    e.exec_start = ctx_->now();
    rq_[cpu].curr = e.task->id;
    e.prev_sum_exec = e.task->sum_exec_ns;
    e.charged_exec = e.task->sum_exec_ns;
  }
  void clear_buddies(Rq& rq, TaskId id) const {
    if (rq.last == id) rq.last = kNoTask;
    if (rq.next == id) rq.next = kNoTask;
  }
  // The loads and counts match the task lists: a description of what is broken, or empty.
  std::string check_load() const {
    for (CpuId cpu = 0; cpu < cpus(); ++cpu) {
      const Rq& rq = rq_[cpu];
      int64_t load = 0, count = 0;
      for (TaskId id = rq.tasks.head; id != kNoTask; id = se_[id].links.next) {
        load += se_[id].load.weight;
        ++count;
      }
      if (load != rq.load.weight || count != rq.nr_running)
        return fmt::format("cfs: CPU {} counts {} tasks of weight {} but lists {} of weight {}",
                           cpu, rq.nr_running, rq.load.weight, count, load);
      if (crowded_.test(static_cast<size_t>(cpu)) != (count >= 2))
        return fmt::format("cfs: CPU {} lists {} tasks but is {}marked crowded", cpu, count,
                           count >= 2 ? "not " : "");
    }
    return {};
  }

  // ---- balance::MovableTasks: the task list, newest first
  std::vector<balance::LoadRef> load_refs() const override {
    std::vector<balance::LoadRef> refs;
    for (const Rq& rq : rq_) refs.push_back({&rq.load.weight, &rq.nr_running});
    return refs;
  }
  const CpuMask& crowded_cpus() const override { return crowded_; }
  balance::MovePass move_from(CpuId cpu, balance::MovePass pass) override {
    const Rq& rq = rq_[cpu];
    for (TaskId id = rq.tasks.head; id != kNoTask;) {
      const Entity& e = se_[id];
      const TaskId next = e.links.next;  // read first: a pull unlinks e
      if (!pass.visit({e.task, e.load.weight, 0, e.task->on_cpu || rq.curr == id, e.held(),
                       ran_recently(e), 0, hot_buddies_ && (rq.next == id || rq.last == id)}))
        break;
      id = next;
    }
    return pass;
  }

 private:
  // task_hot()'s other test (the buddy test is the MovePass's): it ran within
  // migration_cost.
  bool ran_recently(const Entity& e) const {
    if (migration_cost_ns_ == 0) return false;
    return ctx_->now() - e.exec_start < migration_cost_ns_;
  }

  SchedContext* ctx_ = nullptr;
  std::vector<Entity> se_;
  std::vector<int32_t> timeline_pos_;
  std::vector<Rq> rq_;
  CpuMask no_tasks_;
  CpuMask crowded_;  // CPUs whose queue holds two tasks of the class or more
  bool hot_buddies_ = false;
  int64_t migration_cost_ns_ = 0;
};

}  // namespace schedlab::fair
