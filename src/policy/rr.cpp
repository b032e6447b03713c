// rr: global round robin with a fixed slice. Not a kernel scheduler: the simplest
// normal-class policy, used to test the engine with schedules computed by hand.
//
// One FIFO queue shared by all CPUs. A waking task goes to an idle allowed CPU if
// there is one (its previous CPU first), else waits at the tail. At a tick, a task that
// has run `slice_ns` since it was picked goes to the tail if another task could run on
// its CPU. Wake-ups never preempt. Nice levels and SCHED_BATCH/IDLE are ignored.
#include <deque>

#include "policy/registry.h"

namespace schedlab {
namespace {

class RoundRobin final : public SchedClass {
 public:
  explicit RoundRobin(const ParamValues& p) : slice_ns_(p.get("slice_ns")) {}

  void task_new(Task& t, const Task*) override {
    if (static_cast<size_t>(t.id) >= picked_at_.size()) {
      picked_at_.resize(t.id + 1, 0);
      to_tail_.resize(t.id + 1, 0);
    }
  }

  CpuId select_cpu(Task& t, CpuId prev, const WakeInfo&) override {
    if (prev != kNoCpu && t.allowed_on(prev) && ctx_->idle(prev)) return prev;
    const int n = ctx_->cpus();
    const CpuId start = prev == kNoCpu ? 0 : prev;
    for (int i = 1; i <= n; ++i) {
      const CpuId c = (start + i) % n;
      if (t.allowed_on(c) && ctx_->idle(c)) return c;
    }
    if (prev != kNoCpu && t.allowed_on(prev)) return prev;
    for (CpuId c = 0; c < n; ++c)
      if (t.allowed_on(c)) return c;
    return prev;
  }

  void enqueue(CpuId, Task& t, EnqueueKind) override { queue_.push_back(&t); }

  void dequeue(CpuId, Task& t, DequeueKind) override {
    if (!t.queued) return;  // the current task is not in the queue
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (*it == &t) {
        queue_.erase(it);
        return;
      }
  }

  void check_preempt(CpuId, Task&, Task&, const WakeInfo&) override {}

  Task* pick_next(CpuId cpu) override {
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      Task* t = *it;
      if (!t->allowed_on(cpu)) continue;
      queue_.erase(it);
      picked_at_[t->id] = t->sum_exec_ns;
      return t;
    }
    return nullptr;
  }

  void put_prev(CpuId, Task& t) override {
    // A task whose slice ran out or that yielded goes to the tail; one preempted by a
    // higher class keeps its place at the head.
    if (to_tail_[t.id]) {
      to_tail_[t.id] = 0;
      queue_.push_back(&t);
    } else {
      queue_.push_front(&t);
    }
  }

  void task_tick(CpuId cpu, Task& curr) override {
    if (curr.sum_exec_ns - picked_at_[curr.id] < slice_ns_) return;
    if (!has_work_for(cpu)) return;
    to_tail_[curr.id] = 1;
    ctx_->resched(cpu);
  }

  void yield(CpuId cpu) override {
    if (Task* curr = ctx_->curr(cpu)) to_tail_[curr->id] = 1;
  }

 private:
  bool has_work_for(CpuId cpu) const {
    for (const Task* t : queue_)
      if (t->allowed_on(cpu)) return true;
    return false;
  }

  Time slice_ns_;
  std::deque<Task*> queue_;
  std::vector<Time> picked_at_;
  std::vector<char> to_tail_;
};

}  // namespace

PolicyInfo rr_policy_info() {
  return {"rr",
          "global round robin with a fixed slice (a reference policy for testing the engine)",
          {{"slice_ns", 10'000'000, false, "time a task runs before it goes to the tail"}},
          [](const ParamValues& p) { return std::make_unique<RoundRobin>(p); }};
}

}  // namespace schedlab
