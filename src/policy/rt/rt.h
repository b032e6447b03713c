// SCHED_FIFO and SCHED_RR as in the kernel's rt_sched_class (kernel/sched/rt.c):
// per-CPU queues of 99 priorities with a bitmap, a woken task preempts a lower one,
// push to and pull from CPUs running lower priorities, RR timeslice 100 ms.
// A CPU running a deadline task counts as busier than any RT priority (cpupri).
// Left out: RT throttling (sched_rt_runtime_us), RT group scheduling, priority
// inheritance, and check_preempt_equal_prio's push of the current task.
#pragma once

#include <array>
#include <vector>

#include "policy/sched_class.h"

namespace schedlab {

class RtClass final : public SchedClass {
 public:
  // RR_TIMESLICE (100 * HZ / 1000 jiffies, include/linux/sched/rt.h), counted in ticks.
  static constexpr Time kRrTimesliceNs = 100 * kNsPerMs;

  void attach(SchedContext& ctx) override;
  bool takes(SchedPolicy p) const override { return is_rt(p); }
  bool idle_until_first_task() const override { return true; }
  // A woken task that cannot preempt a deadline task may be pushed elsewhere.
  bool decides_preemption_by_higher() const override { return true; }
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
  void post_schedule(CpuId cpu) override;

 private:
  static constexpr int kLevels = 100;
  // Kernel priority: 0 is the highest (rt_priority 99), 98 the lowest (rt_priority 1).
  static int prio(const Task& t) { return 99 - t.rt_priority; }
  // cpupri: what a CPU runs, as a priority comparable with prio(); higher = less urgent.
  static constexpr int kCpuPrioDeadline = -1;  // cpupri's CPUPRI_HIGHER: never pushed to
  static constexpr int kCpuPrioNormal = 100;
  static constexpr int kCpuPrioIdle = 101;

  struct RunQueue {
    // FIFO per priority. Vectors, not deques: 100 levels on every CPU stay unallocated
    // until used, and the queues are short.
    std::array<std::vector<Task*>, kLevels> level;
    std::array<uint64_t, 2> bitmap{};  // bit p set: level p non-empty
    int nr_queued = 0;
    int highest() const;  // lowest non-empty level index, or kLevels
  };

  int cpu_prio(CpuId cpu) const;
  CpuId find_lowest_cpu(const Task& t, CpuId prefer) const;

  void push(RunQueue& rq, Task& t, bool at_head);
  void remove(RunQueue& rq, Task& t);

  std::vector<RunQueue> rqs_;
  std::vector<int> slice_ticks_left_;
  std::vector<char> requeue_tail_;
  int slice_ticks_ = 100;
  int total_queued_ = 0;
};

}  // namespace schedlab
