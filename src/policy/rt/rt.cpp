#include "policy/rt/rt.h"

#include <algorithm>
#include <bit>

namespace schedlab {

int RtClass::RunQueue::highest() const {
  if (bitmap[0]) return std::countr_zero(bitmap[0]);
  if (bitmap[1]) return 64 + std::countr_zero(bitmap[1]);
  return kLevels;
}

void RtClass::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  rqs_.resize(ctx.cpus());
  slice_ticks_ = static_cast<int>(std::max<Time>(1, kRrTimesliceNs / ctx.tick_ns()));
}

void RtClass::task_new(Task& t, const Task*) {
  if (static_cast<size_t>(t.id) >= slice_ticks_left_.size()) {
    slice_ticks_left_.resize(t.id + 1, 0);
    requeue_tail_.resize(t.id + 1, 0);
  }
  slice_ticks_left_[t.id] = slice_ticks_;
}

int RtClass::cpu_prio(CpuId cpu) const {
  const Task* curr = ctx_->curr(cpu);
  if (curr && curr->policy == SchedPolicy::kDeadline) return kCpuPrioDeadline;
  int best = rqs_[cpu].highest();
  if (curr && is_rt(curr->policy)) best = std::min(best, prio(*curr));
  if (best < kLevels) return best;
  return (curr || !ctx_->idle(cpu)) ? kCpuPrioNormal : kCpuPrioIdle;
}

// find_lowest_rq: an allowed CPU running the least urgent work, preferring `prefer`,
// then one sharing its cache, then the lowest-numbered.
CpuId RtClass::find_lowest_cpu(const Task& t, CpuId prefer) const {
  int lowest = -1;
  for (CpuId c = 0; c < ctx_->cpus(); ++c)
    if (t.allowed_on(c)) lowest = std::max(lowest, cpu_prio(c));
  if (lowest < 0) return kNoCpu;
  if (prefer != kNoCpu && t.allowed_on(prefer) && cpu_prio(prefer) == lowest) return prefer;
  CpuId first = kNoCpu;
  for (CpuId c = 0; c < ctx_->cpus(); ++c) {
    if (!t.allowed_on(c) || cpu_prio(c) != lowest) continue;
    if (prefer != kNoCpu && ctx_->machine().same_llc(c, prefer)) return c;
    if (first == kNoCpu) first = c;
  }
  return first;
}

// select_task_rq_rt: stay on prev unless an RT task of equal or higher priority runs
// there; then go where the least urgent work runs, if that is less urgent than t.
CpuId RtClass::select_cpu(Task& t, CpuId prev, const WakeInfo&) {
  if (prev == kNoCpu || !t.allowed_on(prev)) return find_lowest_cpu(t, prev);
  const Task* curr = ctx_->curr(prev);
  const bool blocked_there = curr && ((is_rt(curr->policy) && prio(*curr) <= prio(t)) ||
                                      curr->policy == SchedPolicy::kDeadline);
  if (blocked_there && t.nr_cpus_allowed > 1) {
    const CpuId target = find_lowest_cpu(t, prev);
    if (target != kNoCpu && prio(t) < cpu_prio(target)) return target;
  }
  return prev;
}

void RtClass::push(RunQueue& rq, Task& t, bool at_head) {
  const int p = prio(t);
  if (at_head)
    rq.level[p].insert(rq.level[p].begin(), &t);
  else
    rq.level[p].push_back(&t);
  rq.bitmap[p / 64] |= uint64_t{1} << (p % 64);
  ++rq.nr_queued;
  ++total_queued_;
}

void RtClass::remove(RunQueue& rq, Task& t) {
  const int p = prio(t);
  auto& level = rq.level[p];
  level.erase(std::find(level.begin(), level.end(), &t));
  if (level.empty()) rq.bitmap[p / 64] &= ~(uint64_t{1} << (p % 64));
  --rq.nr_queued;
  --total_queued_;
}

void RtClass::enqueue(CpuId cpu, Task& t, const EnqueueFlags&) {
  push(rqs_[cpu], t, false);
}

void RtClass::dequeue(CpuId cpu, Task& t, DequeueKind) {
  if (t.queued) remove(rqs_[cpu], t);
}

void RtClass::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo&) {
  if (curr.policy != SchedPolicy::kDeadline && prio(woken) < prio(curr)) {
    ctx_->resched(cpu);
    return;
  }
  // push_rt_task: the woken task cannot run here; move it where it would run now.
  if (woken.nr_cpus_allowed < 2) return;
  const CpuId target = find_lowest_cpu(woken, cpu);
  if (target != kNoCpu && target != cpu && prio(woken) < cpu_prio(target))
    ctx_->migrate_queued(woken, target);
}

Task* RtClass::pick_next(CpuId cpu) {
  RunQueue& rq = rqs_[cpu];
  const int p = rq.highest();
  if (p == kLevels) return nullptr;
  Task* t = rq.level[p].front();
  remove(rq, *t);
  return t;
}

// The balance callback after schedule() (push_rt_tasks): queued RT tasks that would
// run at once on another CPU go there.
void RtClass::post_schedule(CpuId cpu) {
  RunQueue& rq = rqs_[cpu];
  while (rq.nr_queued > 0) {
    Task* candidate = rq.level[rq.highest()].front();
    if (candidate->nr_cpus_allowed < 2) return;
    CpuId target = kNoCpu;
    int target_prio = prio(*candidate);
    for (CpuId c = 0; c < ctx_->cpus(); ++c) {
      if (c == cpu || !candidate->allowed_on(c)) continue;
      const int cp = cpu_prio(c);
      if (cp > target_prio) {
        target = c;
        target_prio = cp;
      }
    }
    if (target == kNoCpu) return;
    ctx_->migrate_queued(*candidate, target);
  }
}

void RtClass::put_prev(CpuId cpu, Task& prev) {
  // A preempted RT task keeps its place at the head of its list; one that used up its
  // RR slice or yielded goes to the tail.
  const bool tail = requeue_tail_[prev.id] != 0;
  requeue_tail_[prev.id] = 0;
  push(rqs_[cpu], prev, !tail);
}

void RtClass::task_tick(CpuId cpu, Task& curr) {
  if (curr.policy != SchedPolicy::kRR) return;
  if (--slice_ticks_left_[curr.id] > 0) return;
  slice_ticks_left_[curr.id] = slice_ticks_;
  // Requeue only when another task waits at the same priority (task_tick_rt).
  if (!rqs_[cpu].level[prio(curr)].empty()) {
    requeue_tail_[curr.id] = 1;
    ctx_->resched(cpu);
  }
}

void RtClass::yield(CpuId cpu) {
  if (Task* curr = ctx_->curr(cpu)) requeue_tail_[curr->id] = 1;
}

// pull_rt_task: take the most urgent queued RT task from another CPU if it beats
// everything this CPU would run.
void RtClass::balance(CpuId cpu) {
  if (total_queued_ == 0) return;
  const int mine = rqs_[cpu].highest();
  Task* best = nullptr;
  for (CpuId c = 0; c < ctx_->cpus(); ++c) {
    if (c == cpu || rqs_[c].nr_queued == 0) continue;
    for (int p = rqs_[c].highest(); p < kLevels && p < mine; ++p) {
      if (best && p >= prio(*best)) break;
      for (Task* t : rqs_[c].level[p])
        if (t->allowed_on(cpu)) {
          best = t;
          break;
        }
      if (best && prio(*best) == p) break;
    }
  }
  if (best) ctx_->migrate_queued(*best, cpu);
}

}  // namespace schedlab
