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

#define RR_PARAMS(X)                                                \
  X(int64_t, slice_ns, 10'000'000, params::at_least(0), "schedlab", \
    "time a task runs before it goes to the tail")
SCHEDLAB_DECLARE_PARAMS(RrParams, RR_PARAMS)

class RoundRobin final : public SchedClass {
 public:
  explicit RoundRobin(const RrParams& p) : slice_ns_(p.slice_ns) {}

  void task_new(Task& t, const Task*) override {
    if (static_cast<size_t>(t.id) >= picked_at_.size()) {
      picked_at_.resize(t.id + 1, 0);
      to_tail_.resize(t.id + 1, 0);
    }
  }

  CpuId select_cpu(Task& t, CpuId prev, const WakeInfo&) override {
    const CpuMask idle = t.allowed & ctx_->idle_cpus();
    if (prev != kNoCpu && idle.test(static_cast<size_t>(prev))) return prev;
    if (idle.any()) {  // the first idle allowed CPU after prev, wrapping around
      const size_t after = idle.find_next(prev == kNoCpu ? 0 : static_cast<size_t>(prev));
      return static_cast<CpuId>(after < idle.size() ? after : idle.find_first());
    }
    if (prev != kNoCpu && t.allowed_on(prev)) return prev;
    return static_cast<CpuId>(t.allowed.find_first());
  }

  void enqueue(CpuId, Task& t, const EnqueueFlags&) override { queue_.push_back(&t); }

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
      if (it == queue_.begin())
        queue_.pop_front();
      else
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

  // Nothing happens at a tick before the slice ends, so the ticks before it are skipped.
  Time next_tick_wanted(CpuId, const Task& curr) const override {
    return ctx_->now() + slice_ns_ - (curr.sum_exec_ns - picked_at_[curr.id]);
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

std::vector<PolicyInfo> rr_policies() {
  return {declare_policy<RrParams>(
      "rr", "global round robin with a fixed slice (a reference policy for testing the engine)",
      RrParams::table(), {}, [](const RrParams& p) { return std::make_unique<RoundRobin>(p); })};
}

}  // namespace schedlab
