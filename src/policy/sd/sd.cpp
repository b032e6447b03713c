// Staircase Deadline 0.46 on one CPU: slots, quotas, minor and major rotations, on the
// shared arrays; placement and balancing are mainline's (policy/arrays/mainline_2622.h).
// See sd.h for the design and the judgement calls.
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
}  // namespace

// Static level k (nice k - 20) gets m = 40 - k slots, spread evenly so that the last is
// level 39: slot j when floor((j + 1) m / 40) steps up. Nice 0 gets every odd level.
uint64_t prio_matrix(int static_level) {
  const int slots = kLevels - static_level;
  uint64_t mask = 0;
  for (int j = 0; j < kLevels; ++j)
    if ((j + 1) * slots / kLevels > j * slots / kLevels) mask |= bit(j);
  return mask;
}

StaircaseDeadline::StaircaseDeadline(const SdParams& p)
    : p_(p), balancer_(arrays::rules_2622(), arrays::domains_2622()) {}

void StaircaseDeadline::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  q_.attach(ctx, p_.cache_hot_time_ns);
  rot_.resize(static_cast<size_t>(ctx.cpus()));
  // 1 + ilog2(CPUs)
  const int64_t scale =
      p_.scale_rr_interval ? std::bit_width(static_cast<unsigned>(ctx.cpus())) : 1;
  quota_ = p_.rr_interval_ms * 1'000'000 * scale;
  balancer_.attach(ctx, q_);
}

void StaircaseDeadline::set_static(Entity& e) {
  e.static_level = e.task->policy == SchedPolicy::kIdle ? kLevels - 1 : e.task->nice + 20;
  e.load_weight = std::popcount(prio_matrix(e.static_level)) * 1024 / 20;
}

// next_entitled_slot(): the first free slot of the task's row at or below where its
// peers of the same nice are on this CPU; the slot's quota joins the level's.
bool StaircaseDeadline::take_slot(CpuId cpu, Entity& e) {
  Rotation& r = rot_[cpu];
  const int from = r.prio_level[e.static_level];
  if (from >= kLevels) return false;
  const uint64_t free = prio_matrix(e.static_level) & ~e.used & (kAllLevels << from);
  if (free == 0) return false;
  const int level = std::countr_zero(free);
  e.used |= bit(level);
  e.time_slice = quota_;
  r.level_quota[level] += quota_;
  r.prio_level[e.static_level] = std::max(r.prio_level[e.static_level], level);
  e.prio = kMaxRtPrio + level;
  return true;
}

// Into a list without a slot: the expired array, at the task's first slot, so that the
// next epoch starts in nice order.
void StaircaseDeadline::place(CpuId cpu, Entity& e, int array) {
  if (array != q_.rq(cpu).active)
    e.prio = kMaxRtPrio + std::countr_zero(prio_matrix(e.static_level));
  q_.enqueue(cpu, e, array);
}

// recalc_task_prio() and enqueue: a task back in the same epoch on the same CPU keeps its
// level and quota while both it and the level have some left; otherwise it takes its
// next slot, or expires.
void StaircaseDeadline::queue_task(CpuId cpu, Entity& e) {
  arrays::Queue& rq = q_.rq(cpu);
  Rotation& r = rot_[cpu];
  if (e.epoch != r.epoch || e.epoch_cpu != cpu) {
    e.used = 0;
    e.epoch = r.epoch;
    e.epoch_cpu = cpu;
    e.time_slice = 0;
  }
  const int level = e.prio - kMaxRtPrio;
  const bool keep = e.time_slice > 0 && (e.used & bit(level)) && r.level_quota[level] > 0;
  if (keep || take_slot(cpu, e))
    place(cpu, e, rq.active);
  else
    place(cpu, e, rq.active ^ 1);
  q_.count_in(cpu, e);
}

// A listed task leaves its slot (quota used, level rotated, or yielded): what it did not
// use leaves the level too; it takes its next slot or expires.
void StaircaseDeadline::move_down(CpuId cpu, Entity& e) {
  const arrays::Queue& rq = q_.rq(cpu);
  if (e.array == rq.active && e.time_slice > 0)
    rot_[cpu].level_quota[e.prio - kMaxRtPrio] -= e.time_slice;
  q_.dequeue(e);
  e.time_slice = 0;
  if (take_slot(cpu, e))
    place(cpu, e, rq.active);
  else
    place(cpu, e, rq.active ^ 1);
}

// update_cpu_clock(): the running task's time comes off its quota and its level's.
void StaircaseDeadline::charge(CpuId cpu, Entity& e) {
  const int64_t now = ctx_->now();
  const int64_t ran = now - e.exec_start;
  e.exec_start = now;
  if (ran <= 0 || e.array != q_.rq(cpu).active) return;
  e.time_slice -= ran;
  rot_[cpu].level_quota[e.prio - kMaxRtPrio] -= ran;
}

// task_running_tick(): true when the running task must give up the CPU: its level's
// quota is gone (minor rotation) or its own is.
bool StaircaseDeadline::quota_check(CpuId cpu, Entity& e) {
  if (e.array != q_.rq(cpu).active) return true;
  const int level = e.prio - kMaxRtPrio;
  if (rot_[cpu].level_quota[level] <= 0) {
    minor_rotation(cpu, level);
    return true;
  }
  if (e.time_slice <= 0) {
    move_down(cpu, e);
    return true;
  }
  return false;
}

// The level's quota is used up: nobody may take a slot on it again this epoch, and
// everything still on it steps down, in queue order.
void StaircaseDeadline::minor_rotation(CpuId cpu, int level) {
  Rotation& r = rot_[cpu];
  for (int& reached : r.prio_level) reached = std::max(reached, level + 1);
  // Each step moves the head below this level or to the expired array.
  const TaskList& on_level = q_.rq(cpu).arrays[q_.rq(cpu).active].queue[level];
  while (!on_level.empty()) move_down(cpu, q_[on_level.head]);
}

// The active array is empty: the arrays swap, a new epoch begins, quotas are handed out
// afresh, each expired task on its first slot, where it already waits.
void StaircaseDeadline::major_rotation(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  Rotation& r = rot_[cpu];
  rq.active ^= 1;
  ++r.epoch;
  r.level_quota.fill(0);
  r.prio_level.fill(0);
  for (const TaskList& list : rq.arrays[rq.active].queue)
    for (TaskId id = list.head; id != kNoTask; id = q_[id].links.next) {
      Entity& e = q_[id];
      e.used = 0;
      e.epoch = r.epoch;
      e.epoch_cpu = cpu;
      take_slot(cpu, e);  // the first slot: the level it is listed at
    }
}

// sched_fork(): the child shares the parent's slot: each keeps half of what is left.
void StaircaseDeadline::task_new(Task& t, const Task* parent) {
  q_.grow(t.id);
  Entity& e = q_[t.id];
  e = Entity{};
  e.task = &t;
  set_static(e);
  e.prio = kMaxRtPrio + std::countr_zero(prio_matrix(e.static_level));
  if (!parent || !q_.known(parent->id) || q_[parent->id].array < 0) return;
  Entity& pe = q_[parent->id];
  const CpuId pcpu = pe.rq_cpu;
  if (q_.rq(pcpu).curr == parent->id) {
    charge(pcpu, pe);
    if (quota_check(pcpu, pe)) ctx_->resched(pcpu);
  }
  if (pe.array != q_.rq(pcpu).active || pe.static_level != e.static_level) return;
  e.used = pe.used;
  e.epoch = pe.epoch;
  e.epoch_cpu = pe.epoch_cpu;
  e.prio = pe.prio;
  e.time_slice = (pe.time_slice + 1) / 2;
  pe.time_slice -= e.time_slice;
}

CpuId StaircaseDeadline::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  return arrays::select_cpu_2622(balancer_, q_, t, prev, how);
}

void StaircaseDeadline::enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) {
  Entity& e = q_[t.id];
  if (how.kind == EnqueueKind::kRequeue) set_static(e);  // nice or policy changed
  queue_task(cpu, e);
}

void StaircaseDeadline::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  Entity& e = q_[t.id];
  arrays::Queue& rq = q_.rq(cpu);
  Rotation& r = rot_[cpu];
  if (rq.curr == t.id) {  // blocking or exiting in schedule()
    charge(cpu, e);
    e.last_ran = ctx_->now();
    rq.curr = kNoTask;
  }
  if (e.array < 0) return;
  const int level = e.prio - kMaxRtPrio;
  const bool active = e.array == rq.active;
  if (how == DequeueKind::kMigrate && active && e.time_slice > 0) {
    r.level_quota[level] -= e.time_slice;
    e.time_slice = 0;
  }
  q_.deactivate(e);
  if (active && r.level_quota[level] <= 0 && rq.arrays[rq.active].queue[level].head != kNoTask)
    minor_rotation(cpu, level);
}

// try_to_wake_up() of 2.6.21 as in O(1) (a better level preempts), except that
// SCHED_BATCH never preempts.
void StaircaseDeadline::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) {
  if (woken.policy == SchedPolicy::kBatch) return;
  if (arrays::wakeup_preempts_2622(cpu, q_[curr.id].prio, q_[woken.id].prio, how))
    ctx_->resched(cpu);
}

Task* StaircaseDeadline::pick_next(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.nr_running == 0) return nullptr;
  if (rq.arrays[rq.active].nr_active == 0) major_rotation(cpu);
  const TaskId id = q_.first_id(cpu);
  q_[id].exec_start = ctx_->now();
  rq.curr = id;
  return &ctx_->task(id);  // from the id: not a load after the entity's
}

void StaircaseDeadline::put_prev(CpuId cpu, Task& prev) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr != prev.id) return;
  Entity& e = q_[prev.id];
  charge(cpu, e);
  quota_check(cpu, e);
  e.last_ran = ctx_->now();
  rq.curr = kNoTask;  // it stays where it is in its list
}

void StaircaseDeadline::task_tick(CpuId cpu, Task& curr) {
  if (q_.rq(cpu).curr != curr.id) return;
  Entity& e = q_[curr.id];
  charge(cpu, e);
  if (quota_check(cpu, e)) ctx_->resched(cpu);
}

void StaircaseDeadline::yield(CpuId cpu) {
  arrays::Queue& rq = q_.rq(cpu);
  if (rq.curr == kNoTask) return;
  Entity& e = q_[rq.curr];
  charge(cpu, e);
  if (!quota_check(cpu, e)) move_down(cpu, e);
}

std::string StaircaseDeadline::check_invariants() const {
  if (std::string broken = q_.check("sd"); !broken.empty()) return broken;
  for (CpuId cpu = 0; cpu < static_cast<CpuId>(rot_.size()); ++cpu) {
    const arrays::Queue& rq = q_.rq(cpu);
    const Rotation& r = rot_[cpu];
    for (int a = 0; a < 2; ++a)
      for (int level = 0; level < kLevels; ++level)
        for (TaskId id = rq.arrays[a].queue[level].head; id != kNoTask; id = q_[id].links.next) {
          const Entity& e = q_[id];
          const std::string& name = e.task->name;
          const uint64_t row = prio_matrix(e.static_level);
          if (a != rq.active) {
            if (level != std::countr_zero(row))
              return fmt::format("sd: expired {} is not on its first slot", name);
            continue;
          }
          if (!(row & bit(level)) || !(e.used & bit(level)))
            return fmt::format("sd: {} is on level {} without a slot there", name, level);
          if (e.epoch != r.epoch || e.epoch_cpu != cpu)
            return fmt::format("sd: {} is active on CPU {} from another epoch", name, cpu);
          if (id != rq.curr && (e.time_slice <= 0 || r.level_quota[level] <= 0))
            return fmt::format("sd: {} waits on level {} without quota", name, level);
        }
  }
  return {};
}

}  // namespace sd

std::vector<PolicyInfo> sd_policies() {
  return {declare_policy<sd::SdParams>(
      "sd",
      "Staircase Deadline 0.46 (2.6.21): rotating staircase of per-level quotas, epochs, no "
      "bonus",
      sd::SdParams::table(), {}, [](const sd::SdParams& p) -> std::unique_ptr<SchedClass> {
        if (p.rr_interval_ms <= 0) throw InputError("", "rr_interval_ms", "must be at least 1 ms");
        return std::make_unique<sd::StaircaseDeadline>(p);
      })};
}

}  // namespace schedlab
