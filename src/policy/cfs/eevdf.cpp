// EEVDF, the fair class of Linux 6.6 and 6.12, after kernel/sched/fair.c of those releases
// (ALGORITHMS.md §5): the weighted average vruntime V, lag = V - vruntime kept across
// sleep and migration and clamped, eligibility (V >= vruntime), a virtual deadline one
// weighted slice ahead, and the pick of the eligible entity with the earliest deadline.
//   6.6: PLACE_LAG, PLACE_DEADLINE_INITIAL, RUN_TO_PARITY, wake-up preemption when the
//        woken task would be picked.
//   6.12 adds PREEMPT_SHORT, DELAY_DEQUEUE with DELAY_ZERO, PLACE_REL_DEADLINE and custom
//        slices (sched_attr.sched_runtime of a fair task: rt-app's dl-runtime).
// The run queues, domains and balancer are the shared ones (balance.cpp) with 6.x's
// domain settings; placement at wake-up follows 6.x's wake_affine (WA_IDLE) and
// select_idle_sibling. Simplified, as the policy file (presets.cpp) says: no PELT, so
// load balancing and fork placement use queue weights, WA_WEIGHT falls back to prev,
// and select_idle_sibling scans the whole cache domain (no SIS_UTIL limit, no idle-core
// search, no recent_used_cpu).
#include <fmt/format.h>

#include <algorithm>

#include "policy/cfs/cfs.h"

namespace schedlab::cfs {

// __calc_delta() of 6.x: delta * 1024 / weight through the 32-bit inverse, shifting the
// factor down while it does not fit in 32 bits.
int64_t Cfs::calc_delta_fair_66(int64_t delta, const LoadWeight& lw) const {
  if (lw.weight == kNice0Load) return delta;
  const uint64_t inv =
      lw.inv_weight ? lw.inv_weight : 0xffffffffULL / static_cast<uint64_t>(lw.weight);
  uint64_t fact = static_cast<uint64_t>(kNice0Load) * inv;
  int shift = 32;
  if (const uint64_t hi = fact >> 32) {
    const int fs = 64 - __builtin_clzll(hi);
    shift -= fs;
    fact >>= fs;
  }
  return static_cast<int64_t>((static_cast<UInt128>(delta) * fact) >> shift);
}

void Cfs::avg_vruntime_add(RunQueue& rq, const Entity& e) {
  rq.avg_vruntime += static_cast<Int128>(e.vruntime - rq.min_vruntime) * e.load.weight;
  rq.avg_load += e.load.weight;
}

void Cfs::avg_vruntime_sub(RunQueue& rq, const Entity& e) {
  rq.avg_vruntime -= static_cast<Int128>(e.vruntime - rq.min_vruntime) * e.load.weight;
  rq.avg_load -= e.load.weight;
}

// The weighted sum of (vruntime - min_vruntime) and the total weight, the current task
// included: V = min_vruntime + sum / weight.
Cfs::VruntimeSums Cfs::vruntime_sums(const RunQueue& rq) const {
  VruntimeSums s{rq.avg_vruntime, rq.avg_load};
  if (rq.curr != kNoTask && se_[rq.curr].on_rq) {
    const Entity& c = se_[rq.curr];
    s.sum += static_cast<Int128>(c.vruntime - rq.min_vruntime) * c.load.weight;
    s.load += c.load.weight;
  }
  return s;
}

// avg_vruntime(): V, the weighted mean of the queued vruntimes with the current task's,
// rounded towards minus infinity.
int64_t Cfs::avg_vruntime(const RunQueue& rq) const {
  auto [avg, load] = vruntime_sums(rq);
  if (load) {
    if (avg < 0) avg -= load - 1;
    avg /= load;
  }
  return rq.min_vruntime + static_cast<int64_t>(avg);
}

// entity_eligible(): V >= vruntime, without dividing.
bool Cfs::entity_eligible(const RunQueue& rq, const Entity& e) const {
  const auto [avg, load] = vruntime_sums(rq);
  return avg >= static_cast<Int128>(e.vruntime - rq.min_vruntime) * load;
}

// update_min_vruntime(): as before, but the sum kept relative to it moves along.
void Cfs::update_min_vruntime_66(RunQueue& rq) {
  int64_t v = rq.min_vruntime;
  bool have_curr = rq.curr != kNoTask && se_[rq.curr].on_rq;
  if (have_curr) v = se_[rq.curr].vruntime;
  const TaskId left = rq.timeline.leftmost();
  if (left != kNoTask) v = have_curr ? std::min(v, se_[left].vruntime) : se_[left].vruntime;
  const int64_t delta = v - rq.min_vruntime;
  if (delta > 0) {
    rq.avg_vruntime -= static_cast<Int128>(rq.avg_load) * delta;
    rq.min_vruntime = v;
  }
}

// update_deadline(): a slice used up earns the next one, and a reschedule.
void Cfs::update_deadline(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  if (e.vruntime - e.deadline < 0) return;
  if (!e.custom_slice) e.slice = tun_.base_slice;
  e.deadline = e.vruntime + calc_delta_fair_66(e.slice, e.load);
  if (rq.nr_running > 1) {
    ctx_->resched(cpu);
    clear_buddies(rq, e.task->id);
  }
}

void Cfs::update_curr_66(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask) return;
  Entity& e = se_[rq.curr];
  const int64_t delta = e.task->sum_exec_ns - e.charged_exec;
  if (delta <= 0) return;
  e.charged_exec = e.task->sum_exec_ns;
  e.exec_start = ctx_->now();
  e.vruntime += calc_delta_fair_66(delta, e.load);
  update_deadline(cpu, e);
  update_min_vruntime_66(rq);
}

// update_entity_lag(): vlag = V - vruntime, within two slices (at least a tick) of
// virtual time.
void Cfs::update_entity_lag(const RunQueue& rq, Entity& e) {
  const int64_t lag = avg_vruntime(rq) - e.vruntime;
  const int64_t limit = calc_delta_fair_66(std::max(2 * e.slice, ctx_->tick_ns()), e.load);
  e.vlag = std::clamp(lag, -limit, limit);
}

// place_entity(): at V less the entity's lag, scaled so that adding it does not move V
// (PLACE_LAG); the first slice of a new task is halved (PLACE_DEADLINE_INITIAL).
void Cfs::place_entity_66(RunQueue& rq, Entity& e, bool initial) {
  const int64_t vruntime = avg_vruntime(rq);
  int64_t lag = 0;
  if (!e.custom_slice) e.slice = tun_.base_slice;
  int64_t vslice = calc_delta_fair_66(e.slice, e.load);
  if (cfg_.feat.place_lag && rq.nr_running) {
    int64_t load = rq.avg_load;
    if (rq.curr != kNoTask && se_[rq.curr].on_rq) load += se_[rq.curr].load.weight;
    Int128 scaled = static_cast<Int128>(e.vlag) * (load + e.load.weight);
    if (load == 0) load = 1;
    lag = static_cast<int64_t>(scaled / load);
  }
  e.vruntime = vruntime - lag;
  if (cfg_.feat.place_rel_deadline && e.rel_deadline) {  // 6.12: keep the relative deadline
    e.deadline += e.vruntime;
    e.rel_deadline = false;
    return;
  }
  if (cfg_.feat.place_deadline_initial && initial) vslice /= 2;
  e.deadline = e.vruntime + vslice;
}

// pick_eevdf(): the eligible entity with the earliest deadline; `curr` (running, or just
// put back) first while RUN_TO_PARITY protects its slice; the leftmost if none is
// eligible.
TaskId Cfs::pick_eevdf(const RunQueue& rq, TaskId curr) const {
  if (curr != kNoTask && (!se_[curr].on_rq || !entity_eligible(rq, se_[curr]))) curr = kNoTask;
  if (cfg_.feat.run_to_parity && curr != kNoTask && protect_slice(se_[curr])) return curr;
  // entity_eligible() for each, with the sums taken once.
  const auto [avg, load] = vruntime_sums(rq);
  TaskId best = kNoTask;
  rq.timeline.for_each([&](TaskId id) {
    if (id == curr) return;
    const Entity& e = se_[id];
    if (avg < static_cast<Int128>(e.vruntime - rq.min_vruntime) * load) return;
    if (best == kNoTask) {
      best = id;
      return;
    }
    const Entity& b = se_[best];
    if (e.deadline < b.deadline || (e.deadline == b.deadline && e.vruntime < b.vruntime)) best = id;
  });
  if (curr != kNoTask && (best == kNoTask || se_[curr].deadline < se_[best].deadline)) best = curr;
  if (best == kNoTask) best = rq.timeline.leftmost();
  return best;
}

// The tail of dequeue_entity(): lag, relative deadline, out of the timeline and the load.
void Cfs::finish_dequeue_66(CpuId cpu, Entity& e, bool sleep) {
  RunQueue& rq = rq_[cpu];
  const TaskId id = e.task->id;
  clear_buddies(rq, id);
  update_entity_lag(rq, e);
  if (era612() && cfg_.feat.place_rel_deadline && !sleep) {
    e.deadline -= e.vruntime;
    e.rel_deadline = true;
  }
  if (id != rq.curr) {
    rq.timeline.erase(id);
    avg_vruntime_sub(rq, e);
  }
  account_dequeue(cpu, e);
  update_min_vruntime_66(rq);
  if (e.sched_delayed) {  // finish_delayed_dequeue_entity()
    e.sched_delayed = false;
    if (cfg_.feat.delay_zero && e.vlag > 0) e.vlag = 0;
  }
}

void Cfs::enqueue_66(CpuId cpu, Task& t, EnqueueKind how) {
  Entity& e = se_[t.id];
  RunQueue& rq = rq_[cpu];
  if (rq.prev == t.id) rq.prev = kNoTask;
  if (e.sched_delayed && how == EnqueueKind::kWakeup) {
    // requeue_delayed_entity(): still queued; with DELAY_ZERO a positive lag is dropped.
    update_curr_66(cpu);
    if (cfg_.feat.delay_zero) {
      update_entity_lag(rq, e);
      if (e.vlag > 0) {
        --rq.nr_running;
        rq.timeline.erase(t.id);
        avg_vruntime_sub(rq, e);
        e.vlag = 0;
        place_entity_66(rq, e, false);
        rq.timeline.insert(t.id, e.vruntime);
        avg_vruntime_add(rq, e);
        ++rq.nr_running;
      }
    }
    e.sched_delayed = false;
    e.start_runtime = t.sum_exec_ns;
    return;
  }
  e.load = task_load_weight(t.policy, t.nice);
  e.custom_slice = era612() && t.custom_slice_ns > 0;
  if (e.custom_slice) e.slice = std::clamp<int64_t>(t.custom_slice_ns, 100'000, 100'000'000);
  e.frame_cpu = cpu;
  if (rq.nr_running == 0) sync_cpu_load(cpu);
  update_curr_66(cpu);
  place_entity_66(rq, e, how == EnqueueKind::kNew);
  if (how == EnqueueKind::kWakeup) {
    e.start_runtime = t.sum_exec_ns;
    if (rq.idle_stamp != 0) {  // ttwu_do_activate()'s avg_idle sample
      const int64_t delta = ctx_->now() - rq.idle_stamp;
      const int64_t max = 2 * tun_.migration_cost;
      if (delta > max)
        rq.avg_idle = max;
      else
        update_avg(rq.avg_idle, delta);
      rq.idle_stamp = 0;
    }
  }
  account_enqueue(cpu, e);
  rq.timeline.insert(t.id, e.vruntime);
  avg_vruntime_add(rq, e);
}

void Cfs::dequeue_66(CpuId cpu, Task& t, DequeueKind how) {
  Entity& e = se_[t.id];
  RunQueue& rq = rq_[cpu];
  if (rq.prev == t.id) rq.prev = kNoTask;
  const bool sleep = how == DequeueKind::kSleep;
  update_curr_66(cpu);
  if (era612() && sleep && cfg_.feat.delay_dequeue && !entity_eligible(rq, e)) {
    // DELAY_DEQUEUE: a sleeper that is not eligible stays queued to burn off its
    // negative lag; it leaves when picked, or returns in place when woken.
    e.sched_delayed = true;
    if (rq.curr == t.id) {  // put_prev_entity() of a task that stays on the queue
      rq.curr = kNoTask;
      rq.timeline.insert(t.id, e.vruntime);
      avg_vruntime_add(rq, e);
    }
    return;
  }
  finish_dequeue_66(cpu, e, sleep || how == DequeueKind::kExit);
  if (rq.curr == t.id) rq.curr = kNoTask;
}

Task* Cfs::pick_next_66(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  for (;;) {
    if (rq.nr_running == 0 || rq.timeline.empty()) {
      rq.prev = kNoTask;
      return nullptr;
    }
    TaskId id = kNoTask;
    if (cfg_.feat.next_buddy && rq.next != kNoTask && entity_eligible(rq, se_[rq.next]))
      id = rq.next;
    if (id == kNoTask) id = pick_eevdf(rq, rq.prev);
    Entity& e = se_[id];
    if (e.sched_delayed) {  // picked while delayed: now it really leaves
      finish_dequeue_66(cpu, e, true);
      continue;
    }
    rq.prev = kNoTask;
    rq.timeline.erase(id);
    avg_vruntime_sub(rq, e);
    e.exec_start = ctx_->now();
    rq.curr = id;
    e.prev_sum_exec = e.task->sum_exec_ns;
    e.charged_exec = e.task->sum_exec_ns;
    e.vlag = e.deadline;  // the RUN_TO_PARITY mark: this slice is protected
    return e.task;
  }
}

void Cfs::put_prev_66(CpuId cpu, Task& prev) {
  RunQueue& rq = rq_[cpu];
  Entity& e = se_[prev.id];
  update_curr_66(cpu);
  rq.curr = kNoTask;
  rq.timeline.insert(prev.id, e.vruntime);
  avg_vruntime_add(rq, e);
  rq.prev = prev.id;  // still pick_eevdf's curr for this schedule()
}

void Cfs::task_tick_66(CpuId cpu, Task& curr) {
  if (rq_[cpu].curr != curr.id) return;
  update_curr_66(cpu);
}

// check_preempt_wakeup_fair(): preempt when the woken task is what pick_eevdf() would run
// now; 6.12's PREEMPT_SHORT first lifts RUN_TO_PARITY for a shorter-slice task that is
// eligible and due earlier (or when curr is no longer eligible).
void Cfs::check_preempt_66(CpuId cpu, Task& curr_task, Task& woken_task, const WakeInfo& how) {
  RunQueue& rq = rq_[cpu];
  Entity& curr = se_[curr_task.id];
  Entity& woken = se_[woken_task.id];
  if (cfg_.feat.next_buddy && how.kind != WakeKind::kFork) rq.next = woken_task.id;
  if (ctx_->resched_pending(cpu)) return;
  if (curr_task.policy == SchedPolicy::kIdle && woken_task.policy != SchedPolicy::kIdle) {
    ctx_->resched(cpu);
    return;
  }
  if (woken_task.policy != SchedPolicy::kOther || !cfg_.feat.wakeup_preempt) return;
  update_curr_66(cpu);
  if (era612() && cfg_.feat.preempt_short && woken.slice < curr.slice &&
      entity_eligible(rq, woken) &&
      (woken.deadline < curr.deadline || !entity_eligible(rq, curr)) && protect_slice(curr))
    curr.vlag = curr.deadline + 1;  // cancel_protect_slice()
  if (pick_eevdf(rq, curr_task.id) == woken_task.id) ctx_->resched(cpu);
}

// yield_task_fair(): the deadline moves one slice on, so others are picked first.
void Cfs::yield_66(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = se_[rq.curr];
  clear_buddies(rq, rq.curr);
  update_curr_66(cpu);
  e.deadline += calc_delta_fair_66(e.slice, e.load);
}

// select_idle_sibling(): the target if idle, else prev if idle and sharing its cache,
// else the first idle CPU of the target's cache domain after it.
CpuId Cfs::select_idle_sibling(const Task& p, CpuId prev, CpuId target) const {
  if (p.allowed_on(target) && ctx_->idle(target)) return target;
  const Machine& m = ctx_->machine();
  if (prev != target && m.same_llc(prev, target) && p.allowed_on(prev) && ctx_->idle(prev))
    return prev;
  // select_idle_cpu(): the first idle CPU of the cache domain after the target, wrapping.
  const CpuMask idle = llc_span_[target] & p.allowed & ctx_->idle_cpus();
  size_t c = idle._Find_next(static_cast<size_t>(target));
  if (c >= idle.size()) c = idle._Find_first();
  if (c < idle.size()) return static_cast<CpuId>(c);
  return p.allowed_on(target) ? target : prev;
}

// select_task_rq_fair() for a wake-up: wake_affine's WA_IDLE rules between the waker's CPU
// and prev, then select_idle_sibling() around the choice.
CpuId Cfs::select_wake_cpu_66(Task& t, CpuId prev, CpuId this_cpu, bool sync) {
  CpuId target = prev;
  if (t.allowed_on(this_cpu) && this_cpu != prev) {
    for (const Domain& sd : rq_[this_cpu].domains) {
      if (!sd.has(kSdWakeAffine) || !sd.span.test(static_cast<size_t>(prev))) continue;
      const Machine& m = ctx_->machine();
      if (ctx_->idle(this_cpu) && m.same_llc(this_cpu, prev))
        target = ctx_->idle(prev) ? prev : this_cpu;
      else if (sync && rq_[this_cpu].nr_running == 1)
        target = this_cpu;
      else
        target = prev;  // idle prev, or WA_WEIGHT, which needs PELT: prev
      break;
    }
  }
  return select_idle_sibling(t, prev, target);
}

// The load and the weighted vruntime sum match the queue; with EEVDF, lags add up to
// zero: sum of w_i (V - v_i) over the queue and curr lies within one W of 0 (V is rounded
// down).
std::string Cfs::check_invariants() const {
  for (CpuId cpu = 0; cpu < static_cast<CpuId>(rq_.size()); ++cpu) {
    const RunQueue& rq = rq_[cpu];
    int64_t load = 0, count = 0;
    for (TaskId id = rq.tasks_head; id != kNoTask; id = se_[id].list_next) {
      load += se_[id].load.weight;
      ++count;
    }
    if (load != rq.load.weight || count != rq.nr_running)
      return fmt::format("cfs: CPU {} counts {} tasks of weight {} but lists {} of weight {}", cpu,
                         rq.nr_running, rq.load.weight, count, load);
    if (!eevdf()) continue;
    Int128 sum = 0;
    int64_t w = 0;
    rq.timeline.for_each([&](TaskId id) {
      sum += static_cast<Int128>(se_[id].vruntime - rq.min_vruntime) * se_[id].load.weight;
      w += se_[id].load.weight;
    });
    if (sum != rq.avg_vruntime || w != rq.avg_load)
      return fmt::format("eevdf: CPU {}: the weighted vruntime sum drifted", cpu);
    const int64_t v = avg_vruntime(rq);
    Int128 lag = 0;
    int64_t total = 0;
    auto add = [&](const Entity& e) {
      lag += static_cast<Int128>(v - e.vruntime) * e.load.weight;
      total += e.load.weight;
    };
    rq.timeline.for_each([&](TaskId id) { add(se_[id]); });
    if (rq.curr != kNoTask && se_[rq.curr].on_rq) add(se_[rq.curr]);
    if (lag > 0 || lag <= -static_cast<Int128>(total) - 1)
      return fmt::format("eevdf: CPU {}: lags do not sum to zero", cpu);
  }
  return {};
}

}  // namespace schedlab::cfs
