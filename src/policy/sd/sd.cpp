// Staircase Deadline as 2.6.21-ck1's kernel/sched.c has it (sd.h gives the source):
// quotas per nice, the slot matrix, next_entitled_slot(), recalc_task_prio(), the
// rotations and the accounting in microseconds, on the shared arrays; wake-up placement
// and balancing are mainline's (policy/arrays/mainline_2622.h), as SD left them.
#include "policy/sd/sd.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "policy/arrays/mainline_2622.h"
#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {
namespace sd {

using arrays::kMaxRtPrio;

namespace {
uint64_t bit(int level) {
  return uint64_t{1} << level;
}
constexpr uint64_t kAllLevels = (uint64_t{1} << kLevels) - 1;
uint64_t from_level(int level) {
  return level >= kLevels ? 0 : kAllLevels & (kAllLevels << level);
}
}  // namespace

// sched_init(): row i starts full; every j = 1600 / (40 - i) steps of k from 0 to 1560,
// level 39 - k / 40 becomes a slot. So row i has 40 - i slots, the last always level 39.
uint64_t prio_matrix(int static_level) {
  const int step = kLevels * kLevels / (kLevels - static_level);
  uint64_t slots = 0;
  for (int k = 0; k <= kLevels * (kLevels - 1); k += step) slots |= bit(kLevels - 1 - k / kLevels);
  return slots;
}

StaircaseDeadline::StaircaseDeadline(const SdParams& p)
    : p_(p), balancer_(arrays::rules_2622(), arrays::domains_2622()) {}

void StaircaseDeadline::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  q_.attach(ctx, p_.cache_hot_time_ns);
  q_.best_from_bitmaps = true;  // SD's rq_best_prio()
  rot_.resize(static_cast<size_t>(ctx.cpus()));
  // sched_init_smp(): rr_interval *= 1 + ilog2(num_online_cpus())
  rr_interval_ms_ = p_.rr_interval_ms *
                    (p_.scale_rr_interval ? std::bit_width(static_cast<unsigned>(ctx.cpus())) : 1);
  balancer_.attach(ctx, q_);
}

// rr_quota(): nice -6..0 get rr_interval; below, nice^2 / 40 of it (nice -10: 2.5x,
// nice -20: 10x); above 0, half of it (at least 1 ms). In microseconds.
int64_t StaircaseDeadline::rr_quota_us(const Entity& e) const {
  const int64_t nice = e.static_level - 20;
  int64_t rr = rr_interval_ms_;
  if (nice < -6)
    rr = rr * nice * nice / 40;
  else if (nice > 0)
    rr = std::max<int64_t>(rr / 2, 1);
  return rr * 1000;
}

void StaircaseDeadline::set_static(Entity& e) {
  // SCHED_IDLE (2.6.23, after SD): nice 19 (a judgement; -ck's SCHED_IDLEPRIO is not SD's).
  e.static_level = e.task->policy == SchedPolicy::kIdle ? kLevels - 1 : e.task->nice + 20;
  e.batch = e.task->policy == SchedPolicy::kBatch;
}

// set_quota() and set_load_weight(): the weight is task_timeslice() in ms, the quota over
// every level of the row, times PRIO_RANGE. Called only while the task is off its queue
// (task_new, enqueue), so no CPU's load holds its old weight.
void StaircaseDeadline::set_quota(Entity& e) {
  e.quota = rr_quota_us(e);
  e.load_weight = e.quota * (kLevels - e.static_level) / 1000 * kLevels;
}

void StaircaseDeadline::reset_prio_levels(CpuId cpu) {
  Rotation& r = rot_[cpu];
  r.best_static = {kLevels - 1, kLevels - 1};
  r.prio_level.fill(0);
}

// task_new_array(): a fresh entitlement on that array of this CPU.
void StaircaseDeadline::new_array(CpuId cpu, Entity& e, int array) {
  e.bitmap = 0;
  e.rotation = rot_[cpu].rotation;
  e.time_slice = e.quota;
  e.home_cpu = cpu;
  e.home_array = array;
  e.first_time_slice = false;
}

// queue_expired(): the expired array, on the first slot (SCHED_BATCH: its static level).
void StaircaseDeadline::queue_expired(CpuId cpu, Entity& e) {
  const int expired = q_.rq(cpu).active ^ 1;
  new_array(cpu, e, expired);
  e.prio = kMaxRtPrio + (e.batch ? e.static_level : std::countr_zero(prio_matrix(e.static_level)));
  int& best = rot_[cpu].best_static[static_cast<size_t>(expired)];
  best = std::min(best, e.static_level);
}

// next_entitled_slot(): straight to expiry if a better static priority has expired; else
// the first slot of the row not used this rotation, at or below where this nice level,
// and every better one queued since the best on the active array, have got to. SCHED_BATCH
// takes any level from its static one down.
int StaircaseDeadline::next_entitled_slot(CpuId cpu, Entity& e) {
  Rotation& r = rot_[cpu];
  const auto active = static_cast<size_t>(q_.rq(cpu).active);
  if (e.static_level > r.best_static[active ^ 1]) return kLevels;
  const int minprio = p_.interactive ? 0 : r.prio_level[static_cast<size_t>(e.static_level)];
  int search = 0;
  int& best = r.best_static[active];
  if (e.static_level < best) {
    if (!e.batch) best = e.static_level;
  } else {
    search = minprio;
    if (e.static_level > best)  // bounded by where every better nice queued has got to
      for (int s = best; s <= e.static_level; ++s)
        search = std::max(search, r.prio_level[static_cast<size_t>(s)]);
  }
  if (e.batch) search = std::max(search, e.static_level);
  const uint64_t row = e.batch ? kAllLevels : prio_matrix(e.static_level);
  const uint64_t free = row & ~e.bitmap & from_level(search);
  return free ? std::countr_zero(free) : kLevels;
}

// update_if_moved(): a task queued on another CPU than its array's keeps its standing
// (the same-named array, its level and quota) if it was current in that CPU's rotation,
// and starts afresh otherwise.
void StaircaseDeadline::update_if_moved(CpuId cpu, Entity& e) {
  if (e.home_cpu == kNoCpu || e.home_cpu == cpu) return;
  if (e.rotation == rot_[e.home_cpu].rotation) {
    const int active = q_.rq(cpu).active;
    e.home_array = e.home_array == q_.rq(e.home_cpu).active ? active : active ^ 1;
    e.home_cpu = cpu;
    e.rotation = rot_[cpu].rotation;
  } else {
    e.rotation = 0;
  }
}

// recalc_task_prio(): where a task is queued. Same rotation, on the active array: it
// keeps its level while it has quota, else takes a fresh quota on its next slot; on the
// expired array it stays expired; otherwise it starts a fresh entitlement.
void StaircaseDeadline::recalc_task_prio(CpuId cpu, Entity& e) {
  update_if_moved(cpu, e);
  const int active = q_.rq(cpu).active;
  const bool current = e.rotation == rot_[cpu].rotation && e.home_cpu == cpu;
  if (current && e.home_array == active) {
    if (e.time_slice > 0) return;
    e.time_slice = e.quota;
  } else if (current && e.home_array == (active ^ 1)) {
    queue_expired(cpu, e);
    return;
  } else {
    new_array(cpu, e, active);
  }
  const int level = next_entitled_slot(cpu, e);
  if (level >= kLevels) {
    queue_expired(cpu, e);
    return;
  }
  e.prio = kMaxRtPrio + level;
  e.bitmap |= bit(level);
}

// enqueue_task(): into the list recalc_task_prio() chose.
void StaircaseDeadline::queue_task(CpuId cpu, Entity& e) {
  recalc_task_prio(cpu, e);
  q_.enqueue(cpu, e, e.home_array);
}

// task_expired_entitlement(): the quota of this level is used up; requeued where
// recalc_task_prio() says, with what it overran taken off the new quota.
void StaircaseDeadline::expired_entitlement(CpuId cpu, Entity& e) {
  e.first_time_slice = false;
  const int64_t overrun = e.time_slice;
  q_.dequeue(e);
  queue_task(cpu, e);
  e.time_slice += overrun;
}

// update_cpu_clock(): the time since the last charge, in whole microseconds; a tick
// trusts at most two jiffies (else charges one), a switch at most one (else 1 us).
void StaircaseDeadline::charge(Entity& e, bool tick) {
  const int64_t now = ctx_->now();
  const int64_t jiffy = ctx_->tick_ns();
  int64_t ran = now - e.clock_at;
  if (tick && (ran > 2 * jiffy || ran < 0)) ran = jiffy;
  if (!tick && (ran > jiffy || ran < 1)) ran = 1000;
  e.time_slice -= ran / 1000;
  e.clock_at = now;
}

// sched_fork(): the child is a copy of the parent (its rotation, array, level and slots);
// a parent with quota left halves it and the child gets that half (at least 1 us) as a
// first time slice; one with none leaves the child none.
void StaircaseDeadline::task_new(Task& t, const Task* parent) {
  q_.grow(t.id);
  Entity& e = q_[t.id];
  e = Entity{};
  e.task = &t;
  set_static(e);
  set_quota(e);
  e.prio = kMaxRtPrio + std::countr_zero(prio_matrix(e.static_level));
  if (!parent || !q_.known(parent->id)) return;
  Entity& pe = q_[parent->id];
  e.parent = parent->id;
  e.prio = pe.prio;
  e.bitmap = pe.bitmap;
  e.rotation = pe.rotation;
  e.home_cpu = pe.home_cpu;
  e.home_array = pe.home_array;
  if (pe.time_slice > 0) {
    pe.time_slice /= 2;
    e.time_slice = pe.time_slice ? pe.time_slice : 1;
    e.first_time_slice = true;
  }
}

CpuId StaircaseDeadline::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  return arrays::select_cpu_2622(balancer_, q_, t, prev, how);
}

// activate_task() sets the quota (and weight) again; pull_task() only requeues.
void StaircaseDeadline::enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) {
  Entity& e = q_[t.id];
  if (how.kind == EnqueueKind::kRequeue) set_static(e);  // nice or policy changed
  if (how.kind != EnqueueKind::kMigrate) set_quota(e);
  queue_task(cpu, e);
  q_.count_in(cpu, e);
}

void StaircaseDeadline::dequeue(CpuId cpu, Task& t, DequeueKind) {
  Entity& e = q_[t.id];
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr == t.id) {  // blocking or exiting in schedule()
    charge(e, false);
    e.last_ran = ctx_->now();
    rq.curr = kNoTask;
  }
  if (e.array >= 0) q_.deactivate(e);
}

// task_preempts_curr(): a woken task on the active array on a better level (the idle CPU
// is the engine's); not a sync wake-up onto the waker's CPU, nor a child on its parent's.
void StaircaseDeadline::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) {
  const Entity& w = q_[woken.id];
  if (w.array != q_.rq(cpu).active) return;
  if (arrays::wakeup_preempts_2622(cpu, q_[curr.id].prio, w.prio, how)) ctx_->resched(cpu);
}

// schedule() and next_dynamic_task(): going idle starts a new rotation; an empty active
// array swaps with the expired one (a major rotation); a head that ran out of quota
// before a tick saw it is requeued first. The picked task's nice level has reached its
// level.
Task* StaircaseDeadline::pick_next(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  Rotation& r = rot_[cpu];
  if (rq.nr_running == 0) {
    reset_prio_levels(cpu);
    ++r.rotation;
    return nullptr;
  }
  TaskId id = kNoTask;
  while (true) {
    if (rq.arrays[rq.active].nr_active == 0) {
      rq.active ^= 1;
      ++r.rotation;
      reset_prio_levels(cpu);
    }
    id = q_.first_id(cpu);
    if (q_[id].time_slice > 0) break;
    expired_entitlement(cpu, q_[id]);
  }
  Entity& next = q_[id];
  next.rotation = r.rotation;
  int& best = r.best_static[static_cast<size_t>(rq.active)];
  best = std::min(best, next.static_level);
  int& reached = r.prio_level[static_cast<size_t>(next.static_level)];
  reached = std::max(reached, next.prio - kMaxRtPrio);
  next.clock_at = ctx_->now();
  rq.curr = id;
  return &ctx_->task(id);  // from the id: not a load after the entity's
}

void StaircaseDeadline::put_prev(CpuId cpu, Task& prev) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr != prev.id) return;
  Entity& e = q_[prev.id];
  charge(e, false);
  e.last_ran = ctx_->now();
  rq.curr = kNoTask;  // it stays where it is in its list
}

// task_running_tick(): out of quota, the task is requeued and the CPU reschedules.
void StaircaseDeadline::task_tick(CpuId cpu, Task& curr) {
  if (q_.rq(cpu).curr != curr.id) return;
  Entity& e = q_[curr.id];
  charge(e, true);
  if (e.time_slice > 0) return;
  ctx_->resched(cpu);
  expired_entitlement(cpu, e);
}

// sys_sched_yield(): with other tasks on the CPU, to the expired array (queue_expired(),
// a fresh entitlement on the first slot); alone, nothing.
void StaircaseDeadline::yield(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = q_[rq.curr];
  q_.dequeue(e);
  queue_expired(cpu, e);
  q_.enqueue(cpu, e, e.home_array);
}

// sched_exit(): what a child left of its first time slice returns to its parent on the
// same CPU, up to the parent's quota.
void StaircaseDeadline::task_dead(Task& t) {
  const Entity& e = q_[t.id];
  if (!e.first_time_slice || e.parent == kNoTask || !q_.known(e.parent)) return;
  Entity& pe = q_[e.parent];
  if (!pe.task->runnable || pe.task->cpu != t.cpu) return;
  pe.time_slice = std::min(pe.time_slice + e.time_slice, pe.quota);
}

std::string StaircaseDeadline::check_invariants() const {
  if (std::string broken = q_.check("sd"); !broken.empty()) return broken;
  for (CpuId cpu = 0; cpu < static_cast<CpuId>(rot_.size()); ++cpu) {
    const arrays::Queue& rq = q_.rq(cpu);
    for (int a = 0; a < 2; ++a)
      for (int level = 0; level < kLevels; ++level)
        for (TaskId id = rq.arrays[a].queue[level].head; id != kNoTask; id = q_[id].links.next) {
          const Entity& e = q_[id];
          const std::string& name = e.task->name;
          if (e.home_cpu != cpu || e.home_array != a)
            return fmt::format("sd: {} is listed away from its array", name);
          const uint64_t row = e.batch ? from_level(e.static_level) : prio_matrix(e.static_level);
          // On the active array a task may sit outside its row: a forked child keeps its
          // parent's level, and a reniced task its own, while its quota lasts.
          if (a != rq.active && level != std::countr_zero(row))
            return fmt::format("sd: expired {} is not on its first slot", name);
        }
  }
  return {};
}

}  // namespace sd

std::vector<PolicyInfo> sd_policies() {
  return {declare_policy<sd::SdParams>(
      "sd",
      "Staircase Deadline of 2.6.21 (as 2.6.21-ck1 carries it; 0.46 not found): quotas per "
      "nice on a rotating staircase of slots, no bonus",
      sd::SdParams::table(), {}, [](const sd::SdParams& p) -> std::unique_ptr<SchedClass> {
        if (p.rr_interval_ms <= 0) throw InputError("", "rr_interval_ms", "must be at least 1 ms");
        return std::make_unique<sd::StaircaseDeadline>(p);
      })};
}

}  // namespace schedlab
