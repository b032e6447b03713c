// The simulation engine: virtual time, one agenda, one seeded random source, and the
// mechanics every scheduler shares: running, blocking, waking, ticking, migrating and
// accounting. Policies decide who runs where through the SchedClass hooks of a list of
// classes, highest first, which the engine walks as the kernel's for_each_class does; the
// engine names no class and holds no policy-specific branch.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "policy/class_stack.h"
#include "policy/sched_class.h"
#include "sim/event_queue.h"
#include "sim/sync_objects.h"
#include "util/chunked_store.h"
#include "util/limits.h"
#include "util/rng.h"
#include "workload/program.h"

namespace schedlab {

struct EngineOptions {
  Time end_ns = 10 * kNsPerSec;  // stop here if tasks are still alive
  uint64_t seed = 1;
  bool check_invariants = false;
  std::string policy_name;
  int max_live_tasks = kDefaultMaxLiveTasks;  // a fork past it ends the run (WorkloadError)
  std::string generator;                      // RunInfo::generator
};

struct EngineResult {
  Time end_ns = 0;  // when the run stopped
  bool all_exited = false;
};

class Engine final : public SchedContext {
 public:
  // Throws InputError (with no file) for a task whose policy no class of `classes` takes.
  Engine(const Machine& machine, const Workload& workload, ClassStack classes,
         EngineOptions options, EventSink& sink);
  ~Engine() override;

  // Runs to the end; throws WorkloadError on deadlock, InvariantError on a broken rule.
  EngineResult run();

  void resched(CpuId cpu) override;
  bool resched_pending(CpuId cpu) const override { return cpus_[cpu].need_resched; }
  void migrate_queued(Task& t, CpuId to, uint32_t class_bits = 0) override;
  void start_timer(SchedClass& owner, TaskId t, Time at) override;
  void emit(const SchedEvent& e) override { sink_.event(e); }

  // The class list, highest first (for tests).
  const ClassStack& classes() const { return stack_; }

 private:
  // kRwSpin: an InnoDB rw-lock's spin phase (spin_left), ended early once the field it
  // spins on frees.
  enum class Burst : uint8_t { kNone, kWork, kRuntime, kSpin, kRwSpin };
  // Where an InnoDB rw-lock acquisition is (sim/innodb_rw_lock.h): the first try under
  // the mutex, the spin (without it), the try after the spin.
  enum class RwStage : uint8_t { kTry, kSpin, kRetry };

  // Engine-private state of a task: where it is in its program.
  // Fields used on every switch first (two cache lines), the rarely used ones after.
  struct Exec {
    const TaskSpec* spec = nullptr;
    size_t phase = 0, step = 0;
    int64_t phase_iter = 0, task_iter = 0;
    Burst burst = Burst::kNone;
    bool exited = false;
    bool attrs_pending = false;           // affinity or policy change waiting for schedule()
    bool holder_episode_counted = false;  // preempted holding a spinlock, already counted
    bool timer_exit_done = false;  // its timer's interrupt has brought its idle CPU out of idle
    BlockReason block_reason = BlockReason::kSleep;
    CpuId last_cpu_ran = kNoCpu;
    Int128 work_scaled = 0;  // remaining work x 1024 (capacity units)
    Time runtime_end = 0;
    Time spin_left = 0;
    Time stall_left = 0;         // cache refill still to pay after a migration
    Time return_until = 0;       // in the system call of a wake-up it made until then
    Time t_first = 0;            // rt-app's reference time for timers
    Time start_at = -1;          // a forked thread's delay still ahead: it sleeps until then first
    bool own_attrs_due = false;  // it still has its creator's: its first phase sets the task's
    Time c_duration_ns = 0;  // run/runtime asked since the last timer step (rt-app's c_duration)
    int32_t block_object = -1;
    uint64_t wake_generation = 0;
    int32_t memory_intensity_q10 = 0;  // of its current phase (machine cost shared_cache_slowdown)
    // spinlock acquisition in progress
    int spin_yields = 0, spin_sleeps = 0;
    Time spin_delay = 0;
    bool spin_contended = false;       // this acquisition went through s_lock's spin loop
    int spins_per_delay = 100;         // PostgreSQL 8.4 s_lock's per-backend count (adaptive)
    bool lwlock_retry = false;         // woken from an LWLock queue: 8.4's `retry`
    RwStage rw_stage = RwStage::kTry;  // InnoDB rw-lock acquisition in progress
    bool sem_slept = false;            // sem_wait's one sleep before queueing is spent
    std::vector<std::pair<int32_t, Time>> unique_timers;  // timer id, next expiry
    CpuMask pending_allowed;
    SchedSettings pending_sched;
  };
  struct Cpu {
    Time seg_start = 0;
    Time overhead_left = 0;
    Time overhead_ns = 0;
    Time idle_ns = 0;
    Time idle_since = 0;
    bool tick_armed = false;
    Time tick_at = 0;  // when the armed tick fires
    bool need_resched = false;
    bool burst_armed = false;  // the CPU's agenda slot holds the current burst's end
    // A wake-up's reschedule on its way (wakeup_ipi_ns, idle_exit_ns): need_resched is set,
    // schedule() runs when the kIpi entry of this generation arrives.
    bool ipi_pending = false;
    // ... and that reschedule waits only for the current task's own system-call return
    // (wakeup_return_ns): the task makes no further step meanwhile.
    bool resched_at_return = false;
    uint32_t ipi_generation = 0;
    int32_t slowdown_q10 = 0;    // `run` work proceeds at 1024 / (1024 + this) (co-running)
    int64_t slowdown_carry = 0;  // what the last division left, so that slowed work adds up
    Time awake_at = -1;          // an interrupt brought it out of idle at this time
  };

  // lifecycle
  void start_static_tasks();
  Task& create_task(int spec_index, const std::string& name, Task* parent);
  void wake(Task& t, const WakeInfo& how, TaskId waker);
  void block(Task& t, BlockReason reason, int32_t object);
  void exit_task(Task& t);
  void set_task_cpu(Task& t, CpuId cpu);
  void check_preempt_curr(CpuId cpu, Task& woken, const WakeInfo& how);
  void set_runnable(Task& t, bool runnable);

  // The machine's costs of a wake-up (machine/costs.h): while a wake-up or fork is being
  // placed, a reschedule of a CPU other than the waker's, or of an idle one, arrives late.
  struct WakeContext {
    bool active = false;
    CpuId waker_cpu = kNoCpu;
    TaskId waker = kNoTask;  // kNoTask: a timer's interrupt
  };
  void begin_wake_costs(Task& woken, CpuId target, const WakeInfo& how);
  Time wake_delay(CpuId cpu) const;
  void charge_ipi_send(CpuId cpu);
  void delay_resched(CpuId cpu, Time delay);
  void begin_return(TaskId waker);
  void end_return_at_block(Exec& x);
  Time return_left(CpuId cpu) const;
  void deliver_ipi(CpuId cpu);
  // A timer firing on an idle CPU: true if the wake-up waits for the CPU to leave idle.
  bool timer_waits_for_idle_exit(Task& t, Exec& x);
  // Co-running slowdown (shared_cache_slowdown, smt_slowdown): the CPU's current task or
  // its memory intensity changed; its neighbours' rates follow.
  void corun_changed(CpuId cpu);
  int32_t corun_slowdown(CpuId cpu) const;
  void set_memory_intensity(CpuId cpu, Exec& x, int32_t q10);
  // sched_setscheduler(): every class may refuse the settings (deadline admission).
  void set_sched_attrs(Task& t, const SchedSettings& s);

  // The class list as the engine walks it, with what it reads of each class on the hot
  // path (asked once, so that a skipped class or hook costs no virtual call).
  struct ClassSlot {
    SchedClass* cls = nullptr;
    bool in_use = false;  // a task has joined, or the class is never skipped
    bool decides_preemption_of_lower = false;
    bool decides_preemption_by_higher = false;
    bool follows_task_life = false;
  };
  void build_class_list();
  // The slot of the class a task belongs to; its index is the class's rank (0 highest).
  size_t class_index(const Task& t) const { return class_index_[static_cast<size_t>(t.policy)]; }
  ClassSlot& slot_of(const Task& t) { return slots_[class_index(t)]; }
  SchedClass& class_of(const Task& t) { return *slot_of(t).cls; }
  // task_new, marking the class as used from now on.
  void join_class(Task& t, const Task* parent);
  // The life-cycle notifications, to a class that follows them.
  void notify_woken(Task& t) {
    if (ClassSlot& s = slot_of(t); s.follows_task_life) s.cls->task_woken(t);
  }
  void notify_blocked(Task& t) {
    if (ClassSlot& s = slot_of(t); s.follows_task_life) s.cls->task_blocked(t);
  }
  void notify_period_done(Task& t, bool next_started) {
    if (ClassSlot& s = slot_of(t); s.follows_task_life) s.cls->task_period_done(t, next_started);
  }
  void notify_exiting(Task& t) {
    if (ClassSlot& s = slot_of(t); s.follows_task_life) s.cls->task_exiting(t);
  }

  // the CPU side
  void schedule(CpuId cpu);
  Task* pick(CpuId cpu);
  void requeue_with_new_attrs(CpuId cpu, Task& prev);
  void switch_to(CpuId cpu, Task* prev, Task* next);
  void account(CpuId cpu);
  void arm_burst(CpuId cpu);
  void arm_tick(CpuId cpu);
  void on_burst_end(CpuId cpu);
  void on_tick(CpuId cpu);
  void arm_jiffy(Time at);
  void on_jiffy();
  void process_rescheds();

  // the program side (engine_program.cpp)
  void advance_program(CpuId cpu);
  enum class StepResult { kContinue, kBurst, kStop };
  StepResult execute_step(CpuId cpu, Task& t, Exec& x, const Step& s);
  StepResult step_work(Exec& x, Burst kind, Time amount);
  StepResult step_timer(Task& t, Exec& x, const Step& s);
  StepResult step_barrier(CpuId cpu, Task& t, const Step& s);
  StepResult step_spin_lock(CpuId cpu, Task& t, Exec& x, const Step& s);
  StepResult step_advance(CpuId cpu, Task& t, const Step& s);
  StepResult step_wait_progress(Task& t, const Step& s);
  StepResult step_sem_post(CpuId cpu, Task& t, const Step& s);
  StepResult step_sem_wait(Task& t, Exec& x, const Step& s);
  StepResult step_lwlock_acquire(Task& t, Exec& x, const Step& s);
  StepResult step_lwlock_release(CpuId cpu, Task& t, const Step& s);
  void check_lwlock_mutex(const Task& t, const Step& s) const;
  // InnoDB rw-locks (sim/innodb_rw_lock.h)
  StepResult step_innodb_rw_lock(CpuId cpu, Task& t, Exec& x, const Step& s);
  StepResult step_innodb_rw_unlock(CpuId cpu, Task& t, const Step& s);
  StepResult innodb_rw_spin(CpuId cpu, Task& t, Exec& x, const Step& s);
  void innodb_rw_spin_ended(CpuId cpu, Task& t, Exec& x);
  void check_innodb_rw_mutex(const Task& t, const Step& s) const;
  size_t innodb_rw_mutex_step(const Task& t, const Exec& x, const Step& s) const;
  void end_finished_rw_spins(InnodbRwLockState& lock);
  void wake_all(const std::vector<TaskId>& waiters, CpuId cpu, const Task& waker);
  bool next_step(Task& t, Exec& x);    // false: the task stopped (exit, requeue, start sleep)
  bool enter_phase(Task& t, Exec& x);  // false: attributes change first
  // What a phase applies, computed once per phase, as rt-app's thread_body does at each
  // of its iterations: the affinity (the phase's "cpus", else the task's, else every
  // CPU) and the phase's own scheduling settings; a phase without any keeps the ones the
  // task has then (set_thread_param() of no sched_data), the task's at its start.
  using PhaseAttributes = std::pair<CpuMask, std::optional<SchedSettings>>;
  const PhaseAttributes& phase_attributes(const TaskSpec& spec, size_t phase) const {
    return phase_attrs_[static_cast<size_t>(&spec - workload_.tasks.data())][phase];
  }
  std::vector<std::vector<PhaseAttributes>> phase_attrs_;
  // A CPU chosen by select_cpu, checked against the machine and the task's affinity.
  CpuId checked_cpu(const Task& t, CpuId cpu) const;
  void start_work(Exec& x, Burst kind, Time amount);
  void spin_attempt_failed(CpuId cpu, Task& t, Exec& x);
  bool mutex_lock(Task& t, int32_t m);  // false: t blocked
  void signal_one(int32_t condvar, const Task& waker);
  void wait_on_condvar(Task& t, int32_t condvar, int32_t mutex);
  void mutex_unlock(Task& t, int32_t m, const char* what);
  void spin_unlock(Task& t, int32_t lock);
  void sleep_until(Task& t, Time when, BlockReason reason);
  [[noreturn]] void deadlock();
  std::string describe_wait(const Task& t) const;

  // invariants (engine_checks.cpp)
  void check_pick(CpuId cpu, const Task* next) const;
  void check_all_accounted() const;
  void check_conservation(Time end) const;
  [[noreturn]] void violation(const std::string& what) const;

  TaskInfo info_of(const Task& t) const;

  const Machine& machine_ref_;
  // The workload with the machine's background tasks appended, when it has any.
  std::unique_ptr<const Workload> noisy_workload_;
  const Workload& workload_;
  ClassStack stack_;
  std::vector<ClassSlot> slots_;  // stack_'s classes, highest first
  static constexpr size_t kPolicies = static_cast<size_t>(SchedPolicy::kIso) + 1;
  std::array<uint8_t, kPolicies> class_index_{};  // per SchedPolicy (every one is taken)
  EngineOptions options_;
  EventSink& sink_;
  Rng rng_storage_;
  Agenda agenda_;
  // By task id; stable addresses as tasks are forked.
  ChunkedStore<Task> tasks_;
  ChunkedStore<Exec> execs_;
  std::vector<Cpu> cpus_;
  std::vector<CpuId> pending_rescheds_;
  Time jiffy_at_ = -1;  // the pending jiffy entry's time, -1 if none
  Time next_grid_ = 0;  // the first jiffy after now_, recomputed when now_ reaches it
  uint64_t jiffy_generation_ = 0;
  std::vector<int> fork_counts_;  // per task spec
  SyncObjects sync_;
  int live_tasks_ = 0;
  Time steps_instant_ = -1;  // guards against programs that loop in zero time
  uint64_t steps_at_instant_ = 0;
  int pending_starts_ = 0;
  // Cost switches, read once from the machine.
  bool wake_costs_ = false, corun_ = false, has_background_ = false;
  Time return_ns_ = 0;  // machine cost wakeup_return_ns
  WakeContext wake_ctx_;
  int32_t shared_cache_q10_ = 0, smt_q10_ = 0;
  std::vector<std::vector<CpuId>> corun_neighbours_;  // per CPU: CPUs sharing its cache
  // With background tasks the agenda never empties, so a deadlock is found by these:
  // workload tasks runnable, and timed wake-ups and class timers pending for them.
  int workload_runnable_ = 0;
  int64_t workload_timers_ = 0;
  EngineResult result_;
};

}  // namespace schedlab
