#include "policy/deadline/deadline.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab {

namespace {
constexpr int kDlScale = 10;  // DL_SCALE: the precision dl_entity_overflow() gives up
constexpr int kBwShift = 20;  // BW_SHIFT: fixed point of bandwidths and densities
}  // namespace

void DlClass::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  rq_.resize(static_cast<size_t>(ctx.cpus()));
}

// A task becomes a deadline task (at creation or by a policy change): its parameters are
// new, so its first activation starts a fresh period; its first job starts now.
void DlClass::task_new(Task& t, const Task*) {
  if (static_cast<size_t>(t.id) >= se_.size()) se_.resize(static_cast<size_t>(t.id) + 1);
  Entity& e = se_[t.id];
  e = Entity{};
  e.task = &t;
  e.charged_exec = t.sum_exec_ns;
  start_job(t);
}

Time DlClass::earliest_deadline(CpuId cpu) const {
  const RunQueue& rq = rq_[cpu];
  Time best = -1;
  if (rq.curr != kNoTask) best = se_[rq.curr].deadline;
  if (!rq.queue.empty()) {
    const Time queued = se_[rq.queue.back()].deadline;
    if (best < 0 || queued < best) best = queued;
  }
  return best;
}

void DlClass::insert(CpuId cpu, Entity& e) {
  e.seq = next_seq_++;
  e.in_queue = true;
  e.queue_cpu = cpu;
  auto& q = rq_[cpu].queue;
  // Latest first: find the first entry the new one precedes in the reversed order.
  auto at = std::upper_bound(q.begin(), q.end(), e.task->id,
                             [&](TaskId id, TaskId other) { return earlier(se_[other], se_[id]); });
  q.insert(at, e.task->id);
}

void DlClass::remove(Entity& e) {
  auto& q = rq_[e.queue_cpu].queue;
  q.erase(std::find(q.begin(), q.end(), e.task->id));
  e.in_queue = false;
}

// replenish_dl_new_period(): a full budget due one relative deadline from now.
void DlClass::new_period(Entity& e) {
  e.deadline = ctx_->now() + e.task->dl_deadline_ns;
  e.runtime = e.task->dl_runtime_ns;
}

// replenish_dl_entity(): postpone the deadline a period at a time until the budget is
// positive again; a task that fell behind more than that starts afresh.
void DlClass::replenish(Entity& e) {
  if (e.yielded && e.runtime > 0) e.runtime = 0;
  while (e.runtime <= 0) {
    e.deadline += e.task->dl_period_ns;
    e.runtime += e.task->dl_runtime_ns;
  }
  if (e.deadline < ctx_->now()) new_period(e);
  e.yielded = false;
  e.throttled = false;
}

// dl_entity_overflow(): would the remaining budget, run from now to the old deadline,
// exceed the task's density runtime/deadline? Computed at the kernel's reduced precision.
bool DlClass::overflows(const Entity& e, Time now) const {
  const Time left = (e.task->dl_deadline_ns >> kDlScale) * (e.runtime >> kDlScale);
  const Time right = ((e.deadline - now) >> kDlScale) * (e.task->dl_runtime_ns >> kDlScale);
  return right < left;
}

// update_dl_entity() at wake-up: keep the deadline and budget unless using them would
// exceed the bandwidth (the CBS rule); a constrained-deadline task (deadline < period)
// whose deadline has not passed keeps it with the budget cut to its density (revised
// wake-up rule).
void DlClass::update_on_wakeup(Entity& e) {
  const Time now = ctx_->now();
  if (!(e.deadline < now || overflows(e, now))) return;
  const Task& t = *e.task;
  if (t.dl_deadline_ns != t.dl_period_ns && !(e.deadline < now)) {
    const Int128 density = (static_cast<Int128>(t.dl_runtime_ns) << kBwShift) / t.dl_deadline_ns;
    e.runtime = static_cast<Time>((density * (e.deadline - now)) >> kBwShift);
    return;
  }
  new_period(e);
}

// The throttling half of update_curr_dl(): out of the queue until the replenishment
// timer at the next period start; if that is already past, replenish at once.
void DlClass::throttle(CpuId cpu, Entity& e) {
  e.throttled = true;
  const Task& t = *e.task;
  const Time next_period = e.deadline - t.dl_deadline_ns + t.dl_period_ns;
  if (next_period > ctx_->now()) {
    e.timer_at = next_period;
    ctx_->start_timer(*this, t.id, next_period);
    ctx_->resched(cpu);
    return;
  }
  replenish(e);
  const RunQueue& rq = rq_[cpu];
  if (!rq.queue.empty() && earlier(se_[rq.queue.back()], e)) ctx_->resched(cpu);
}

// update_curr_dl(): charge the running task's CPU time, scaled by the CPU's capacity, to
// its budget; throttle when the budget is gone or the task yielded.
void DlClass::update_curr(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask) return;
  Entity& e = se_[rq.curr];
  const Time delta = e.task->sum_exec_ns - e.charged_exec;
  e.charged_exec = e.task->sum_exec_ns;
  if (delta > 0) {
    const int capacity = ctx_->machine().capacity[cpu];
    e.runtime -= capacity == 1024 ? delta : delta * capacity / 1024;
  }
  if (!e.throttled && (e.runtime <= 0 || e.yielded)) throttle(cpu, e);
}

void DlClass::preempt_if_earlier(CpuId cpu, Entity& e) {
  const Task* curr = ctx_->curr(cpu);
  if (!curr || curr->policy != SchedPolicy::kDeadline || e.deadline < se_[curr->id].deadline)
    ctx_->resched(cpu);
}

// find_later_rq(): a CPU running no deadline task (the task's own, else one sharing its
// cache, else the first); otherwise the CPU whose earliest deadline is the latest, if
// that is later than the task's.
CpuId DlClass::find_later_cpu(const Task& t) const {
  CpuId first_free = kNoCpu, cache_free = kNoCpu, latest = kNoCpu;
  Time latest_deadline = -1;
  const Machine& m = ctx_->machine();
  for (CpuId c = 0; c < ctx_->cpus(); ++c) {
    const Time d = earliest_deadline(c);
    if (d > latest_deadline) {
      latest = c;
      latest_deadline = d;
    }
    if (d >= 0 || !t.allowed_on(c)) continue;
    if (c == t.cpu) return c;
    if (first_free == kNoCpu) first_free = c;
    if (cache_free == kNoCpu && t.cpu != kNoCpu && m.same_llc(c, t.cpu)) cache_free = c;
  }
  if (cache_free != kNoCpu) return cache_free;
  if (first_free != kNoCpu) return first_free;
  if (latest != kNoCpu && t.allowed_on(latest) && se_[t.id].deadline < latest_deadline)
    return latest;
  return kNoCpu;
}

// select_task_rq_dl(): stay, unless a deadline task that is due no later (or cannot
// move) runs there; then a CPU where this task would be the earliest.
CpuId DlClass::select_cpu(Task& t, CpuId prev, const WakeInfo&) {
  CpuId cpu = prev;
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed.find_first());
  const Task* curr = ctx_->curr(cpu);
  const bool busy = curr && curr->policy == SchedPolicy::kDeadline && curr != &t &&
                    (curr->nr_cpus_allowed < 2 || !(se_[t.id].deadline < se_[curr->id].deadline));
  if (busy && t.nr_cpus_allowed > 1) {
    const CpuId target = find_later_cpu(t);
    if (target != kNoCpu &&
        (earliest_deadline(target) < 0 || se_[t.id].deadline < earliest_deadline(target)))
      cpu = target;
  }
  return cpu;
}

// dl_check_constrained_dl() (from 4.11), at every enqueue of a task with deadline <
// period: activated after its deadline but before its next period, it is throttled, its
// budget at most 0, until the replenishment at that period. A fresh budget now would let
// it run at runtime/deadline, more than its bandwidth runtime/period.
bool DlClass::held_to_next_period(Entity& e) {
  const Task& t = *e.task;
  if (e.fresh || e.throttled || t.dl_deadline_ns == t.dl_period_ns) return false;
  const Time now = ctx_->now();
  const Time next_period = e.deadline - t.dl_deadline_ns + t.dl_period_ns;
  if (!(e.deadline < now && now < next_period)) return false;
  e.throttled = true;
  if (e.runtime > 0) e.runtime = 0;
  e.timer_at = next_period;
  ctx_->start_timer(*this, t.id, next_period);
  return true;
}

void DlClass::enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) {
  Entity& e = se_[t.id];
  if (held_to_next_period(e)) return;  // the replenishment timer queues it
  if (how.kind == EnqueueKind::kMigrate) {
    insert(cpu, e);
    return;
  }
  if (e.fresh) {  // setup_new_dl_entity(): the first activation
    e.fresh = false;
    e.charged_exec = t.sum_exec_ns;
    new_period(e);
  } else if (e.throttled) {
    return;  // the replenishment timer queues it
  } else if (how.kind == EnqueueKind::kWakeup) {
    update_on_wakeup(e);
  } else if (how.kind == EnqueueKind::kRequeue && e.deadline < ctx_->now()) {
    // ENQUEUE_RESTORE (sched_setattr, an affinity change) past the deadline: a new
    // period with the parameters it has now (setup_new_dl_entity(); enqueue_dl_entity()
    // as read in 6.12, which 4.x kernels before the removal of dl_new did not have)
    new_period(e);
  }
  insert(cpu, e);
}

void DlClass::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  Entity& e = se_[t.id];
  RunQueue& rq = rq_[cpu];
  if (rq.curr == t.id) {
    update_curr(cpu);
    rq.curr = kNoTask;
    rq.pull_wanted = true;
  }
  if (e.in_queue) remove(e);
  if (how == DequeueKind::kExit) {  // no replenishment for a dead task
    e.timer_at = -1;
    e.throttled = false;
  }
}

void DlClass::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo&) {
  Entity& e = se_[woken.id];
  if (!e.in_queue) return;  // throttled: its timer will queue it
  if (curr.policy != SchedPolicy::kDeadline) {
    ctx_->resched(cpu);
    return;
  }
  update_curr(cpu);
  if (ctx_->resched_pending(cpu)) return;
  if (e.deadline < se_[curr.id].deadline) {
    ctx_->resched(cpu);
    return;
  }
  // task_woken_dl(): it cannot run here now; push it where it would.
  if (pushing_ == 0 && woken.nr_cpus_allowed > 1)
    while (push_one(cpu)) {
    }
}

Task* DlClass::pick_next(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.queue.empty()) return nullptr;
  Entity& e = se_[rq.queue.back()];
  remove(e);
  rq.curr = e.task->id;
  e.charged_exec = e.task->sum_exec_ns;
  return e.task;
}

void DlClass::put_prev(CpuId cpu, Task& prev) {
  RunQueue& rq = rq_[cpu];
  update_curr(cpu);
  rq.curr = kNoTask;
  Entity& e = se_[prev.id];
  if (e.throttled) {
    rq.pull_wanted = true;
    return;
  }
  insert(cpu, e);
}

void DlClass::task_tick(CpuId cpu, Task&) {
  update_curr(cpu);
}

// yield_task_dl(): the job is done; the rest of the budget is given up until the next
// period.
void DlClass::yield(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr != kNoTask) {
    se_[rq.curr].yielded = true;
    update_curr(cpu);
  }
  if (Task* t = ctx_->curr(cpu)) close_job(*t);  // the job counted ends with it
}

// push_dl_task(): move the earliest queued task that may run elsewhere to a CPU where it
// would be the earliest. False when nothing moved.
bool DlClass::push_one(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  const Task* curr = ctx_->curr(cpu);
  const bool curr_dl = rq.curr != kNoTask && !se_[rq.curr].throttled;
  if (rules_.push_lone ? rq.queue.empty() : rq.queue.size() + (curr_dl ? 1 : 0) < 2)
    return false;  // nothing queued; before 6.7, not overloaded
  Task* next = nullptr;
  for (auto it = rq.queue.rbegin(); it != rq.queue.rend(); ++it)
    if (se_[*it].task->nr_cpus_allowed > 1) {
      next = se_[*it].task;
      break;
    }
  if (!next) return false;
  if (curr_dl && curr && se_[next->id].deadline < se_[curr->id].deadline &&
      curr->nr_cpus_allowed > 1) {
    ctx_->resched(cpu);  // it preempts here; the current task may be pushed instead
    return false;
  }
  const CpuId target = find_later_cpu(*next);
  if (target == kNoCpu || target == cpu) return false;
  const Time target_earliest = earliest_deadline(target);
  if (target_earliest >= 0 && !(se_[next->id].deadline < target_earliest)) return false;
  ++pushing_;
  ctx_->migrate_queued(*next, target);
  --pushing_;
  return true;
}

// pull_dl_task(): a deadline task left this CPU; take from overloaded CPUs the queued
// tasks due earlier than anything here, unless they are due before the task running
// there (which they will preempt anyway).
void DlClass::pull(CpuId cpu) {
  Time dmin = -1;
  for (CpuId src = 0; src < ctx_->cpus(); ++src) {
    if (src == cpu) continue;
    RunQueue& s = rq_[src];
    const bool src_curr_dl = s.curr != kNoTask && !se_[s.curr].throttled;
    if (s.queue.size() + (src_curr_dl ? 1 : 0) < 2) continue;
    Task* p = nullptr;
    for (auto it = s.queue.rbegin(); it != s.queue.rend(); ++it) {
      const Task& cand = *se_[*it].task;
      if (cand.nr_cpus_allowed > 1 && cand.allowed_on(cpu)) {
        p = se_[*it].task;
        break;
      }
    }
    if (!p) continue;
    const Time d = se_[p->id].deadline;
    const Time mine = earliest_deadline(cpu);
    if ((dmin >= 0 && !(d < dmin)) || (mine >= 0 && !(d < mine))) continue;
    if (src_curr_dl && d < se_[s.curr].deadline) continue;
    ++pushing_;
    ctx_->migrate_queued(*p, cpu);
    --pushing_;
    dmin = d;
  }
}

void DlClass::balance(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (!rq.pull_wanted) return;
  rq.pull_wanted = false;
  pull(cpu);
}

void DlClass::post_schedule(CpuId cpu) {
  ++pushing_;
  while (push_one(cpu)) {
  }
  --pushing_;
}

// dl_task_timer(): the replenishment. A task that blocked meanwhile only gets its budget
// back (its wake-up queues it); a runnable one is queued and may preempt or be pushed.
void DlClass::timer_fired(TaskId id) {
  if (static_cast<size_t>(id) >= se_.size()) return;
  Entity& e = se_[id];
  if (e.timer_at != ctx_->now() || !e.task) return;  // cancelled or re-armed
  e.timer_at = -1;
  Task& t = *e.task;
  if (t.policy != SchedPolicy::kDeadline) {
    e.throttled = false;
    return;
  }
  replenish(e);
  if (!t.runnable || t.on_cpu) return;
  insert(t.cpu, e);
  preempt_if_earlier(t.cpu, e);
  post_schedule(t.cpu);
}

std::string DlClass::check_invariants() const {
  for (CpuId cpu = 0; cpu < static_cast<CpuId>(rq_.size()); ++cpu) {
    const RunQueue& rq = rq_[cpu];
    for (size_t i = 0; i < rq.queue.size(); ++i) {
      const Entity& e = se_[rq.queue[i]];
      if (!e.in_queue || e.queue_cpu != cpu || e.throttled || !e.task->queued)
        return fmt::format("deadline: CPU {} queues {} in a wrong state", cpu, e.task->name);
      if (i > 0 && earlier(se_[rq.queue[i - 1]], e))
        return fmt::format("deadline: CPU {}: the queue is out of deadline order", cpu);
    }
    if (rq.curr != kNoTask && ctx_->curr(cpu) != se_[rq.curr].task)
      return fmt::format("deadline: CPU {} thinks {} runs there", cpu, se_[rq.curr].task->name);
  }
  for (const Entity& e : se_)
    if (e.task && e.throttled && e.timer_at < 0 && e.task->policy == SchedPolicy::kDeadline)
      return fmt::format("deadline: {} is throttled with no replenishment timer", e.task->name);
  return {};
}

}  // namespace schedlab
