// CFS of 2.6.23: kernel/sched_fair.c of 2.6.23.17 and its try_to_wake_up. See cfs23.h.
#include "policy/cfs23/cfs23.h"

#include <algorithm>

namespace schedlab::cfs23 {

using fair::calc_delta_mine;
using fair::kNice0Load;

namespace {
constexpr int kNice0Shift = 10, kWmultShift = 32;

// 2.6.23's weights: the nice table, and WEIGHT_IDLEPRIO 2 for SCHED_IDLE.
fair::LoadWeight load_weight(const Task& t) {
  if (t.policy == SchedPolicy::kIdle) return {2, 1ULL << 31};
  return fair::task_load_weight(t.policy, t.nice);
}

// The balancer of 2.6.31 (see cfs23.h), with 2.6.23's cpu_load[] and no cache-hot test.
balance::Rules balancer_rules() {
  balance::Rules r;
  r.round_up_rising = false;  // update_cpu_load() of 2.6.23 does not round
  r.migration_cost_ns = 0;
  return r;
}
}  // namespace

Cfs23::Cfs23(const Cfs23Params& p, std::vector<balance::DomainTemplate> levels)
    : p_(p), balancer_(balancer_rules(), std::move(levels)) {}

void Cfs23::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  // sched_init_granularity(): the defaults grow with the CPU count; latency and
  // min_granularity are capped at 100 ms; runtime_limit is the scaled latency.
  const int64_t factor = fair::tunable_factor(p_.sched_tunable_scaling, ctx.cpus());
  constexpr int64_t kLimit = 100'000'000;
  min_granularity_ = std::min(p_.sched_min_granularity_ns * factor, kLimit);
  latency_ = std::min(p_.sched_latency_ns * factor, kLimit);
  wakeup_granularity_ = p_.sched_wakeup_granularity_ns * factor;
  runtime_limit_ = p_.sched_runtime_limit_ns == 0 ? latency_ : p_.sched_runtime_limit_ns;
  q_.attach(ctx);
  balancer_.attach(ctx, q_);
}

// __update_curr(): the clock, the running task's wait_runtime, and the sleeper payback.
void Cfs23::update_curr(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask) return;
  Entity& curr = q_[rq.curr];
  const int64_t delta_exec = q_.charge(curr);
  if (delta_exec == 0 || rq.load.weight == 0) return;
  const int64_t delta_fair = calc_delta_mine(delta_exec, kNice0Load, rq.load);
  int64_t delta_mine = calc_delta_mine(delta_exec, curr.load.weight, rq.load);
  if (rq.sleeper_bonus > min_granularity_) {
    int64_t delta = std::min(delta_mine, rq.sleeper_bonus);
    delta = std::min(delta, runtime_limit_ - curr.wait_runtime);
    rq.sleeper_bonus -= delta;
    delta_mine -= delta;
  }
  rq.fair_clock += delta_fair;
  add_wait_runtime(curr, delta_mine - delta_exec);
}

// sched_granularity(): latency/nr - latency/nr^2, at least min_granularity.
int64_t Cfs23::sched_granularity(const RunQueue& rq) const {
  int64_t gran = latency_;
  const int64_t nr = rq.nr_running;
  if (nr > 1) gran = std::max(gran / nr - gran / nr / nr, min_granularity_);
  return gran;
}

int64_t Cfs23::niced_granularity(const Entity& curr, int64_t granularity) const {
  const int64_t w = curr.load.weight;
  if (w == kNice0Load) return granularity;
  if (w < kNice0Load) return (w * granularity) >> kNice0Shift;
  return static_cast<int64_t>((curr.load.inv_weight * static_cast<uint64_t>(granularity)) >>
                              (kWmultShift - kNice0Shift));
}

void Cfs23::add_wait_runtime(Entity& e, int64_t delta) const {
  e.wait_runtime = std::clamp(e.wait_runtime + delta, -runtime_limit_, runtime_limit_);
}

// update_stats_enqueue(): the key, fair_clock - wait_runtime in the task's weight.
void Cfs23::update_stats_enqueue(RunQueue& rq, Entity& e) {
  if (e.task->id != rq.curr) e.wait_start_fair = rq.fair_clock;
  int64_t key = rq.fair_clock;
  if (e.load.weight == kNice0Load) {
    key -= e.wait_runtime;
  } else {
    const auto inv = e.load.inv_weight;
    const int shift = kWmultShift - kNice0Shift;
    if (e.wait_runtime < 0)
      key += static_cast<int64_t>((static_cast<uint64_t>(-e.wait_runtime) * inv) >> shift);
    else
      key -= static_cast<int64_t>((static_cast<uint64_t>(e.wait_runtime) * inv) >> shift);
  }
  e.fair_key = key;
}

// update_stats_wait_end(): a waiting task is owed the fair_clock time it waited.
void Cfs23::update_stats_wait_end(RunQueue& rq, Entity& e) {
  if (e.wait_start_fair == 0) return;
  const auto waited = static_cast<uint64_t>(rq.fair_clock - e.wait_start_fair);
  auto delta_fair = static_cast<int64_t>(std::min<uint64_t>(2 * runtime_limit_, waited));
  if (e.load.weight != kNice0Load) delta_fair = (delta_fair * e.load.weight) >> kNice0Shift;
  add_wait_runtime(e, delta_fair);
  e.wait_start_fair = 0;
}

// enqueue_sleeper(): credit the fair_clock time slept, unless the queue already owes too
// much to sleepers; SCHED_BATCH gets none.
void Cfs23::enqueue_sleeper(CpuId cpu, Entity& e) {
  RunQueue& rq = q_.rq(cpu);
  if (e.task->policy == SchedPolicy::kBatch || !p_.FAIR_SLEEPERS) return;
  const auto slept = static_cast<uint64_t>(rq.fair_clock - e.sleep_start_fair);
  int64_t delta_fair = static_cast<int64_t>(std::min<uint64_t>(2 * runtime_limit_, slept));
  if (rq.sleeper_bonus <= runtime_limit_) {
    int64_t load = rq.load.weight;
    if (p_.SLEEPER_LOAD_AVG) load = balancer_.cpu_load(cpu, 2);
    if (p_.SLEEPER_AVG) delta_fair = delta_fair * load / (load + e.load.weight);
    if (e.load.weight != kNice0Load) delta_fair = (delta_fair * e.load.weight) >> kNice0Shift;
    const int64_t prev_runtime = e.wait_runtime;
    add_wait_runtime(e, delta_fair);
    rq.sleeper_bonus += e.wait_runtime - prev_runtime;
  }
  e.sleep_start_fair = 0;
}

void Cfs23::enqueue_entity(CpuId cpu, Entity& e, bool wakeup) {
  RunQueue& rq = q_.rq(cpu);
  update_curr(cpu);
  if (wakeup) enqueue_sleeper(cpu, e);
  update_stats_enqueue(rq, e);
  q_.account_enqueue(cpu, e);
  rq.timeline.insert(e.task->id, e.fair_key);  // the running task is in the tree too
}

void Cfs23::dequeue_entity(CpuId cpu, Entity& e, bool sleep) {
  RunQueue& rq = q_.rq(cpu);
  update_curr(cpu);
  if (e.task->id != rq.curr) update_stats_wait_end(rq, e);
  if (sleep) e.sleep_start_fair = rq.fair_clock;
  q_.account_dequeue(cpu, e);
  rq.timeline.erase(e.task->id);
}

// __check_preempt_curr_fair(): preempt when curr's key exceeds the other's by more than
// the granularity, which drops to zero once curr ran its ideal share.
void Cfs23::check_preempt_curr_fair(CpuId cpu, Entity& woken, Entity& curr, int64_t granularity) {
  const RunQueue& rq = q_.rq(cpu);
  const int64_t delta = curr.fair_key - woken.fair_key;
  const int64_t ideal_runtime = std::max(latency_ / std::max(1, rq.nr_running), min_granularity_);
  const int64_t delta_exec = curr.task->sum_exec_ns - curr.prev_sum_exec;
  if (delta_exec > ideal_runtime) granularity = 0;
  if (delta > niced_granularity(curr, granularity)) ctx_->resched(cpu);
}

// set_task_cpu(): the fair-clock stamps move to the new queue's clock.
void Cfs23::follow_frame(CpuId cpu, Entity& e) {
  if (e.frame_cpu == cpu) return;
  if (e.frame_cpu != kNoCpu) {
    const int64_t offset = q_.rq(e.frame_cpu).fair_clock - q_.rq(cpu).fair_clock;
    if (e.wait_start_fair) e.wait_start_fair -= offset;
    if (e.sleep_start_fair) e.sleep_start_fair -= offset;
  }
  e.frame_cpu = cpu;
}

// __sched_fork(): fresh statistics; the child starts from a copy of its parent's entity.
void Cfs23::task_new(Task& t, const Task* parent) {
  q_.grow(t.id);
  Entity& e = q_[t.id];
  const bool known = e.task != nullptr;  // back from another class: keep its wait_runtime
  e.task = &t;
  e.load = load_weight(t);
  e.charged_exec = t.sum_exec_ns;
  if (known) return;
  e.prev_sum_exec = t.sum_exec_ns;
  e.exec_start = 0;
  e.wait_runtime = e.wait_start_fair = e.sleep_start_fair = 0;
  if (parent && q_.known(parent->id)) e.frame_cpu = q_[parent->id].frame_cpu;
}

// task_new_fair(), for a process fork onto its running parent's CPU with child-runs-
// first: just left of the parent, with START_DEBIT's debt. False when it does not apply.
bool Cfs23::task_new_fair(CpuId cpu, Entity& e, TaskId parent) {
  RunQueue& rq = q_.rq(cpu);
  if (p_.forks_are_threads || !p_.sched_child_runs_first || !q_.known(parent)) return false;
  const Task& p = *q_[parent].task;
  if (!p.runnable || p.cpu != cpu || rq.curr != parent) return false;
  update_curr(cpu);
  update_stats_enqueue(rq, e);
  const Entity& curr = q_[rq.curr];
  const int64_t gran = sched_granularity(rq);
  e.fair_key = curr.fair_key - niced_granularity(curr, gran) - 1;
  if (p_.SKIP_INITIAL) e.wait_start_fair = 0;
  if (p_.START_DEBIT) e.wait_runtime = -(gran / 2);
  q_.account_enqueue(cpu, e);
  rq.timeline.insert(e.task->id, e.fair_key);
  return true;
}

void Cfs23::enqueue(CpuId cpu, Task& t, const EnqueueFlags& flags) {
  Entity& e = q_[t.id];
  e.load = load_weight(t);
  follow_frame(cpu, e);
  if (q_.rq(cpu).nr_running == 0) balancer_.sync_cpu_load(cpu);
  // wake_up_new_task() runs in the parent: the waker of a fork.
  if (flags.kind == EnqueueKind::kNew && task_new_fair(cpu, e, flags.wake.waker)) return;
  enqueue_entity(cpu, e, flags.kind == EnqueueKind::kWakeup);
}

void Cfs23::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  dequeue_entity(cpu, q_[t.id], how == DequeueKind::kSleep || how == DequeueKind::kExit);
  if (q_.rq(cpu).curr == t.id) q_.rq(cpu).curr = kNoTask;
}

Task* Cfs23::pick_next(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.nr_running == 0) return nullptr;
  const TaskId id = rq.timeline.leftmost();
  Entity& e = q_[id];
  update_stats_wait_end(rq, e);
  q_.start_running(cpu, e);
  return &ctx_->task(id);
}

// put_prev_entity(): the task keeps its place (its key is not refreshed) and waits.
void Cfs23::put_prev(CpuId cpu, Task& prev) {
  RunQueue& rq = q_.rq(cpu);
  update_curr(cpu);
  q_[prev.id].wait_start_fair = rq.fair_clock;
  rq.curr = kNoTask;
}

// entity_tick(): re-key the running task, then test it against the leftmost.
void Cfs23::task_tick(CpuId cpu, Task& curr_task) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr != curr_task.id) return;
  Entity& curr = q_[curr_task.id];
  dequeue_entity(cpu, curr, false);
  enqueue_entity(cpu, curr, false);
  const TaskId next = rq.timeline.leftmost();
  if (next == curr_task.id) return;
  check_preempt_curr_fair(cpu, q_[next], curr, sched_granularity(rq));
}

// check_preempt_curr_fair(): the wake-up granularity (SCHED_BATCH: its own, 25 ms).
void Cfs23::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo&) {
  if (q_.rq(cpu).curr != curr.id || &curr == &woken) return;
  const int64_t gran = woken.policy == SchedPolicy::kBatch ? p_.sched_batch_wakeup_granularity_ns
                                                           : wakeup_granularity_;
  check_preempt_curr_fair(cpu, q_[woken.id], q_[curr.id], gran);
}

// yield_task_fair(): re-key; with sched_compat_yield go right of the rightmost.
void Cfs23::yield(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = q_[rq.curr];
  if (!p_.sched_compat_yield) {
    dequeue_entity(cpu, e, false);
    enqueue_entity(cpu, e, false);
    return;
  }
  const TaskId rightmost = rq.timeline.rightmost();
  if (rightmost == rq.curr) return;
  e.fair_key = q_[rightmost].fair_key + 1;
  rq.timeline.erase(rq.curr);
  rq.timeline.insert(rq.curr, e.fair_key);
}

// ---------------------------------------------------------------- choosing a CPU

CpuId Cfs23::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  CpuId cpu = prev;
  switch (how.kind) {
    case WakeKind::kFork:  // sched_balance_self(SD_BALANCE_FORK): off by default
      cpu = balancer_.balance_fork(t, how.waker_cpu == kNoCpu ? prev : how.waker_cpu);
      break;
    case WakeKind::kWakeup:
      cpu = select_wake_cpu(t, prev, how.waker_cpu == kNoCpu ? prev : how.waker_cpu, how.sync,
                            how.waker);
      break;
    case WakeKind::kMigrate:  // set_cpus_allowed(): any allowed CPU
      cpu = static_cast<CpuId>(t.allowed.find_first());
      break;
  }
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed.find_first());
  return cpu;
}

// wake_idle(): a task waking on a CPU that is busy with just one task goes to an idle CPU
// of the SD_WAKE_IDLE domains around it, lowest number first.
CpuId Cfs23::wake_idle(CpuId cpu, const Task& p) const {
  if (!ctx_->curr(cpu) || q_.rq(cpu).nr_running > 1) return cpu;
  for (const balance::Domain& sd : balancer_.domains(cpu)) {
    if (!sd.has(balance::kSdWakeIdle)) break;
    const CpuMask candidates = sd.span & p.allowed;
    for (size_t i = candidates.find_first(); i < candidates.size(); i = candidates.find_next(i))
      if (!ctx_->curr(static_cast<CpuId>(i))) return static_cast<CpuId>(i);
  }
  return cpu;
}

// try_to_wake_up() of 2.6.23: wake-affine and passive balancing inline, then wake_idle.
CpuId Cfs23::select_wake_cpu(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker) {
  if (prev == this_cpu || !t.allowed_on(this_cpu)) return wake_idle(prev, t);
  const balance::Domain* this_sd = nullptr;
  for (const balance::Domain& sd : balancer_.domains(this_cpu))
    if (sd.span.test(static_cast<size_t>(prev))) {
      this_sd = &sd;
      break;
    }
  if (this_sd) {
    const int idx = this_sd->t.wake_idx;
    const auto imbalance = static_cast<uint64_t>(100 + (this_sd->t.imbalance_pct - 100) / 2);
    const auto load = static_cast<uint64_t>(balancer_.source_load(prev, idx));
    const auto this_load = static_cast<uint64_t>(balancer_.target_load(this_cpu, idx));
    if (this_sd->has(balance::kSdWakeAffine)) {
      auto tl = this_load;  // unsigned, as in the kernel
      const auto tl_per_task = static_cast<uint64_t>(balancer_.cpu_avg_load_per_task(this_cpu));
      const Task* current = waker == kNoTask  ? ctx_->curr(this_cpu)
                            : q_.known(waker) ? q_[waker].task
                                              : nullptr;
      if (sync && current && q_.known(current->id))
        tl -= static_cast<uint64_t>(q_[current->id].load.weight);
      const auto w = static_cast<uint64_t>(q_[t.id].load.weight);
      if ((tl <= load &&
           tl + static_cast<uint64_t>(balancer_.target_load(prev, idx)) <= tl_per_task) ||
          100 * (tl + w) <= imbalance * load)
        return wake_idle(this_cpu, t);
    }
    if (this_sd->has(balance::kSdWakeBalance) && imbalance * this_load <= 100 * load)
      return wake_idle(this_cpu, t);
  }
  return wake_idle(prev, t);
}

}  // namespace schedlab::cfs23
