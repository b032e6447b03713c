// CFS of 2.6.31 and 2.6.32: the fair class proper, after kernel/sched_fair.c of 2.6.31.14
// and 2.6.32.2, and of v2.6.32-rc5 for -tip (plus the hooks of kernel/sched.c that feed it:
// enqueue_task/dequeue_task's averages, try_to_wake_up's avg_wakeup, put_prev_task's
// avg_overlap/avg_running, wake_up_new_task). Functions carry the kernel's names so the two read
// side by side.
#include "policy/cfs/cfs.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

namespace schedlab::cfs {

using fair::calc_delta_fair;
using fair::calc_delta_mine;
using fair::update_avg;

namespace {
balance::Rules balancer_rules(const CfsParams& p, const Cfs::Release& release) {
  balance::Rules r = release.balance;
  r.lb_bias = p.LB_BIAS;
  r.nr_migrate = p.sched_nr_migrate;
  r.migration_cost_ns = p.sched_migration_cost_ns;
  return r;
}
}  // namespace

Cfs::Cfs(const CfsParams& p, const Release& release, std::vector<balance::DomainTemplate> levels)
    : p_(p), rel_(release), balancer_(balancer_rules(p, release), std::move(levels)) {}

void Cfs::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  // sched_init_granularity(): the defaults grow with the CPU count; latency and
  // min_granularity are capped at 200 ms.
  const int64_t factor = fair::tunable_factor(p_.sched_tunable_scaling, ctx.cpus());
  constexpr int64_t kLimit = 200'000'000;
  min_granularity_ = std::min(p_.sched_min_granularity_ns * factor, kLimit);
  latency_ = std::min(p_.sched_latency_ns * factor, kLimit);
  wakeup_granularity_ = p_.sched_wakeup_granularity_ns * factor;
  // sched_nr_latency as the sysctl handler keeps it: latency / min_granularity, rounded up.
  nr_latency_ = std::max<int64_t>(
      1, (latency_ + min_granularity_ - 1) / std::max<int64_t>(1, min_granularity_));
  q_.attach(ctx);
  q_.set_cache_hot(p_.CACHE_HOT_BUDDY, p_.sched_migration_cost_ns);
  balancer_.attach(ctx, q_);
}

// ---------------------------------------------------------------- time and vruntime

// The queues' loads and counts, and each timeline's leftmost key (which update_min_vruntime
// reads in place of the entity's vruntime) equal to that entity's vruntime.
std::string Cfs::check_invariants() const {
  std::string broken = q_.check_load();
  for (CpuId cpu = 0; broken.empty() && cpu < q_.cpus(); ++cpu) {
    const fair::Timeline& timeline = q_.rq(cpu).timeline;
    if (!timeline.empty() && timeline.leftmost_vruntime() != q_[timeline.leftmost()].vruntime)
      broken = fmt::format("cfs: CPU {}'s timeline keys its leftmost at {}, whose vruntime is {}",
                           cpu, timeline.leftmost_vruntime(), q_[timeline.leftmost()].vruntime);
  }
  return broken;
}

void Cfs::update_min_vruntime(RunQueue& rq) {
  int64_t v = rq.min_vruntime;
  if (rq.curr != kNoTask) v = q_[rq.curr].vruntime;
  if (!rq.timeline.empty()) {
    const int64_t left = rq.timeline.leftmost_vruntime();
    v = rq.curr == kNoTask ? left : std::min(v, left);
  }
  rq.min_vruntime = std::max(rq.min_vruntime, v);
}

// update_curr(): charge the running entity's new CPU time as weighted virtual time.
void Cfs::update_curr(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask) return;
  Entity& e = q_[rq.curr];
  const int64_t delta = q_.charge(e);
  if (delta == 0) return;
  e.vruntime += calc_delta_fair(delta, e.load);
  update_min_vruntime(rq);
}

// __sched_period(): the latency target, stretched when more than nr_latency tasks share it.
int64_t Cfs::sched_period(int64_t nr_running) const {
  return nr_running > nr_latency_ ? min_granularity_ * nr_running : latency_;
}

// sched_slice(): the entity's weighted share of the period, counting it if not yet queued.
int64_t Cfs::sched_slice(const RunQueue& rq, const Entity& e) const {
  const int64_t period = sched_period(rq.nr_running + (e.on_rq ? 0 : 1));
  fair::LoadWeight load = rq.load;
  if (!e.on_rq) load = fair::LoadWeight{rq.load.weight + e.load.weight, 0};
  return calc_delta_mine(period, e.load.weight, load);
}

int64_t Cfs::sched_vslice(const RunQueue& rq, const Entity& e) const {
  return calc_delta_fair(sched_slice(rq, e), e.load);
}

// set_task_cpu()'s renormalisation: vruntime keeps its distance to min_vruntime when the
// entity changes run queue.
void Cfs::follow_frame(CpuId cpu, Entity& e) {
  if (e.frame_cpu == cpu) return;
  const int64_t from = e.frame_cpu == kNoCpu ? 0 : q_.rq(e.frame_cpu).min_vruntime;
  e.vruntime += q_.rq(cpu).min_vruntime - from;
  e.frame_cpu = cpu;
}

// place_entity(): a new task starts one virtual slice after min_vruntime (START_DEBIT);
// a waking task gets up to one latency of sleeper credit (GENTLE_FAIR_SLEEPERS: half).
void Cfs::place_entity(RunQueue& rq, Entity& e, bool initial) {
  int64_t v = rq.min_vruntime;
  if (initial && p_.START_DEBIT) v += sched_vslice(rq, e);
  if (!initial && (p_.NEW_FAIR_SLEEPERS || p_.FAIR_SLEEPERS)) {  // 2.6.31 names it NEW_
    int64_t thresh = latency_;
    if (p_.NORMALIZED_SLEEPER && e.task->policy != SchedPolicy::kIdle)
      thresh = calc_delta_fair(thresh, e.load);
    if (p_.GENTLE_FAIR_SLEEPERS) thresh >>= 1;
    v -= thresh;
  }
  // Never gain time by being placed backwards (2.6.31: only for wake-ups).
  if (!initial || rel_.new_never_backwards) v = std::max(e.vruntime, v);
  e.vruntime = v;
}

// __sched_fork(): fresh statistics; the child starts from a copy of its parent's entity.
void Cfs::task_new(Task& t, const Task* parent) {
  q_.grow(t.id);
  Entity& e = q_[t.id];
  const bool known = e.task != nullptr;  // back from another class: keep its vruntime
  e.task = &t;
  e.load = fair::task_load_weight(t.policy, t.nice);
  e.charged_exec = t.sum_exec_ns;
  if (known) return;
  e.prev_sum_exec = t.sum_exec_ns;
  e.exec_start = 0;
  e.last_wakeup = e.start_runtime = 0;
  e.avg_overlap = e.avg_running = 0;
  e.avg_wakeup = wakeup_granularity_;
  if (parent && q_.known(parent->id)) {
    e.vruntime = q_[parent->id].vruntime;  // dup_task_struct copies the parent's entity
    e.frame_cpu = q_[parent->id].frame_cpu;
  }
}

// wake_up_new_task() and task_new_fair(): where a forked child enters the timeline.
void Cfs::task_new_fair(CpuId cpu, Entity& child, CpuId parent_cpu) {
  RunQueue& rq = q_.rq(cpu);
  update_curr(cpu);
  if (rel_.fork_from_curr && rq.curr != kNoTask) child.vruntime = q_[rq.curr].vruntime;
  place_entity(rq, child, true);
  if (p_.sched_child_runs_first && parent_cpu == cpu && rq.curr != kNoTask &&
      q_[rq.curr].vruntime < child.vruntime) {
    // The child takes the parent's place in the timeline and the parent yields to it.
    std::swap(q_[rq.curr].vruntime, child.vruntime);
    ctx_->resched(cpu);
  }
}

// ---------------------------------------------------------------- queueing

void Cfs::enqueue_entity(CpuId cpu, Entity& e) {
  q_.account_enqueue(cpu, e);
  if (e.task->id != q_.rq(cpu).curr) q_.rq(cpu).timeline.insert(e.task->id, e.vruntime);
}

void Cfs::dequeue_entity(CpuId cpu, Entity& e) {
  RunQueue& rq = q_.rq(cpu);
  const TaskId id = e.task->id;
  q_.clear_buddies(rq, id);
  q_.account_dequeue(cpu, e);
  if (id != rq.curr) rq.timeline.erase(id);
  update_min_vruntime(rq);
}

void Cfs::enqueue(CpuId cpu, Task& t, const EnqueueFlags& flags) {
  Entity& e = q_[t.id];
  e.load = fair::task_load_weight(t.policy, t.nice);
  follow_frame(cpu, e);
  update_curr(cpu);
  RunQueue& rq = q_.rq(cpu);
  if (rq.nr_running == 0) balancer_.sync_cpu_load(cpu);  // an idle CPU's averages catch up
  switch (flags.kind) {
    case EnqueueKind::kNew: {
      const TaskId parent = flags.wake.waker;  // wake_up_new_task() runs in the parent
      if (!q_.known(parent)) {
        // A task of the scenario: as if forked by a launcher that is not on this CPU.
        e.vruntime = rq.min_vruntime;
        place_entity(rq, e, true);
      } else {
        const Task& p = *q_[parent].task;
        if (p.runnable && (!rel_.fork_needs_fair_curr || rq.curr != kNoTask))
          task_new_fair(cpu, e, p.cpu);
      }
      break;
    }
    case EnqueueKind::kWakeup:
      e.start_runtime = t.sum_exec_ns;
      place_entity(rq, e, false);
      balancer_.note_wakeup(cpu);
      break;
    case EnqueueKind::kMigrate:
    case EnqueueKind::kRequeue:
      break;
  }
  enqueue_entity(cpu, e);
}

void Cfs::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  Entity& e = q_[t.id];
  RunQueue& rq = q_.rq(cpu);
  update_curr(cpu);
  if (how == DequeueKind::kSleep || how == DequeueKind::kExit) {
    // dequeue_task(): the overlap with the task it last woke, else a wake-up-free run.
    if (e.last_wakeup != 0) {
      update_avg(e.avg_overlap, t.sum_exec_ns - e.last_wakeup);
      e.last_wakeup = 0;
    } else {
      update_avg(e.avg_wakeup, wakeup_granularity_);
    }
    if (rq.curr == t.id) {  // 2.6.32's put_prev_task() of a task going to sleep
      update_avg(e.avg_running, t.sum_exec_ns - e.prev_sum_exec);
      update_avg(e.avg_running, 0);
    }
  }
  dequeue_entity(cpu, e);
  if (rq.curr == t.id) rq.curr = kNoTask;
}

// ---------------------------------------------------------------- picking

void Cfs::set_next_entity(CpuId cpu, TaskId id) {
  Entity& e = q_[id];
  if (e.on_rq) q_.rq(cpu).timeline.erase(id);
  q_.start_running(cpu, e);
}

// pick_next_entity(): the leftmost, unless a buddy is not too far right of it.
TaskId Cfs::pick_next_entity(RunQueue& rq) {
  const TaskId left = rq.timeline.leftmost();
  const Entity& l = q_[left];
  auto acceptable = [&](TaskId buddy) {
    return buddy != kNoTask && wakeup_preempt_entity(q_[buddy], l, rq) < 1;
  };
  if (rel_.clear_examined_buddies) {  // 92f6a5e3: each buddy is examined once
    for (TaskId* buddy : {&rq.next, &rq.last}) {
      const TaskId b = std::exchange(*buddy, kNoTask);
      if (acceptable(b)) return b;
    }
    return left;
  }
  TaskId chosen = left;
  if (rel_.last_buddy_first) {
    if (acceptable(rq.next)) chosen = rq.next;
    if (acceptable(rq.last)) chosen = rq.last;
  } else if (acceptable(rq.next)) {
    chosen = rq.next;
  } else if (acceptable(rq.last)) {
    chosen = rq.last;
  }
  q_.clear_buddies(rq, chosen);
  return chosen;
}

Task* Cfs::pick_next(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.nr_running == 0) return nullptr;
  const TaskId id = pick_next_entity(rq);
  set_next_entity(cpu, id);
  return &ctx_->task(id);
}

// put_prev_task() and put_prev_entity(): a preempted task goes back into the timeline.
void Cfs::put_prev(CpuId cpu, Task& prev) {
  RunQueue& rq = q_.rq(cpu);
  Entity& e = q_[prev.id];
  update_curr(cpu);
  const int64_t runtime = prev.sum_exec_ns - e.prev_sum_exec;
  update_avg(e.avg_running, runtime);
  // avg_overlap grows on preemption too, by the run capped at twice the migration cost.
  update_avg(e.avg_overlap, std::min(runtime, 2 * p_.sched_migration_cost_ns));
  rq.curr = kNoTask;
  rq.timeline.insert(prev.id, e.vruntime);
}

// ---------------------------------------------------------------- preemption

int64_t Cfs::wakeup_gran(const Entity& curr, const Entity& woken, const RunQueue& rq) const {
  int64_t gran = wakeup_granularity_;
  if (rq.curr != kNoTask && p_.ADAPTIVE_GRAN) {
    // adaptive_gran(): a task that wakes others often need not wait the full granularity.
    const int64_t this_run = curr.task->sum_exec_ns - curr.prev_sum_exec;
    const int64_t expected_wakeup = 2 * woken.avg_wakeup * rq.nr_running;
    gran = std::min(std::max<int64_t>(expected_wakeup - this_run, 0), wakeup_granularity_);
  }
  // In virtual time, with the woken entity's weight (ASYM_GRAN) or the current's.
  const Entity& by = p_.ASYM_GRAN ? woken : curr;
  return calc_delta_fair(gran, by.load);
}

// wakeup_preempt_entity(): 1 if `woken` is more than a granularity left of `curr`,
// 0 if left but within it, -1 if not left.
int Cfs::wakeup_preempt_entity(const Entity& curr, const Entity& woken, const RunQueue& rq) const {
  const int64_t vdiff = curr.vruntime - woken.vruntime;
  if (vdiff <= 0) return -1;
  return vdiff > wakeup_gran(curr, woken, rq) ? 1 : 0;
}

// Both run briefly between wake-ups (WAKEUP_OVERLAP's test).
bool Cfs::overlapping(const Entity& a, const Entity& b) const {
  const int64_t mc = p_.sched_migration_cost_ns;
  return a.avg_overlap < mc && b.avg_overlap < mc;
}

// What both releases test before their own rules: a pending reschedule decides nothing
// more; BATCH and IDLE tasks never preempt on wake-up; an IDLE task is always preempted.
bool Cfs::wakeup_may_preempt(CpuId cpu, const Task& curr, const Task& woken) {
  if (ctx_->resched_pending(cpu)) return false;
  if (woken.policy != SchedPolicy::kOther) return false;
  if (curr.policy == SchedPolicy::kIdle) {
    ctx_->resched(cpu);
    return false;
  }
  return true;
}

void Cfs::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) {
  if (q_.rq(cpu).curr != curr.id || &curr == &woken) return;
  (this->*rel_.check_preempt_wakeup)(cpu, curr, woken, how);
}

// 2.6.31: both buddies are marked first; WAKEUP_OVERLAP counts a sync wake-up too.
void Cfs::check_preempt_wakeup_2631(CpuId cpu, Task& curr_task, Task& woken_task,
                                    const WakeInfo& how) {
  RunQueue& rq = q_.rq(cpu);
  Entity& curr = q_[curr_task.id];
  Entity& woken = q_[woken_task.id];
  update_curr(cpu);
  const bool sync = how.kind == WakeKind::kWakeup && how.sync && p_.SYNC_WAKEUPS;
  if (p_.LAST_BUDDY && curr.on_rq && curr_task.policy != SchedPolicy::kIdle) rq.last = curr_task.id;
  if (woken_task.policy != SchedPolicy::kIdle) rq.next = woken_task.id;
  if (!wakeup_may_preempt(cpu, curr_task, woken_task) || !p_.WAKEUP_PREEMPT) return;
  if (p_.WAKEUP_OVERLAP && (sync || overlapping(curr, woken))) {
    ctx_->resched(cpu);
    return;
  }
  if (wakeup_preempt_entity(curr, woken, rq) == 1) ctx_->resched(cpu);
}

// 2.6.32: the next buddy only with NEXT_BUDDY on a loaded queue; WAKEUP_SYNC and
// WAKEUP_RUNNING; the last buddy only when a wake-up really preempts a loaded queue.
void Cfs::check_preempt_wakeup_2632(CpuId cpu, Task& curr_task, Task& woken_task,
                                    const WakeInfo& how) {
  RunQueue& rq = q_.rq(cpu);
  Entity& curr = q_[curr_task.id];
  Entity& woken = q_[woken_task.id];
  const bool scale = rq.nr_running >= nr_latency_;
  update_curr(cpu);
  const bool sync = how.kind == WakeKind::kWakeup && how.sync && p_.SYNC_WAKEUPS;
  const bool not_idle_curr = curr_task.policy != SchedPolicy::kIdle;
  const bool not_idle_woken = woken_task.policy != SchedPolicy::kIdle;
  if (p_.NEXT_BUDDY && scale && how.kind != WakeKind::kFork && not_idle_woken)
    rq.next = woken_task.id;
  if (!wakeup_may_preempt(cpu, curr_task, woken_task)) return;
  if (forced_preemption(cpu, curr_task, woken_task, sync)) return;
  if (!p_.WAKEUP_PREEMPT) return;
  if (wakeup_preempt_entity(curr, woken, rq) == 1) {
    ctx_->resched(cpu);
    // The preempted task is the last buddy, so the CPU can come back to it.
    if (curr.on_rq && p_.LAST_BUDDY && scale && not_idle_curr) rq.last = curr_task.id;
  }
}

// -tip of 14-22 October 2009 (v2.6.32-rc5's code): both buddies are marked before any
// test, the last on every wake-up, the next with NEXT_BUDDY unless a fork; then
// 2.6.32's tests, WAKEUP_RUNNING included.
void Cfs::check_preempt_wakeup_tip(CpuId cpu, Task& curr_task, Task& woken_task,
                                   const WakeInfo& how) {
  RunQueue& rq = q_.rq(cpu);
  Entity& curr = q_[curr_task.id];
  Entity& woken = q_[woken_task.id];
  update_curr(cpu);
  const bool sync = how.kind == WakeKind::kWakeup && how.sync && p_.SYNC_WAKEUPS;
  const bool not_idle_woken = woken_task.policy != SchedPolicy::kIdle;
  // set_last_buddy() and set_next_buddy() pass over SCHED_IDLE tasks.
  if (p_.LAST_BUDDY && curr.on_rq && curr_task.policy != SchedPolicy::kIdle) rq.last = curr_task.id;
  if (p_.NEXT_BUDDY && how.kind != WakeKind::kFork && not_idle_woken) rq.next = woken_task.id;
  if (!wakeup_may_preempt(cpu, curr_task, woken_task)) return;
  if (forced_preemption(cpu, curr_task, woken_task, sync)) return;
  if (!p_.WAKEUP_PREEMPT) return;
  if (wakeup_preempt_entity(curr, woken, rq) == 1) ctx_->resched(cpu);
}

// The tests 2.6.32 and -tip make before wakeup_preempt_entity(): a sync wake-up
// (WAKEUP_SYNC), two briefly overlapping tasks (WAKEUP_OVERLAP), a woken task with
// shorter runs (WAKEUP_RUNNING, which also makes it the next buddy). True when one
// preempted.
bool Cfs::forced_preemption(CpuId cpu, Task& curr_task, Task& woken_task, bool sync) {
  const Entity& curr = q_[curr_task.id];
  const Entity& woken = q_[woken_task.id];
  if ((p_.WAKEUP_SYNC && sync) || (p_.WAKEUP_OVERLAP && overlapping(curr, woken))) {
    ctx_->resched(cpu);
    return true;
  }
  if (p_.WAKEUP_RUNNING && woken.avg_running < curr.avg_running) {
    if (woken_task.policy != SchedPolicy::kIdle) q_.rq(cpu).next = woken_task.id;
    ctx_->resched(cpu);
    return true;
  }
  return false;
}

// check_preempt_tick(): the slice is over (2.6.32 also: the task ran at least
// min_granularity and is more than a slice's worth of vruntime right of the leftmost).
void Cfs::check_preempt_tick(CpuId cpu, Entity& curr) {
  RunQueue& rq = q_.rq(cpu);
  const int64_t ideal_runtime = sched_slice(rq, curr);
  const int64_t delta_exec = curr.task->sum_exec_ns - curr.prev_sum_exec;
  if (delta_exec > ideal_runtime) {
    ctx_->resched(cpu);
    q_.clear_buddies(rq, curr.task->id);  // no buddy favour for a task that used its slice
    return;
  }
  if (!rel_.tick_spread_test || !p_.WAKEUP_PREEMPT) return;
  if (delta_exec < min_granularity_) return;
  if (rq.nr_running > 1) {
    const int64_t delta = curr.vruntime - rq.timeline.leftmost_vruntime();
    if (delta > ideal_runtime) ctx_->resched(cpu);
  }
}

void Cfs::task_tick(CpuId cpu, Task& curr) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr != curr.id) return;
  update_curr(cpu);
  if (rq.nr_running > 1 || !p_.WAKEUP_PREEMPT) check_preempt_tick(cpu, q_[curr.id]);
}

// yield_task_fair(): by default only an update, so the task goes back at its vruntime;
// with sched_compat_yield (or for SCHED_BATCH) it moves to the right end of the timeline.
void Cfs::yield(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = q_[rq.curr];
  q_.clear_buddies(rq, rq.curr);
  if (!p_.sched_compat_yield && e.task->policy != SchedPolicy::kBatch) {
    update_curr(cpu);
    return;
  }
  const TaskId rightmost = rq.timeline.rightmost();
  if (rightmost == kNoTask || q_[rightmost].vruntime < e.vruntime) return;
  e.vruntime = q_[rightmost].vruntime + 1;
}

// ---------------------------------------------------------------- choosing a CPU

// try_to_wake_up()'s sample of the waker: its run time between the wake-ups it does.
void Cfs::record_wakeup_by(TaskId waker) {
  if (!q_.known(waker)) return;
  Entity& w = q_[waker];
  const int64_t sum = w.task->sum_exec_ns;
  update_avg(w.avg_wakeup, sum - (w.last_wakeup != 0 ? w.last_wakeup : w.start_runtime));
  w.last_wakeup = sum;
}

CpuId Cfs::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  CpuId cpu = prev;
  switch (how.kind) {
    case WakeKind::kFork:
      cpu = balancer_.balance_fork(t, how.waker_cpu == kNoCpu ? prev : how.waker_cpu);
      break;
    case WakeKind::kWakeup: {
      const CpuId this_cpu = how.waker_cpu == kNoCpu ? prev : how.waker_cpu;
      const bool sync = how.sync && p_.SYNC_WAKEUPS;
      cpu = (this->*rel_.select_wake_cpu)(t, prev, this_cpu, sync, how.waker);
      record_wakeup_by(how.waker);
      break;
    }
    case WakeKind::kMigrate:  // set_cpus_allowed_ptr(): any allowed CPU
      cpu = static_cast<CpuId>(t.allowed.find_first());
      break;
  }
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed.find_first());
  return cpu;
}

// wake_affine(): pull the woken task to the waker's CPU when the loads stay balanced.
bool Cfs::wake_affine(const balance::Domain& sd, Task& p, CpuId prev, CpuId this_cpu, bool sync,
                      TaskId waker, int64_t load, int64_t this_load) {
  const int idx = sd.t.wake_idx;
  const Task* current = waker == kNoTask  ? ctx_->curr(this_cpu)
                        : q_.known(waker) ? q_[waker].task
                                          : nullptr;
  const bool current_fair = current && q_.known(current->id);
  const int64_t current_overlap = current_fair ? q_[current->id].avg_overlap : 0;
  const int64_t current_weight = current_fair ? q_[current->id].load.weight : 0;
  const Entity& e = q_[p.id];
  const int64_t mc = p_.sched_migration_cost_ns;
  if (p_.SYNC_LESS && sync && (current_overlap > mc || e.avg_overlap > mc)) sync = false;
  if (!sync && p_.SYNC_MORE && current_overlap < mc && e.avg_overlap < mc) sync = true;
  // Unsigned as in the kernel: removing the waker's weight may wrap (then: not balanced).
  auto tl = static_cast<uint64_t>(this_load);
  if (sync) tl -= static_cast<uint64_t>(current_weight);
  const auto w = static_cast<uint64_t>(e.load.weight);
  const auto imbalance = static_cast<uint64_t>(100 + (sd.t.imbalance_pct - 100) / 2);
  const auto l = static_cast<uint64_t>(load);
  const bool balanced =
      (rel_.affine_empty_balanced && tl == 0) || 100 * (tl + w) <= imbalance * (l + w);
  if (sync && balanced) return true;
  const auto tl_per_task = static_cast<uint64_t>(balancer_.cpu_avg_load_per_task(this_cpu));
  return balanced ||
         (tl <= l && tl + static_cast<uint64_t>(balancer_.target_load(prev, idx)) <= tl_per_task);
}

// 2.6.31 select_task_rq_fair(): stay on prev unless wake_affine or passive balancing
// (SD_WAKE_BALANCE) pulls the task to the waker's CPU; a task that stays goes through
// wake_idle(), which finds nothing on domains without SD_WAKE_IDLE (2.6.31 has none).
CpuId Cfs::select_wake_cpu_2631(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker) {
  const auto stay = [&] { return rel_.wake_idle ? wake_idle(t, prev) : prev; };
  if ((prev == this_cpu && !rel_.affine_on_prev) || !t.allowed_on(this_cpu)) return stay();
  const balance::Domain* this_sd = nullptr;
  for (const balance::Domain& sd : balancer_.domains(this_cpu))
    if (sd.span.test(static_cast<size_t>(prev))) {
      this_sd = &sd;
      break;
    }
  if (!this_sd) return stay();
  const int idx = this_sd->t.wake_idx;
  const int64_t imbalance = 100 + (this_sd->t.imbalance_pct - 100) / 2;
  const int64_t load = balancer_.source_load(prev, idx);
  const int64_t this_load = balancer_.target_load(this_cpu, idx);
  if (this_sd->has(balance::kSdWakeAffine) && p_.AFFINE_WAKEUPS &&
      wake_affine(*this_sd, t, prev, this_cpu, sync, waker, load, this_load))
    return this_cpu;
  if (this_sd->has(balance::kSdWakeBalance) && imbalance * this_load <= 100 * load) return this_cpu;
  return stay();
}

// wake_idle() of 2.6.31's code: an idle CPU, or one already running more than one CFS
// task, keeps the task; otherwise the first idle CPU it may use in each SD_WAKE_IDLE
// domain of that CPU, lowest domain first, stopping at the first domain without the flag.
CpuId Cfs::wake_idle(const Task& t, CpuId cpu) const {
  if (ctx_->idle(cpu) || q_.rq(cpu).nr_running > 1) return cpu;
  for (const balance::Domain& sd : balancer_.domains(cpu)) {
    if (!sd.has(balance::kSdWakeIdle)) break;
    const CpuId free = first_and_and(sd.span, t.allowed, ctx_->idle_cpus());
    if (free != kNoCpu) return free;
  }
  return cpu;
}

// 2.6.32 select_task_rq_fair() for a wake-up: the lowest SD_WAKE_AFFINE domain of the
// waker's CPU that spans prev; in 2.6.32.2 (wake_idle_search) with SD_PREFER_SIBLING an
// idle CPU (no CFS task) in it is preferred; wake_affine() then decides between that CPU
// and prev.
CpuId Cfs::select_wake_cpu_2632(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker) {
  if (!p_.AFFINE_WAKEUPS || !t.allowed_on(this_cpu)) return prev;
  CpuId cpu = this_cpu;
  const balance::Domain* affine_sd = nullptr;
  for (const balance::Domain& sd : balancer_.domains(this_cpu)) {
    if (!sd.has(balance::kSdWakeAffine)) continue;
    CpuId candidate = kNoCpu;
    if (sd.span.test(static_cast<size_t>(prev))) candidate = cpu;
    if (rel_.wake_idle_search && sd.has(balance::kSdPreferSibling)) {
      if (candidate == cpu && q_.rq(prev).nr_running == 0) candidate = prev;
      if (candidate == kNoCpu || candidate == cpu) {
        const CpuId free = first_and_and(sd.span, t.allowed, q_.empty_cpus());
        if (free != kNoCpu) candidate = free;
      }
    }
    if (candidate != kNoCpu) {
      affine_sd = &sd;
      cpu = candidate;
      break;
    }
  }
  if (!affine_sd) return prev;
  const int idx = affine_sd->t.wake_idx;
  if (wake_affine(*affine_sd, t, prev, this_cpu, sync, waker, balancer_.source_load(prev, idx),
                  balancer_.target_load(this_cpu, idx)))
    return cpu;
  return prev;
}

}  // namespace schedlab::cfs
