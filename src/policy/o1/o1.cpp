// O(1) of 2.6.22: timeslices, sleep_avg, interactivity, fork and exit, on the shared
// arrays; placement and balancing are mainline's (policy/arrays/mainline_2622.h). See
// o1.h for what is modelled and the judgement calls.
#include "policy/o1/o1.h"

#include <algorithm>

#include "policy/arrays/mainline_2622.h"
#include "policy/registry.h"

namespace schedlab {
namespace o1 {

using arrays::kMaxPrio;
using arrays::kMaxRtPrio;

namespace {
constexpr int kMaxBonus = 10;  // MAX_USER_PRIO * PRIO_BONUS_RATIO / 100
constexpr int kInteractiveDelta = 2;
constexpr int kOnRunqueueWeight = 30;
constexpr int kChildPenalty = 95, kParentPenalty = 100, kExitWeight = 3;
}  // namespace

O1::O1(const O1Params& p) : p_(p), balancer_(arrays::rules_2622(), arrays::domains_2622()) {}

void O1::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  q_.attach(ctx, p_.cache_hot_time_ns);
  expired_timestamp_.assign(static_cast<size_t>(ctx.cpus()), 0);
  balancer_.attach(ctx, q_);
}

// MIN_TIMESLICE (5 ms) and DEF_TIMESLICE (100 ms), in jiffies.
int64_t O1::min_timeslice() const {
  return std::max<int64_t>(5 * ctx_->machine().hz / 1000, 1);
}
int64_t O1::def_timeslice() const {
  return 100 * ctx_->machine().hz / 1000;
}

// task_timeslice(): 800 ms at nice -20, 100 ms at 0, 5 ms at 19 (SCALE_PRIO).
int64_t O1::task_timeslice(const Entity& e) const {
  const int64_t base = e.static_prio < 120 ? def_timeslice() * 4 : def_timeslice();
  return std::max<int64_t>(base * (kMaxPrio - e.static_prio) / 20, min_timeslice());
}

int O1::current_bonus(const Entity& e) const {
  return static_cast<int>(ns_to_jiffies(e.sleep_avg) * kMaxBonus / max_sleep_avg());
}

// DELTA(): how far below its static priority a task must be to count as interactive.
int O1::delta(const Entity& e) const {
  const int nice = e.static_prio - 120;
  return (nice + 20) * kMaxBonus / 40 - 20 * kMaxBonus / 40 + kInteractiveDelta;
}

bool O1::task_interactive(const Entity& e) const {
  return e.prio <= e.static_prio - delta(e);
}

// INTERACTIVE_SLEEP(): the sleep_avg ceiling one long sleep can reach.
int64_t O1::interactive_sleep(const Entity& e) const {
  return jiffies_to_ns(max_sleep_avg() * (kMaxBonus / 2 + delta(e) + 1) / kMaxBonus - 1);
}

// TIMESLICE_GRANULARITY(): interactive tasks round-robin in pieces that shrink as the
// bonus grows, times the CPU count.
int64_t O1::timeslice_granularity(const Entity& e) const {
  const int64_t granularity = std::max<int64_t>(10 * ctx_->machine().hz / 1000, 1);
  int shift = kMaxBonus - current_bonus(e);
  if (shift == 0) shift = 1;
  return granularity * (int64_t{1} << (shift - 1)) * ctx_->cpus();
}

// __normal_prio(): the static priority moved by the bonus, -5 ... +5.
int O1::normal_prio(const Entity& e) const {
  const int bonus = current_bonus(e) - kMaxBonus / 2;
  return std::clamp(e.static_prio - bonus, kMaxRtPrio, kMaxPrio - 1);
}

// set_load_weight(): the timeslice scaled so that nice 0 weighs SCHED_LOAD_SCALE.
void O1::set_load_weight(Entity& e) {
  e.load_weight = task_timeslice(e) * 1024 / def_timeslice();
}

// recalc_task_prio(): time asleep raises sleep_avg; one long sleep only to the
// interactive ceiling, marked non-interactive.
int O1::recalc_task_prio(Entity& e, int64_t now) {
  int64_t sleep_time = now - e.timestamp;
  if (e.task->policy == SchedPolicy::kBatch) sleep_time = 0;
  if (sleep_time > 0) {
    const int64_t ceiling = interactive_sleep(e);
    if (sleep_time > ceiling && e.sleep_avg < ceiling) {
      e.sleep_avg = ceiling;
      e.sleep_type = SleepType::kNonInteractive;
    } else {
      if (e.sleep_type == SleepType::kNonInteractive) {
        if (e.sleep_avg >= ceiling) {
          sleep_time = 0;
        } else if (e.sleep_avg + sleep_time >= ceiling) {
          e.sleep_avg = ceiling;
          sleep_time = 0;
        }
      }
      e.sleep_avg += sleep_time;
    }
    e.sleep_avg = std::min(e.sleep_avg, jiffies_to_ns(max_sleep_avg()));
  }
  return normal_prio(e);
}

// expired_starving(): interactive tasks stop being reinserted into the active array
// when the first expired task has waited STARVATION_LIMIT per runnable task, or a better
// static priority has expired.
bool O1::expired_starving(CpuId cpu) const {
  const arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr != kNoTask && q_[rq.curr].static_prio > rq.best_expired_prio) return true;
  const int64_t limit = p_.starvation_limit_ms * ctx_->machine().hz / 1000;
  const int64_t since = expired_timestamp_[cpu];
  if (limit == 0 || since == 0) return false;
  return jiffies() - since > limit * rq.nr_running;
}

// __activate_task(): into the active array (SCHED_BATCH: the expired one), at the tail.
void O1::activate(CpuId cpu, Entity& e) {
  const int active = q_.rq(cpu).active;
  q_.activate(cpu, e, e.task->policy == SchedPolicy::kBatch ? active ^ 1 : active);
}

// The part of schedule() about prev: its run time, divided by its bonus so interactive
// tasks lose their status slowly, comes off sleep_avg.
void O1::switch_out(Entity& e) {
  const int64_t now = ctx_->now();
  int64_t run_time = std::clamp<int64_t>(now - e.timestamp, 0, jiffies_to_ns(max_sleep_avg()));
  run_time /= std::max(current_bonus(e), 1);
  e.sleep_avg = std::max<int64_t>(0, e.sleep_avg - run_time);
  e.timestamp = e.last_ran = now;
}

// sched_fork(): the child shares the parent's remaining timeslice and inherits its
// sleep_avg (dup_task_struct) and priority.
void O1::task_new(Task& t, const Task* parent) {
  q_.grow(t.id);
  Entity& e = q_[t.id];
  e = Entity{};
  e.task = &t;
  e.static_prio = 120 + t.nice;
  set_load_weight(e);
  e.time_slice = task_timeslice(e);
  e.timestamp = ctx_->now();
  if (parent && q_.known(parent->id) && q_[parent->id].array >= 0) {
    Entity& pe = q_[parent->id];
    e.parent = parent->id;
    e.sleep_avg = pe.sleep_avg;
    e.time_slice = (pe.time_slice + 1) >> 1;
    e.first_time_slice = true;
    pe.time_slice >>= 1;
    if (pe.time_slice == 0) {  // the parent had one jiffy left: it expires now
      pe.time_slice = 1;
      if (q_.rq(pe.rq_cpu).curr == parent->id) slice_tick(pe.rq_cpu, pe);
    }
  }
  e.prio = normal_prio(e);
}

CpuId O1::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  return arrays::select_cpu_2622(balancer_, q_, t, prev, how);
}

void O1::enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) {
  Entity& e = q_[t.id];
  switch (how.kind) {
    case EnqueueKind::kNew: {
      // wake_up_new_task(): child and parent lose a little sleep_avg; a thread's child
      // runs last, at the tail of the active array.
      e.sleep_avg =
          jiffies_to_ns(current_bonus(e) * kChildPenalty / 100 * max_sleep_avg() / kMaxBonus);
      e.prio = normal_prio(e);
      activate(cpu, e);
      if (e.parent != kNoTask && q_[e.parent].task) {
        Entity& pe = q_[e.parent];
        pe.sleep_avg =
            jiffies_to_ns(current_bonus(pe) * kParentPenalty / 100 * max_sleep_avg() / kMaxBonus);
      }
      return;
    }
    case EnqueueKind::kWakeup: {
      // activate_task(): the sleep counts towards sleep_avg; a wake-up from interrupt
      // context earns the full on-runqueue credit later, one by a task 30 %.
      const int64_t now = ctx_->now();
      e.prio = recalc_task_prio(e, now);
      if (e.sleep_type == SleepType::kNormal)
        e.sleep_type = how.from_interrupt() ? SleepType::kInterrupted : SleepType::kInteractive;
      e.timestamp = now;
      activate(cpu, e);
      return;
    }
    case EnqueueKind::kMigrate: {  // pull_task(): the same array on the new CPU
      const int active = q_.rq(cpu).active;
      q_.activate(cpu, e, how.class_bits & arrays::kToExpired ? active ^ 1 : active);
      return;
    }
    case EnqueueKind::kRequeue:  // a policy or affinity change
      e.static_prio = 120 + t.nice;
      set_load_weight(e);
      e.prio = normal_prio(e);
      activate(cpu, e);
      return;
  }
}

void O1::dequeue(CpuId cpu, Task& t, DequeueKind) {
  Entity& e = q_[t.id];
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr == t.id) {  // blocking or exiting in schedule()
    switch_out(e);
    rq.curr = kNoTask;
  }
  if (e.array >= 0) q_.deactivate(e);
}

void O1::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) {
  if (arrays::wakeup_preempts_2622(cpu, q_[curr.id].prio, q_[woken.id].prio, how))
    ctx_->resched(cpu);
}

// The pick of schedule(): swap the arrays when the active one is empty; the first task
// of the best list runs, after its on-runqueue time is credited to an interactive
// sleeper (full from an interrupt wake-up, 30 % otherwise).
Task* O1::pick_next(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.nr_running == 0) {
    expired_timestamp_[cpu] = 0;
    return nullptr;
  }
  if (rq.arrays[rq.active].nr_active == 0) {
    rq.active ^= 1;
    expired_timestamp_[cpu] = 0;
    rq.best_expired_prio = kMaxPrio;
  }
  const TaskId id = q_.first_id(cpu);
  Entity& next = q_[id];
  const int64_t now = ctx_->now();
  if (next.sleep_type == SleepType::kInteractive || next.sleep_type == SleepType::kInterrupted) {
    int64_t credit = std::max<int64_t>(0, now - next.timestamp);
    if (next.sleep_type == SleepType::kInteractive)
      credit = credit * (kOnRunqueueWeight * 128 / 100) / 128;
    const int new_prio = recalc_task_prio(next, next.timestamp + credit);
    if (new_prio != next.prio) {
      const int array = next.array;
      q_.dequeue(next);
      next.prio = new_prio;
      q_.enqueue(cpu, next, array);
    }
  }
  next.sleep_type = SleepType::kNormal;
  next.timestamp = next.last_ran = now;
  rq.curr = id;
  return &ctx_->task(id);  // from the id: not a load after the entity's
}

void O1::put_prev(CpuId cpu, Task& prev) {
  switch_out(q_[prev.id]);
  q_.rq(cpu).curr = kNoTask;  // it stays where it is in its list
}

// task_running_tick(): a used-up timeslice is refilled, the task goes to the expired
// array unless it is interactive and nothing starves there; an interactive task still
// holding its slice yields to its equals every TIMESLICE_GRANULARITY.
void O1::slice_tick(CpuId cpu, Entity& e) {
  arrays::Queue& rq = q_.rq(cpu);
  if (e.array != rq.active) {  // expired but not yet switched out
    ctx_->resched(cpu);
    return;
  }
  if (--e.time_slice == 0) {
    q_.dequeue(e);
    ctx_->resched(cpu);
    e.prio = normal_prio(e);
    e.time_slice = task_timeslice(e);
    e.first_time_slice = false;
    if (expired_timestamp_[cpu] == 0) expired_timestamp_[cpu] = jiffies();
    if (!task_interactive(e) || expired_starving(cpu)) {
      q_.enqueue(cpu, e, rq.active ^ 1);
      rq.best_expired_prio = std::min(rq.best_expired_prio, e.static_prio);
    } else {
      q_.enqueue(cpu, e, rq.active);
    }
    return;
  }
  const int64_t granularity = timeslice_granularity(e);
  if (task_interactive(e) && (task_timeslice(e) - e.time_slice) % granularity == 0 &&
      e.time_slice >= granularity) {
    q_.requeue(e);
    ctx_->resched(cpu);
  }
}

void O1::task_tick(CpuId cpu, Task& curr) {
  if (q_.rq(cpu).curr == curr.id) slice_tick(cpu, q_[curr.id]);
}

// sys_sched_yield(): to the expired array (the tail of its list if already there).
void O1::yield(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask) return;
  Entity& e = q_[rq.curr];
  const int target = rq.active ^ 1;
  if (e.array != target) {
    q_.dequeue(e);
    q_.enqueue(cpu, e, target);
  } else {
    q_.requeue(e);
  }
}

// sched_exit(): an unused first slice returns to the parent, and a child that slept
// less than its parent drags the parent's sleep_avg down.
void O1::task_dead(Task& t) {
  Entity& e = q_[t.id];
  if (e.parent == kNoTask || !q_[e.parent].task || !q_[e.parent].task->runnable) return;
  Entity& pe = q_[e.parent];
  if (e.first_time_slice && t.cpu == pe.task->cpu)
    pe.time_slice = std::min(pe.time_slice + e.time_slice, task_timeslice(e));
  if (e.sleep_avg < pe.sleep_avg)
    pe.sleep_avg = pe.sleep_avg / (kExitWeight + 1) * kExitWeight + e.sleep_avg / (kExitWeight + 1);
}

}  // namespace o1

std::vector<PolicyInfo> o1_policies() {
  return {declare_policy<o1::O1Params>(
      "o1", "O(1) of Linux 2.6.22: active/expired arrays, sleep_avg bonus, interactivity",
      o1::O1Params::table(), {},
      [](const o1::O1Params& p) { return std::make_unique<o1::O1>(p); })};
}

}  // namespace schedlab
