// The interface every scheduler implements, shaped like the kernel's struct sched_class.
// The engine calls these hooks; a scheduler decides who runs where and nothing else.
//
// Contract (the same for every class):
// - A runnable task is either some CPU's current task or queued in its class.
// - pick_next() takes a queued task and makes it current; put_prev() queues a current
//   task that stays runnable; dequeue() is called for a queued task, or for the current
//   task when it blocks or exits (then with kSleep / kExit, and no put_prev follows).
// - Before any hook the engine has charged the running tasks' time (Task::sum_exec_ns).
// - The engine holds the classes in a list, highest first (class_stack.h), and walks it
//   as the kernel's for_each_class does; a task belongs to the first class that takes
//   its policy.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"
#include "machine/machine.h"
#include "util/chunked_store.h"
#include "util/rng.h"
#include "util/types.h"
#include "workload/program.h"

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

// What an enqueue is told, as the kernel's ENQUEUE_* flags (and a wake-up's WF_* flags)
// travel with enqueue_task(): why the task is queued, the wake-up or fork behind it, and
// for a move by migrate_queued() the bits the moving class passed along for itself.
struct EnqueueFlags {
  EnqueueKind kind = EnqueueKind::kWakeup;
  WakeInfo wake;            // the fork, wake-up or move that queues the task
  uint32_t class_bits = 0;  // opaque to the engine: from SchedContext::migrate_queued
  // A wake-up from interrupt context (a timer): no task woke it.
  bool from_interrupt() const { return kind == EnqueueKind::kWakeup && wake.waker == kNoTask; }
};

class SchedClass;

// What the engine offers a scheduler.
class SchedContext {
  static bool rt_or_deadline(const Task& t) {
    return is_rt(t.policy) || t.policy == SchedPolicy::kDeadline;
  }

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
  // The CPUs with a current task (curr(cpu) != nullptr).
  const CpuMask& busy_cpus() const { return busy_cpus_; }
  // The CPUs whose current task has an RT or deadline policy.
  const CpuMask& rt_or_deadline_cpus() const { return rt_or_deadline_cpus_; }
  Rng& rng() { return *rng_; }
  // A task by id (every task the engine made keeps its id and address). Found from the id
  // alone, so that its record and a class's entity can be read in parallel.
  Task& task(TaskId id) const { return (*task_store_)[static_cast<size_t>(id)]; }
  // Ask the CPU to call schedule() at the next preemption point (now).
  virtual void resched(CpuId cpu) = 0;
  // A schedule() is already pending on the CPU (the kernel's TIF_NEED_RESCHED).
  virtual bool resched_pending(CpuId cpu) const = 0;
  // Move a queued task to another CPU's run queue (load balancing, RT push/pull).
  // `class_bits` reach the task's class's enqueue (EnqueueFlags::class_bits) untouched,
  // as pull_task() tells enqueue_task() which array to use.
  virtual void migrate_queued(Task& t, CpuId to, uint32_t class_bits = 0) = 0;
  // Call owner.timer_fired(t) at `at` (a high-resolution timer, such as SCHED_DEADLINE's
  // replenishment); a class ignores firings it no longer wants.
  virtual void start_timer(SchedClass& /*owner*/, TaskId, Time /*at*/) {}
  // Add an event of the class's own to the run's stream (SCHED_DEADLINE's job ends).
  virtual void emit(const SchedEvent&) {}

 protected:
  Time now_ = 0;
  Time tick_ns_ = 0;
  const Machine* machine_ = nullptr;
  // The one way a CPU's current task changes, so that busy_cpus_ follows cpu_curr_.
  void set_curr(CpuId cpu, Task* t) {
    cpu_curr_[cpu] = t;
    busy_cpus_.set(static_cast<size_t>(cpu), t != nullptr);
    rt_or_deadline_cpus_.set(static_cast<size_t>(cpu), t && rt_or_deadline(*t));
  }
  // The task's policy changed: the CPU it runs on, if any, follows.
  void policy_changed(const Task& t) {
    if (t.cpu != kNoCpu && cpu_curr_[t.cpu] == &t)
      rt_or_deadline_cpus_.set(static_cast<size_t>(t.cpu), rt_or_deadline(t));
  }
  std::vector<Task*> cpu_curr_;
  CpuMask idle_cpus_;            // no current task and no pending schedule()
  CpuMask busy_cpus_;            // a current task
  CpuMask rt_or_deadline_cpus_;  // a current task of policy FIFO, RR or DEADLINE
  Rng* rng_ = nullptr;
  ChunkedStore<Task>* task_store_ = nullptr;
};

class SchedClass {
 public:
  virtual ~SchedClass() = default;
  // Called once, before any task exists.
  virtual void attach(SchedContext& ctx) { ctx_ = &ctx; }

  // What the engine asks once, when it builds its list of classes.
  // The policies whose tasks the class takes; by default the normal ones. A class that
  // replaced every class (BFS) takes SCHED_FIFO/RR too.
  virtual bool takes(SchedPolicy p) const {
    return p == SchedPolicy::kOther || p == SchedPolicy::kBatch || p == SchedPolicy::kIdle;
  }
  // Every hook is a no-op until a first task joins (task_new): the engine skips the
  // class in schedule() and at ticks until one does (RT and deadline, which most
  // scenarios never use). A class with its own clock (balancing intervals) keeps false.
  virtual bool idle_until_first_task() const { return false; }
  // check_preempt_curr across classes: by default a woken task of a higher class than
  // the current task's preempts it, and one of a lower class waits. A class may decide
  // these itself in check_preempt instead: when the current task's class is lower
  // (deadline: a throttled task waits for its timer), or higher (RT: a task that cannot
  // preempt a deadline task is pushed where it can run).
  virtual bool decides_preemption_of_lower() const { return false; }
  virtual bool decides_preemption_by_higher() const { return false; }
  // The class wants the task life-cycle notifications below (task_woken, task_blocked,
  // task_period_done, task_exiting); the engine skips them for the others, as the kernel
  // skips a sched_class hook left NULL.
  virtual bool follows_task_life() const { return false; }
  // sched_attr.sched_runtime sets a fair task's slice (Linux 6.12's custom slices), so
  // sched_setattr() sees a slice-only change as a change.
  virtual bool custom_slices() const { return false; }

  // __sched_setscheduler(): `t` is about to take the settings `s` (when it starts, or a
  // phase changes its policy, nice or affinity, t.allowed being already the new one). Every
  // class of the list is asked, whichever class the task is in or goes to; a non-empty
  // answer refuses the settings with that reason and ends the run (DEADLINE's admission
  // control, sched_dl_overflow()).
  virtual std::string sched_setattr(const Task& /*t*/, const SchedSettings& /*s*/) { return {}; }

  // A task joins the class: allocate its data. `parent` is set for a fork (sched_fork).
  virtual void task_new(Task& t, const Task* parent) = 0;
  // select_task_rq: the CPU a new, waking or displaced task should be queued on.
  virtual CpuId select_cpu(Task& t, CpuId prev, const WakeInfo& how) = 0;
  virtual void enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) = 0;
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
  // sched_yield() by the CPU's current task (a class's own rules: RT to the tail, a
  // deadline task's job ends).
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
  // A timer this class started through SchedContext::start_timer fired.
  virtual void timer_fired(TaskId) {}

  // Task life-cycle notifications, sent only to a class whose follows_task_life() is true.
  // A task that slept became runnable again (try_to_wake_up), possibly while still on its
  // CPU; a new task is announced by task_new instead.
  virtual void task_woken(Task&) {}
  // The running task blocks; dequeue(kSleep) follows at its CPU's schedule().
  virtual void task_blocked(Task&) {}
  // The running task reached its program's timer: this period's work is done.
  // `next_started`: the next period is already due, so the task runs on without sleeping.
  virtual void task_period_done(Task&, bool /*next_started*/) {}
  // The running task's program ended (do_exit); dequeue(kExit) and task_dead follow at
  // its CPU's schedule(). Also sent for a task that exits before it ever joined a class.
  virtual void task_exiting(Task&) {}
  // The run ends at now() (tasks may still be alive): a class reports what is still open.
  virtual void run_ended() {}
  // The class's own consistency, checked with the engine's invariants: a description of
  // what is broken, or empty.
  virtual std::string check_invariants() const { return {}; }

 protected:
  SchedContext* ctx_ = nullptr;
};

}  // namespace schedlab
