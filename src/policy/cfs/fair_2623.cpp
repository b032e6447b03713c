// CFS as first merged, after kernel/sched_fair.c and the wake-up path of kernel/sched.c
// of 2.6.23.17. A different algorithm from 2.6.24 on: each run queue keeps a fair_clock
// that advances at 1/load of real time; each task a wait_runtime, the CPU time it is
// owed, clamped to +-runtime_limit. A task's key is fair_clock - wait_runtime (scaled by
// its weight), and the running task stays in the tree, re-keyed at every tick.
//
// Sleepers are credited the fair_clock time they slept (capped), paid back from the
// running task through sleeper_bonus. Forks made with CLONE_VM (threads, as rt-app's and
// x264's) are queued like any activation; only process forks go through task_new_fair,
// where child-runs-first and START_DEBIT act (forks_are_threads selects the model).
#include <algorithm>

#include "policy/cfs/cfs.h"

namespace schedlab::cfs {

namespace {
constexpr int kNice0Shift = 10, kWmultShift = 32;
}  // namespace

// __update_curr(): the clock, the running task's wait_runtime, and the sleeper payback.
void Cfs::update_curr_23(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask) return;
  Entity& curr = se_[rq.curr];
  const int64_t delta_exec = curr.task->sum_exec_ns - curr.charged_exec;
  if (delta_exec <= 0) return;
  curr.charged_exec = curr.task->sum_exec_ns;
  curr.exec_start = ctx_->now();
  if (rq.load.weight == 0) return;
  const int64_t delta_fair = calc_delta_mine(delta_exec, kNice0Load, rq.load);
  int64_t delta_mine = calc_delta_mine(delta_exec, curr.load.weight, rq.load);
  if (rq.sleeper_bonus > tun_.min_granularity) {
    int64_t delta = std::min(delta_mine, rq.sleeper_bonus);
    delta = std::min(delta, tun_.runtime_limit - curr.wait_runtime);
    rq.sleeper_bonus -= delta;
    delta_mine -= delta;
  }
  rq.fair_clock += delta_fair;
  add_wait_runtime_23(curr, delta_mine - delta_exec);
}

// sched_granularity(): latency/nr - latency/nr^2, at least min_granularity.
int64_t Cfs::sched_granularity_23(const RunQueue& rq) const {
  int64_t gran = tun_.latency;
  const int64_t nr = rq.nr_running;
  if (nr > 1) gran = std::max(gran / nr - gran / nr / nr, tun_.min_granularity);
  return gran;
}

int64_t Cfs::niced_granularity_23(const Entity& curr, int64_t granularity) const {
  const int64_t w = curr.load.weight;
  if (w == kNice0Load) return granularity;
  if (w < kNice0Load) return (w * granularity) >> kNice0Shift;
  return static_cast<int64_t>((curr.load.inv_weight * static_cast<uint64_t>(granularity)) >>
                              (kWmultShift - kNice0Shift));
}

void Cfs::add_wait_runtime_23(Entity& e, int64_t delta) const {
  e.wait_runtime = std::clamp(e.wait_runtime + delta, -tun_.runtime_limit, tun_.runtime_limit);
}

// update_stats_enqueue(): the key, fair_clock - wait_runtime in the task's weight.
void Cfs::update_stats_enqueue_23(RunQueue& rq, Entity& e) {
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
void Cfs::update_stats_wait_end_23(RunQueue& rq, Entity& e) {
  if (e.wait_start_fair == 0) return;
  const auto waited = static_cast<uint64_t>(rq.fair_clock - e.wait_start_fair);
  auto delta_fair = static_cast<int64_t>(std::min<uint64_t>(2 * tun_.runtime_limit, waited));
  if (e.load.weight != kNice0Load) delta_fair = (delta_fair * e.load.weight) >> kNice0Shift;
  add_wait_runtime_23(e, delta_fair);
  e.wait_start_fair = 0;
}

// enqueue_sleeper(): credit the fair_clock time slept, unless the queue already owes too
// much to sleepers; SCHED_BATCH gets none.
void Cfs::enqueue_sleeper_23(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  if (e.task->policy == SchedPolicy::kBatch || !cfg_.feat.fair_sleepers) return;
  const auto slept = static_cast<uint64_t>(rq.fair_clock - e.sleep_start_fair);
  int64_t delta_fair = static_cast<int64_t>(std::min<uint64_t>(2 * tun_.runtime_limit, slept));
  if (rq.sleeper_bonus <= tun_.runtime_limit) {
    int64_t load = rq.load.weight;
    if (cfg_.feat.sleeper_load_avg) {
      sync_cpu_load(cpu);
      load = rq.cpu_load[2];
    }
    if (cfg_.feat.sleeper_avg) delta_fair = delta_fair * load / (load + e.load.weight);
    if (e.load.weight != kNice0Load) delta_fair = (delta_fair * e.load.weight) >> kNice0Shift;
    const int64_t prev_runtime = e.wait_runtime;
    add_wait_runtime_23(e, delta_fair);
    rq.sleeper_bonus += e.wait_runtime - prev_runtime;
  }
  e.sleep_start_fair = 0;
}

void Cfs::enqueue_entity_23(CpuId cpu, Entity& e, bool wakeup) {
  RunQueue& rq = rq_[cpu];
  update_curr_23(cpu);
  if (wakeup) enqueue_sleeper_23(cpu, e);
  update_stats_enqueue_23(rq, e);
  account_enqueue(cpu, e);
  rq.timeline.insert(e.task->id, e.fair_key);  // the running task is in the tree too
}

void Cfs::dequeue_entity_23(CpuId cpu, Entity& e, bool sleep) {
  RunQueue& rq = rq_[cpu];
  update_curr_23(cpu);
  if (e.task->id != rq.curr) update_stats_wait_end_23(rq, e);
  if (sleep) e.sleep_start_fair = rq.fair_clock;
  account_dequeue(cpu, e);
  rq.timeline.erase(e.task->id);
}

// __check_preempt_curr_fair(): preempt when curr's key exceeds the other's by more than
// the granularity, which drops to zero once curr ran its ideal share.
void Cfs::check_preempt_curr_fair_23(CpuId cpu, Entity& woken, Entity& curr, int64_t granularity) {
  const RunQueue& rq = rq_[cpu];
  const int64_t delta = curr.fair_key - woken.fair_key;
  const int64_t ideal_runtime =
      std::max(tun_.latency / std::max(1, rq.nr_running), tun_.min_granularity);
  const int64_t delta_exec = curr.task->sum_exec_ns - curr.prev_sum_exec;
  if (delta_exec > ideal_runtime) granularity = 0;
  if (delta > niced_granularity_23(curr, granularity)) ctx_->resched(cpu);
}

// set_task_cpu(): the fair-clock stamps move to the new queue's clock.
void Cfs::follow_frame_23(CpuId cpu, Entity& e) {
  if (e.frame_cpu == cpu) return;
  if (e.frame_cpu != kNoCpu) {
    const int64_t offset = rq_[e.frame_cpu].fair_clock - rq_[cpu].fair_clock;
    if (e.wait_start_fair) e.wait_start_fair -= offset;
    if (e.sleep_start_fair) e.sleep_start_fair -= offset;
  }
  e.frame_cpu = cpu;
}

void Cfs::enqueue_23(CpuId cpu, Task& t, EnqueueKind how) {
  Entity& e = se_[t.id];
  e.load = t.policy == SchedPolicy::kIdle ? LoadWeight{2, 1ULL << 31}  // WEIGHT_IDLEPRIO
                                          : task_load_weight(t.policy, t.nice);
  follow_frame_23(cpu, e);
  RunQueue& rq = rq_[cpu];
  if (rq.nr_running == 0) sync_cpu_load(cpu);
  if (how == EnqueueKind::kNew) {
    const TaskId parent = e.parent;
    e.parent = kNoTask;
    const bool task_new = !tun_.forks_are_threads && tun_.child_runs_first && parent != kNoTask &&
                          se_[parent].task->runnable && se_[parent].task->cpu == cpu &&
                          rq.curr == parent;
    if (task_new) {  // task_new_fair(): just left of the parent, with START_DEBIT's debt
      update_curr_23(cpu);
      update_stats_enqueue_23(rq, e);
      const Entity& curr = se_[rq.curr];
      const int64_t gran = sched_granularity_23(rq);
      e.fair_key = curr.fair_key - niced_granularity_23(curr, gran) - 1;
      if (cfg_.feat.skip_initial) e.wait_start_fair = 0;
      if (cfg_.feat.start_debit) e.wait_runtime = -(gran / 2);
      account_enqueue(cpu, e);
      rq.timeline.insert(t.id, e.fair_key);
      return;
    }
  }
  enqueue_entity_23(cpu, e, how == EnqueueKind::kWakeup);
}

void Cfs::dequeue_23(CpuId cpu, Task& t, DequeueKind how) {
  dequeue_entity_23(cpu, se_[t.id], how == DequeueKind::kSleep || how == DequeueKind::kExit);
  if (rq_[cpu].curr == t.id) rq_[cpu].curr = kNoTask;
}

Task* Cfs::pick_next_23(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.nr_running == 0) return nullptr;
  const TaskId id = rq.timeline.leftmost();
  Entity& e = se_[id];
  update_stats_wait_end_23(rq, e);
  e.exec_start = ctx_->now();
  rq.curr = id;
  e.prev_sum_exec = e.task->sum_exec_ns;
  e.charged_exec = e.task->sum_exec_ns;
  return e.task;
}

// put_prev_entity(): the task keeps its place (its key is not refreshed) and waits.
void Cfs::put_prev_23(CpuId cpu, Task& prev) {
  RunQueue& rq = rq_[cpu];
  update_curr_23(cpu);
  se_[prev.id].wait_start_fair = rq.fair_clock;
  rq.curr = kNoTask;
}

// entity_tick(): re-key the running task, then test it against the leftmost.
void Cfs::task_tick_23(CpuId cpu, Task& curr_task) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr != curr_task.id) return;
  Entity& curr = se_[curr_task.id];
  dequeue_entity_23(cpu, curr, false);
  enqueue_entity_23(cpu, curr, false);
  const TaskId next = rq.timeline.leftmost();
  if (next == curr_task.id) return;
  check_preempt_curr_fair_23(cpu, se_[next], curr, sched_granularity_23(rq));
}

// check_preempt_curr_fair(): the wake-up granularity (SCHED_BATCH: its own, 25 ms).
void Cfs::check_preempt_23(CpuId cpu, Task& curr, Task& woken) {
  const int64_t gran =
      woken.policy == SchedPolicy::kBatch ? tun_.batch_wakeup_granularity : tun_.wakeup_granularity;
  check_preempt_curr_fair_23(cpu, se_[woken.id], se_[curr.id], gran);
}

// yield_task_fair(): re-key; with sched_compat_yield go right of the rightmost.
void Cfs::yield_23(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = se_[rq.curr];
  if (!tun_.compat_yield) {
    dequeue_entity_23(cpu, e, false);
    enqueue_entity_23(cpu, e, false);
    return;
  }
  const TaskId rightmost = rq.timeline.rightmost();
  if (rightmost == rq.curr) return;
  e.fair_key = se_[rightmost].fair_key + 1;
  rq.timeline.erase(rq.curr);
  rq.timeline.insert(rq.curr, e.fair_key);
}

// wake_idle(): a task waking on a CPU that is busy with just one task goes to an idle CPU
// of the SD_WAKE_IDLE domains around it, lowest number first.
CpuId Cfs::wake_idle_23(CpuId cpu, const Task& p) const {
  if (!ctx_->curr(cpu) || rq_[cpu].nr_running > 1) return cpu;
  for (const Domain& sd : rq_[cpu].domains) {
    if (!sd.has(kSdWakeIdle)) break;
    const CpuMask candidates = sd.span & p.allowed;
    for (size_t i = candidates._Find_first(); i < candidates.size(); i = candidates._Find_next(i))
      if (!ctx_->curr(static_cast<CpuId>(i))) return static_cast<CpuId>(i);
  }
  return cpu;
}

// try_to_wake_up() of 2.6.23: wake-affine and passive balancing inline, then wake_idle.
CpuId Cfs::select_wake_cpu_2623(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker) {
  if (prev == this_cpu || !t.allowed_on(this_cpu)) return wake_idle_23(prev, t);
  const Domain* this_sd = nullptr;
  for (const Domain& sd : rq_[this_cpu].domains)
    if (sd.span.test(static_cast<size_t>(prev))) {
      this_sd = &sd;
      break;
    }
  if (this_sd) {
    const int idx = this_sd->t.wake_idx;
    const auto imbalance = static_cast<uint64_t>(100 + (this_sd->t.imbalance_pct - 100) / 2);
    const auto load = static_cast<uint64_t>(source_load(prev, idx));
    const auto this_load = static_cast<uint64_t>(target_load(this_cpu, idx));
    if (this_sd->has(kSdWakeAffine)) {
      auto tl = this_load;  // unsigned, as in the kernel
      const auto tl_per_task = static_cast<uint64_t>(cpu_avg_load_per_task(this_cpu));
      const Task* current = waker != kNoTask ? se_[waker].task : ctx_->curr(this_cpu);
      if (sync && current && static_cast<size_t>(current->id) < se_.size() && se_[current->id].task)
        tl -= static_cast<uint64_t>(se_[current->id].load.weight);
      const auto w = static_cast<uint64_t>(se_[t.id].load.weight);
      if ((tl <= load && tl + static_cast<uint64_t>(target_load(prev, idx)) <= tl_per_task) ||
          100 * (tl + w) <= imbalance * load)
        return wake_idle_23(this_cpu, t);
    }
    if (this_sd->has(kSdWakeBalance) && imbalance * this_load <= 100 * load)
      return wake_idle_23(this_cpu, t);
  }
  return wake_idle_23(prev, t);
}

}  // namespace schedlab::cfs
