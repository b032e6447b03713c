// The interface every scheduler implements, shaped like the kernel's struct sched_class.
// The engine calls these hooks; a scheduler decides who runs where and nothing else.
//
// Contract (the same for every class):
// - A runnable task is either some CPU's current task or queued in its class.
// - pick_next() takes a queued task and makes it current; put_prev() queues a current
//   task that stays runnable; dequeue() is called for a queued task, or for the current
//   task when it blocks or exits (then with kSleep / kExit, and no put_prev follows).
// - Before any hook the engine has charged the running tasks' time (Task::sum_exec_ns).
#pragma once

#include <string>
#include <vector>

#include "machine/machine.h"
#include "util/rng.h"
#include "util/types.h"

namespace schedlab {

// The scheduling view of a task. The engine owns it; policies read it and keep their
// own per-task data (the kernel's sched_entity) in tables indexed by Task::id.
struct Task {
  // What every switch reads first (one cache line with the mask), the rest after.
  TaskId id = kNoTask;
  SchedPolicy policy = SchedPolicy::kOther;
  bool runnable = false;  // runnable (queued or running); false while blocked or exited
  bool on_cpu = false;    // some CPU's current task
  bool queued = false;    // queued in its class (maintained by the engine)
  int nice = 0;
  int rt_priority = 0;
  CpuId cpu = kNoCpu;  // the CPU whose run queue holds it, or where it last ran
  int nr_cpus_allowed = 0;
  TaskId parent = kNoTask;
  Time sum_exec_ns = 0;  // CPU time received so far
  Time last_ran_ns = 0;  // when it last left a CPU
  CpuMask allowed;
  // sched_attr.sched_runtime of a SCHED_OTHER/BATCH/IDLE task (rt-app's dl-runtime on a
  // non-deadline task): a custom slice for EEVDF of 6.12; 0 when not set.
  Time custom_slice_ns = 0;
  // SCHED_DEADLINE parameters (sched_attr's runtime, deadline, period); 0 otherwise.
  Time dl_runtime_ns = 0, dl_deadline_ns = 0, dl_period_ns = 0;
  std::string name;

  bool allowed_on(CpuId c) const { return allowed.test(static_cast<size_t>(c)); }
};

enum class WakeKind : uint8_t { kFork, kWakeup, kMigrate };
struct WakeInfo {
  WakeKind kind = WakeKind::kWakeup;
  CpuId waker_cpu = kNoCpu;  // where the waker runs (the parent for a fork)
  bool sync = false;         // the waker is about to sleep
  TaskId waker = kNoTask;    // the waking task; kNoTask from interrupt context (timers)
};

enum class EnqueueKind : uint8_t { kNew, kWakeup, kMigrate, kRequeue };
enum class DequeueKind : uint8_t { kSleep, kExit, kMigrate, kRequeue };

// What the engine offers a scheduler.
class SchedContext {
 public:
  virtual ~SchedContext() = default;
  Time now() const { return now_; }
  const Machine& machine() const { return *machine_; }
  int cpus() const { return machine_->cpus; }
  Time tick_ns() const { return tick_ns_; }
  // The CPU's current task, or nullptr when it idles.
  Task* curr(CpuId cpu) const { return cpu_curr_[cpu]; }
  // Idle and not already asked to pick a task.
  bool idle(CpuId cpu) const { return idle_cpus_.test(static_cast<size_t>(cpu)); }
  const CpuMask& idle_cpus() const { return idle_cpus_; }
  Rng& rng() { return *rng_; }
  // Ask the CPU to call schedule() at the next preemption point (now).
  virtual void resched(CpuId cpu) = 0;
  // A schedule() is already pending on the CPU (the kernel's TIF_NEED_RESCHED).
  virtual bool resched_pending(CpuId cpu) const = 0;
  // Move a queued task to another CPU's run queue (load balancing, RT push/pull).
  virtual void migrate_queued(Task& t, CpuId to) = 0;
  // Call the task's class's timer_fired(t) at `at` (a high-resolution timer, such as
  // SCHED_DEADLINE's replenishment); a class ignores firings it no longer wants.
  virtual void start_timer(TaskId, Time /*at*/) {}

 protected:
  Time now_ = 0;
  Time tick_ns_ = 0;
  const Machine* machine_ = nullptr;
  std::vector<Task*> cpu_curr_;
  CpuMask idle_cpus_;  // no current task and no pending schedule()
  Rng* rng_ = nullptr;
};

class SchedClass {
 public:
  virtual ~SchedClass() = default;
  // Called once, before any task exists.
  virtual void attach(SchedContext& ctx) { ctx_ = &ctx; }
  // True when this class also schedules SCHED_FIFO/RR tasks (BFS replaced the RT class).
  virtual bool handles_rt() const { return false; }
  // True when the class knows SCHED_ISO (BFS); elsewhere such a task is refused.
  virtual bool supports_iso() const { return false; }

  // A task joins the class: allocate its data. `parent` is set for a fork (sched_fork).
  virtual void task_new(Task& t, const Task* parent) = 0;
  // select_task_rq: the CPU a new, waking or displaced task should be queued on.
  virtual CpuId select_cpu(Task& t, CpuId prev, const WakeInfo& how) = 0;
  virtual void enqueue(CpuId cpu, Task& t, EnqueueKind how) = 0;
  virtual void dequeue(CpuId cpu, Task& t, DequeueKind how) = 0;
  // check_preempt_curr: `woken` was queued on cpu, whose current task is `curr`.
  virtual void check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) = 0;
  virtual Task* pick_next(CpuId cpu) = 0;
  virtual void put_prev(CpuId cpu, Task& prev) = 0;
  virtual void task_tick(CpuId cpu, Task& curr) = 0;
  // The earliest time a tick on cpu could matter to this class while `curr` runs there.
  // The engine skips the jiffies before it (as a tickless kernel would); a class that
  // looks at every tick (load averages, balancing) keeps the default, now.
  virtual Time next_tick_wanted(CpuId, const Task&) const { return ctx_->now(); }
  virtual void yield(CpuId) {}
  // Before picking on cpu, with the previous task already put back (RT pull, the CFS
  // migration thread's active balance).
  virtual void balance(CpuId) {}
  // The CPU found nothing to run (new-idle balancing); may migrate tasks to it.
  virtual void idle_balance(CpuId) {}
  // After a context switch on cpu (the kernel's balance callbacks, e.g. RT push).
  virtual void post_schedule(CpuId) {}
  // Every tick of a busy CPU (periodic load balancing).
  virtual void tick_balance(CpuId) {}
  virtual void task_dead(Task&) {}
  // A timer started through SchedContext::start_timer fired.
  virtual void timer_fired(TaskId) {}
  // The class's own consistency, checked with the engine's invariants: a description of
  // what is broken, or empty.
  virtual std::string check_invariants() const { return {}; }

 protected:
  SchedContext* ctx_ = nullptr;
};

}  // namespace schedlab
