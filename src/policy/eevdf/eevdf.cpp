// EEVDF of 6.6 and 6.12: kernel/sched/fair.c's entity placement, eligibility and pick,
// delayed dequeue, wake-up preemption, yield and wake-up placement. See eevdf.h.
#include "policy/eevdf/eevdf.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace schedlab::eevdf {

using fair::kNice0Load;

namespace {

// __calc_delta() of 6.x (calc_delta_fair): delta * 1024 / weight through the 32-bit inverse,
// shifting the factor down while it does not fit in 32 bits.
int64_t calc_delta_6x(int64_t delta, const fair::LoadWeight& lw) {
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

// a / b as C++ divides (towards zero), in 64 bits when a fits there, as it nearly always
// does (the 128-bit division's library call was 1.7 % of a run); b > 0.
Int128 divide(Int128 a, int64_t b) {
  if (a >= std::numeric_limits<int64_t>::min() && a <= std::numeric_limits<int64_t>::max())
    return static_cast<int64_t>(a) / b;
  return a / b;
}

// 2.6.32's balancer (as 6.x kept its shape) without cpu_load[] indices.
balance::Rules balancer_rules(const EevdfParams& p) {
  return {.lb_bias = false,
          .group_power = balance::GroupPower::kSumOfCpus,
          .round_capacity = true,
          .prefer_sibling = true,
          .nr_migrate = p.sched_nr_migrate,
          .newidle_rate_limit = true,
          .overload_gate = true,
          .hot_buddy_rq = balance::HotBuddyRq::kDstRq,
          .migration_cost_ns = p.sched_migration_cost_ns};
}

}  // namespace

Eevdf::Eevdf(const EevdfParams& p, const Release& release,
             std::vector<balance::DomainTemplate> levels)
    : p_(p), rel_(release), balancer_(balancer_rules(p), std::move(levels)) {}

void Eevdf::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  const int n = ctx.cpus();
  llc_span_.assign(static_cast<size_t>(n), CpuMask{});
  for (CpuId a = 0; a < n; ++a)
    for (CpuId b = 0; b < n; ++b)
      if (ctx.machine().same_llc(a, b)) llc_span_[a].set(static_cast<size_t>(b));
  // sched_update_scaling(): the base slice grows with 1 + ilog2(min(ncpus, 8)).
  base_slice_ =
      p_.sched_base_slice_ns * fair::tunable_factor(p_.sched_tunable_scaling, std::min(n, 8));
  q_.attach(ctx);
  q_.set_cache_hot(p_.CACHE_HOT_BUDDY, p_.sched_migration_cost_ns);
  balancer_.attach(ctx, q_);
}

// ---------------------------------------------------------------- V and eligibility

void Eevdf::avg_vruntime_add(RunQueue& rq, const Entity& e) {
  rq.avg_vruntime += static_cast<Int128>(e.vruntime - rq.min_vruntime) * e.load.weight;
  rq.avg_load += e.load.weight;
}

void Eevdf::avg_vruntime_sub(RunQueue& rq, const Entity& e) {
  rq.avg_vruntime -= static_cast<Int128>(e.vruntime - rq.min_vruntime) * e.load.weight;
  rq.avg_load -= e.load.weight;
}

// The weighted sum of (vruntime - min_vruntime) and the total weight, the current task
// included: V = min_vruntime + sum / weight.
Eevdf::VruntimeSums Eevdf::vruntime_sums(const RunQueue& rq) const {
  VruntimeSums s{rq.avg_vruntime, rq.avg_load};
  if (rq.curr != kNoTask && q_[rq.curr].on_rq) {
    const Entity& c = q_[rq.curr];
    s.sum += static_cast<Int128>(c.vruntime - rq.min_vruntime) * c.load.weight;
    s.load += c.load.weight;
  }
  return s;
}

// avg_vruntime(): V, the weighted mean of the queued vruntimes with the current task's,
// rounded towards minus infinity.
int64_t Eevdf::avg_vruntime(const RunQueue& rq) const {
  auto [avg, load] = vruntime_sums(rq);
  if (load) {
    if (avg < 0) avg -= load - 1;
    avg = divide(avg, load);
  }
  return rq.min_vruntime + static_cast<int64_t>(avg);
}

// entity_eligible(): V >= vruntime, without dividing.
bool Eevdf::entity_eligible(const RunQueue& rq, const Entity& e) const {
  const auto [avg, load] = vruntime_sums(rq);
  return avg >= static_cast<Int128>(e.vruntime - rq.min_vruntime) * load;
}

// update_min_vruntime(): the smaller of curr's and the leftmost's vruntime, never back;
// the sum kept relative to it moves along.
void Eevdf::update_min_vruntime(RunQueue& rq) {
  int64_t v = rq.min_vruntime;
  const bool have_curr = rq.curr != kNoTask && q_[rq.curr].on_rq;
  if (have_curr) v = q_[rq.curr].vruntime;
  if (!rq.deadlines.empty()) {
    const int64_t left = rq.deadlines.leftmost_vruntime();
    v = have_curr ? std::min(v, left) : left;
  }
  const int64_t delta = v - rq.min_vruntime;
  if (delta > 0) {
    rq.avg_vruntime -= static_cast<Int128>(rq.avg_load) * delta;
    rq.min_vruntime = v;
  }
}

// update_deadline(): a slice used up earns the next one, and a reschedule.
void Eevdf::update_deadline(CpuId cpu, Entity& e) {
  RunQueue& rq = q_.rq(cpu);
  if (e.vruntime - e.deadline < 0) return;
  if (!e.custom_slice) e.slice = base_slice_;
  e.deadline = e.vruntime + calc_delta_6x(e.slice, e.load);
  if (rq.nr_running > 1) {
    ctx_->resched(cpu);
    q_.clear_buddies(rq, e.task->id);
  }
}

void Eevdf::update_curr(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask) return;
  Entity& e = q_[rq.curr];
  const int64_t delta = q_.charge(e);
  if (delta == 0) return;
  e.vruntime += calc_delta_6x(delta, e.load);
  update_deadline(cpu, e);
  update_min_vruntime(rq);
}

// update_entity_lag(): vlag = V - vruntime, within two slices (at least a tick) of
// virtual time.
void Eevdf::update_entity_lag(const RunQueue& rq, Entity& e) {
  const int64_t lag = avg_vruntime(rq) - e.vruntime;
  const int64_t limit = calc_delta_6x(std::max(2 * e.slice, ctx_->tick_ns()), e.load);
  e.vlag = std::clamp(lag, -limit, limit);
}

// place_entity(): at V less the entity's lag, scaled so that adding it does not move V
// (PLACE_LAG); the first slice of a new task is halved (PLACE_DEADLINE_INITIAL).
void Eevdf::place_entity(RunQueue& rq, Entity& e, bool initial) {
  const int64_t vruntime = avg_vruntime(rq);
  int64_t lag = 0;
  if (!e.custom_slice) e.slice = base_slice_;
  int64_t vslice = calc_delta_6x(e.slice, e.load);
  if (p_.PLACE_LAG && rq.nr_running) {
    int64_t load = rq.avg_load;
    if (rq.curr != kNoTask && q_[rq.curr].on_rq) load += q_[rq.curr].load.weight;
    Int128 scaled = static_cast<Int128>(e.vlag) * (load + e.load.weight);
    if (load == 0) load = 1;
    lag = static_cast<int64_t>(divide(scaled, load));
  }
  e.vruntime = vruntime - lag;
  if (p_.PLACE_REL_DEADLINE && e.rel_deadline) {  // 6.12: keep the relative deadline
    e.deadline += e.vruntime;
    e.rel_deadline = false;
    return;
  }
  if (p_.PLACE_DEADLINE_INITIAL && initial) vslice /= 2;
  e.deadline = e.vruntime + vslice;
}

// pick_eevdf(): the eligible entity with the earliest deadline; `curr` (running, or just
// put back) first while RUN_TO_PARITY protects its slice; the leftmost if none is
// eligible.
TaskId Eevdf::pick_eevdf(RunQueue& rq, TaskId curr) {
  if (curr != kNoTask && (!q_[curr].on_rq || !entity_eligible(rq, q_[curr]))) curr = kNoTask;
  if (p_.RUN_TO_PARITY && curr != kNoTask && protect_slice(q_[curr])) return curr;
  // entity_eligible() of a vruntime, with the sums taken once: (v - min_vruntime) x load
  // <= sum holds exactly when v - min_vruntime <= floor(sum / load), one division for the
  // pick instead of a 128-bit product per entity or block it looks at.
  const VruntimeSums sums = vruntime_sums(rq);
  const int64_t min_vruntime = rq.min_vruntime;
  int64_t most = sums.sum >= 0 ? std::numeric_limits<int64_t>::max()
                               : std::numeric_limits<int64_t>::min();  // load 0: all or none
  if (sums.load > 0) {
    Int128 q = divide(sums.sum, sums.load);
    if (q * sums.load > sums.sum) --q;  // towards minus infinity
    most = static_cast<int64_t>(q);     // a weighted mean of int64 offsets: it fits
  }
  const auto eligible = [most, min_vruntime](int64_t vruntime) {
    return vruntime - min_vruntime <= most;
  };
  const TaskId best = rq.deadlines.pick_without(tree_, curr, eligible);
  if (curr != kNoTask && (best == kNoTask || q_[curr].deadline < q_[best].deadline)) return curr;
  return best == kNoTask ? rq.deadlines.leftmost() : best;
}

// ---------------------------------------------------------------- queueing

// Into and out of the timeline: the deadline queue, ordered by vruntime (its leftmost is
// the kernel's) and picking by deadline. The balancer walks the task list instead.
void Eevdf::timeline_insert(RunQueue& rq, const Entity& e) {
  rq.deadlines.insert(tree_, e.task->id, e.vruntime, e.deadline);
}

void Eevdf::timeline_erase(RunQueue& rq, TaskId id) {
  rq.deadlines.erase(tree_, id, q_[id].vruntime);
}

// The tail of dequeue_entity(): lag, relative deadline, out of the timeline and the load.
void Eevdf::finish_dequeue(CpuId cpu, Entity& e, bool sleep) {
  RunQueue& rq = q_.rq(cpu);
  const TaskId id = e.task->id;
  q_.clear_buddies(rq, id);
  update_entity_lag(rq, e);
  if (p_.PLACE_REL_DEADLINE && !sleep) {
    e.deadline -= e.vruntime;
    e.rel_deadline = true;
  }
  if (id != rq.curr) {
    timeline_erase(rq, id);
    avg_vruntime_sub(rq, e);
  }
  q_.account_dequeue(cpu, e);
  update_min_vruntime(rq);
  if (e.sched_delayed) {  // finish_delayed_dequeue_entity()
    e.sched_delayed = false;
    if (p_.DELAY_ZERO && e.vlag > 0) e.vlag = 0;
  }
}

// requeue_delayed_entity(): a delayed sleeper woken while still queued stays where it
// is; with DELAY_ZERO a positive lag is dropped and it is placed again.
void Eevdf::requeue_delayed_entity(CpuId cpu, Entity& e) {
  RunQueue& rq = q_.rq(cpu);
  const TaskId id = e.task->id;
  update_curr(cpu);
  if (p_.DELAY_ZERO) {
    update_entity_lag(rq, e);
    if (e.vlag > 0) {
      --rq.nr_running;
      timeline_erase(rq, id);
      avg_vruntime_sub(rq, e);
      e.vlag = 0;
      place_entity(rq, e, false);
      timeline_insert(rq, e);
      avg_vruntime_add(rq, e);
      ++rq.nr_running;
    }
  }
  e.sched_delayed = false;
}

void Eevdf::task_new(Task& t, const Task*) {
  q_.grow(t.id);
  tree_.grow(t.id);
  Entity& e = q_[t.id];
  const bool known = e.task != nullptr;  // back from another class: keep its lag
  e.task = &t;
  e.load = fair::task_load_weight(t.policy, t.nice);
  e.charged_exec = t.sum_exec_ns;
  if (known) return;
  e.prev_sum_exec = t.sum_exec_ns;
  e.exec_start = 0;
  e.vlag = 0;
  e.slice = base_slice_;
  e.sched_delayed = e.rel_deadline = false;
}

void Eevdf::enqueue(CpuId cpu, Task& t, const EnqueueFlags& flags) {
  Entity& e = q_[t.id];
  RunQueue& rq = q_.rq(cpu);
  if (rq.prev == t.id) rq.prev = kNoTask;
  if (e.sched_delayed && flags.kind == EnqueueKind::kWakeup) {
    requeue_delayed_entity(cpu, e);
    return;
  }
  e.load = fair::task_load_weight(t.policy, t.nice);
  e.custom_slice = rel_.custom_slices && t.custom_slice_ns > 0;
  if (e.custom_slice) e.slice = std::clamp<int64_t>(t.custom_slice_ns, 100'000, 100'000'000);
  e.frame_cpu = cpu;
  if (rq.nr_running == 0) balancer_.sync_cpu_load(cpu);
  update_curr(cpu);
  place_entity(rq, e, flags.kind == EnqueueKind::kNew);
  if (flags.kind == EnqueueKind::kWakeup) balancer_.note_wakeup(cpu);
  q_.account_enqueue(cpu, e);
  balancer_.note_enqueued(cpu);
  timeline_insert(rq, e);
  avg_vruntime_add(rq, e);
}

void Eevdf::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  Entity& e = q_[t.id];
  RunQueue& rq = q_.rq(cpu);
  if (rq.prev == t.id) rq.prev = kNoTask;
  const bool sleep = how == DequeueKind::kSleep;
  update_curr(cpu);
  if (sleep && p_.DELAY_DEQUEUE && !entity_eligible(rq, e)) {
    // DELAY_DEQUEUE: a sleeper that is not eligible stays queued to burn off its
    // negative lag; it leaves when picked, or returns in place when woken.
    e.sched_delayed = true;
    if (rq.curr == t.id) {  // put_prev_entity() of a task that stays on the queue
      rq.curr = kNoTask;
      timeline_insert(rq, e);
      avg_vruntime_add(rq, e);
    }
    return;
  }
  finish_dequeue(cpu, e, sleep || how == DequeueKind::kExit);
  if (rq.curr == t.id) rq.curr = kNoTask;
}

// ---------------------------------------------------------------- picking

Task* Eevdf::pick_next(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  for (;;) {
    if (rq.nr_running == 0 || rq.deadlines.empty()) {
      rq.prev = kNoTask;
      return nullptr;
    }
    TaskId id = kNoTask;
    if (p_.NEXT_BUDDY && rq.next != kNoTask && entity_eligible(rq, q_[rq.next])) id = rq.next;
    if (id == kNoTask) id = pick_eevdf(rq, rq.prev);
    Entity& e = q_[id];
    if (e.sched_delayed) {  // picked while delayed: now it really leaves
      finish_dequeue(cpu, e, true);
      continue;
    }
    rq.prev = kNoTask;
    timeline_erase(rq, id);
    avg_vruntime_sub(rq, e);
    q_.start_running(cpu, e);
    e.vlag = e.deadline;  // the RUN_TO_PARITY mark: this slice is protected
    return &ctx_->task(id);
  }
}

void Eevdf::put_prev(CpuId cpu, Task& prev) {
  RunQueue& rq = q_.rq(cpu);
  Entity& e = q_[prev.id];
  update_curr(cpu);
  rq.curr = kNoTask;
  timeline_insert(rq, e);
  avg_vruntime_add(rq, e);
  rq.prev = prev.id;  // still pick_eevdf's curr for this schedule()
}

void Eevdf::task_tick(CpuId cpu, Task& curr) {
  if (q_.rq(cpu).curr != curr.id) return;
  update_curr(cpu);
}

// check_preempt_wakeup_fair(): preempt when the woken task is what pick_eevdf() would run
// now; 6.12's PREEMPT_SHORT first lifts RUN_TO_PARITY for a shorter-slice task that is
// eligible and due earlier (or when curr is no longer eligible).
void Eevdf::check_preempt(CpuId cpu, Task& curr_task, Task& woken_task, const WakeInfo& how) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr != curr_task.id || &curr_task == &woken_task) return;
  Entity& curr = q_[curr_task.id];
  Entity& woken = q_[woken_task.id];
  if (p_.NEXT_BUDDY && how.kind != WakeKind::kFork) rq.next = woken_task.id;
  if (ctx_->resched_pending(cpu)) return;
  if (curr_task.policy == SchedPolicy::kIdle && woken_task.policy != SchedPolicy::kIdle) {
    ctx_->resched(cpu);
    return;
  }
  if (woken_task.policy != SchedPolicy::kOther || !p_.WAKEUP_PREEMPTION) return;
  update_curr(cpu);
  if (p_.PREEMPT_SHORT && woken.slice < curr.slice && entity_eligible(rq, woken) &&
      (woken.deadline < curr.deadline || !entity_eligible(rq, curr)) && protect_slice(curr))
    curr.vlag = curr.deadline + 1;  // cancel_protect_slice()
  if (pick_eevdf(rq, curr_task.id) == woken_task.id) ctx_->resched(cpu);
}

// yield_task_fair(): the deadline moves one slice on, so others are picked first.
void Eevdf::yield(CpuId cpu) {
  RunQueue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = q_[rq.curr];
  q_.clear_buddies(rq, rq.curr);
  update_curr(cpu);
  e.deadline += calc_delta_6x(e.slice, e.load);
}

// ---------------------------------------------------------------- choosing a CPU

CpuId Eevdf::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  CpuId cpu = prev;
  switch (how.kind) {
    case WakeKind::kFork:
      cpu = balancer_.balance_fork(t, how.waker_cpu == kNoCpu ? prev : how.waker_cpu);
      break;
    case WakeKind::kWakeup:
      if (q_[t.id].sched_delayed) return q_[t.id].frame_cpu;  // still queued there
      cpu = select_wake_cpu(t, prev, how.waker_cpu == kNoCpu ? prev : how.waker_cpu, how.sync);
      break;
    case WakeKind::kMigrate:  // set_cpus_allowed_ptr(): any allowed CPU
      cpu = static_cast<CpuId>(t.allowed.find_first());
      break;
  }
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed.find_first());
  return cpu;
}

// select_idle_sibling(): the target if idle, else prev if idle and sharing its cache,
// else the first idle CPU of the target's cache domain after it.
CpuId Eevdf::select_idle_sibling(const Task& p, CpuId prev, CpuId target) const {
  if (p.allowed_on(target) && ctx_->idle(target)) return target;
  const Machine& m = ctx_->machine();
  if (prev != target && m.same_llc(prev, target) && p.allowed_on(prev) && ctx_->idle(prev))
    return prev;
  // select_idle_cpu(): the first idle CPU of the cache domain after the target, wrapping.
  const CpuMask idle = llc_span_[target] & p.allowed & ctx_->idle_cpus();
  size_t c = idle.find_next(static_cast<size_t>(target));
  if (c >= idle.size()) c = idle.find_first();
  if (c < idle.size()) return static_cast<CpuId>(c);
  return p.allowed_on(target) ? target : prev;
}

// select_task_rq_fair() for a wake-up: wake_affine's WA_IDLE rules between the waker's CPU
// and prev, then select_idle_sibling() around the choice.
CpuId Eevdf::select_wake_cpu(Task& t, CpuId prev, CpuId this_cpu, bool sync) {
  CpuId target = prev;
  if (t.allowed_on(this_cpu) && this_cpu != prev) {
    for (const balance::Domain& sd : balancer_.domains(this_cpu)) {
      if (!sd.has(balance::kSdWakeAffine) || !sd.span.test(static_cast<size_t>(prev))) continue;
      const Machine& m = ctx_->machine();
      if (ctx_->idle(this_cpu) && m.same_llc(this_cpu, prev))
        target = ctx_->idle(prev) ? prev : this_cpu;
      else if (sync && q_.rq(this_cpu).nr_running == 1)
        target = this_cpu;
      else
        target = prev;  // idle prev, or WA_WEIGHT, which needs PELT: prev
      break;
    }
  }
  return select_idle_sibling(t, prev, target);
}

// The load and the weighted vruntime sum match the queue, and lags add up to zero: the
// sum of w_i (V - v_i) over the queue and curr lies within one W of 0 (V is rounded down).
std::string Eevdf::check_invariants() const {
  if (std::string broken = q_.check_load(); !broken.empty()) return broken;
  for (CpuId cpu = 0; cpu < q_.cpus(); ++cpu) {
    const RunQueue& rq = q_.rq(cpu);
    Int128 sum = 0;
    int64_t w = 0;
    bool all_queued = true;
    rq.deadlines.for_each(tree_, [&](TaskId id) {
      sum += static_cast<Int128>(q_[id].vruntime - rq.min_vruntime) * q_[id].load.weight;
      w += q_[id].load.weight;
      all_queued = all_queued && q_[id].on_rq && id != rq.curr;
    });
    if (sum != rq.avg_vruntime || w != rq.avg_load)
      return fmt::format("eevdf: CPU {}: the weighted vruntime sum drifted", cpu);
    // Every queued entity but the running one is in the timeline.
    const bool curr_queued = rq.curr != kNoTask && q_[rq.curr].on_rq;
    if (!rq.deadlines.consistent(tree_) || !all_queued ||
        static_cast<int>(rq.deadlines.size()) != rq.nr_running - (curr_queued ? 1 : 0))
      return fmt::format("eevdf: CPU {}: the timeline does not match the queue", cpu);
    const int64_t v = avg_vruntime(rq);
    Int128 lag = 0;
    int64_t total = 0;
    auto add = [&](const Entity& e) {
      lag += static_cast<Int128>(v - e.vruntime) * e.load.weight;
      total += e.load.weight;
    };
    rq.deadlines.for_each(tree_, [&](TaskId id) { add(q_[id]); });
    if (rq.curr != kNoTask && q_[rq.curr].on_rq) add(q_[rq.curr]);
    if (lag > 0 || lag <= -static_cast<Int128>(total) - 1)
      return fmt::format("eevdf: CPU {}: lags do not sum to zero", cpu);
  }
  return {};
}

}  // namespace schedlab::eevdf
