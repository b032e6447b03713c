// The simulation engine: virtual time, one agenda, one seeded random source, and the
// mechanics every scheduler shares: running, blocking, waking, ticking, migrating and
// accounting. Policies decide who runs where through the SchedClass hooks; the engine
// holds no policy-specific branch.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "policy/sched_class.h"
#include "sim/dl_class.h"
#include "sim/event_queue.h"
#include "sim/rt_class.h"
#include "sim/sync_objects.h"
#include "util/rng.h"
#include "workload/program.h"

namespace schedlab {

struct EngineOptions {
  Time end_ns = 10 * kNsPerSec;  // stop here if tasks are still alive
  uint64_t seed = 1;
  bool check_invariants = false;
  std::string policy_name;
};

struct EngineResult {
  Time end_ns = 0;  // when the run stopped
  bool all_exited = false;
};

class Engine final : public SchedContext {
 public:
  Engine(const Machine& machine, const Workload& workload, std::unique_ptr<SchedClass> normal,
         EngineOptions options, EventSink& sink);
  ~Engine() override;

  // Runs to the end; throws WorkloadError on deadlock, InvariantError on a broken rule.
  EngineResult run();

  void resched(CpuId cpu) override;
  bool resched_pending(CpuId cpu) const override { return cpus_[cpu].need_resched; }
  void migrate_queued(Task& t, CpuId to) override;
  void start_timer(TaskId t, Time at) override;

 private:
  enum class Burst : uint8_t { kNone, kWork, kRuntime, kSpin };

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
    BlockReason block_reason = BlockReason::kSleep;
    CpuId last_cpu_ran = kNoCpu;
    Int128 work_scaled = 0;  // remaining work x 1024 (capacity units)
    Time runtime_end = 0;
    Time spin_left = 0;
    Time stall_left = 0;  // cache refill still to pay after a migration
    Time t_first = 0;     // rt-app's reference time for timers
    int32_t block_object = -1;
    uint64_t wake_generation = 0;
    // SCHED_DEADLINE: the current job's absolute deadline (-1: no job), the bandwidth
    // admitted for the task (runtime/period << 20)
    Time dl_job_deadline = -1;
    Time dl_job_exec = 0;  // sum_exec_ns when the job started
    int64_t dl_bw = 0;
    // spinlock acquisition in progress
    int spin_yields = 0, spin_sleeps = 0;
    Time spin_delay = 0;
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
  };

  // lifecycle
  void start_static_tasks();
  Task& create_task(int spec_index, const std::string& name, Task* parent);
  void wake(Task& t, const WakeInfo& how, TaskId waker);
  void block(Task& t, BlockReason reason, int32_t object);
  void exit_task(Task& t);
  void set_task_cpu(Task& t, CpuId cpu);
  void check_preempt_curr(CpuId cpu, Task& woken, const WakeInfo& how);
  SchedClass& class_of(const Task& t) {
    if (t.policy == SchedPolicy::kDeadline) return dl_;
    return is_rt(t.policy) && !normal_->handles_rt() ? rt_ : *normal_;
  }
  // 0 deadline, 1 RT, 2 the normal class (which may hold RT tasks too, as BFS does).
  int class_rank(const Task& t) const {
    if (t.policy == SchedPolicy::kDeadline) return 0;
    return is_rt(t.policy) && !normal_->handles_rt() ? 1 : 2;
  }
  // SCHED_DEADLINE admission control and job accounting (engine_deadline.cpp).
  void set_sched_attrs(Task& t, const SchedSettings& s);
  void dl_job_start(Task& t);
  void dl_job_end(Task& t, bool exiting = false);

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
  bool next_step(Task& t, Exec& x);    // false: the task stopped (exit or requeue)
  bool enter_phase(Task& t, Exec& x);  // false: attributes change first
  // The affinity and scheduling settings a task has during a phase (rt-app: the
  // phase's own, else the task's; no "cpus" anywhere means every CPU).
  // The affinity and scheduling settings a phase applies, computed once per phase.
  const std::pair<CpuMask, SchedSettings>& phase_attributes(const TaskSpec& spec,
                                                            size_t phase) const {
    return phase_attrs_[static_cast<size_t>(&spec - workload_.tasks.data())][phase];
  }
  std::vector<std::vector<std::pair<CpuMask, SchedSettings>>> phase_attrs_;
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

  void emit(const SchedEvent& e) { sink_.event(e); }
  TaskInfo info_of(const Task& t) const;

  const Machine& machine_ref_;
  const Workload& workload_;
  std::unique_ptr<SchedClass> normal_;
  DlClass dl_;
  RtClass rt_;
  EngineOptions options_;
  EventSink& sink_;
  Rng rng_storage_;
  Agenda agenda_;
  std::deque<Task> tasks_;  // stable addresses as tasks are forked
  std::deque<Exec> execs_;
  std::vector<Cpu> cpus_;
  std::vector<CpuId> pending_rescheds_;
  Time jiffy_at_ = -1;  // the pending jiffy entry's time, -1 if none
  Time next_grid_ = 0;  // the first jiffy after now_, recomputed when now_ reaches it
  uint64_t jiffy_generation_ = 0;
  std::vector<int> fork_counts_;  // per task spec
  SyncObjects sync_;
  int64_t dl_total_bw_ = 0;  // admitted SCHED_DEADLINE bandwidth, << 20
  int live_tasks_ = 0;
  Time steps_instant_ = -1;  // guards against programs that loop in zero time
  uint64_t steps_at_instant_ = 0;
  int pending_starts_ = 0;
  EngineResult result_;
};

}  // namespace schedlab
