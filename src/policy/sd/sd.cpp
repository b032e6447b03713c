// Staircase Deadline 0.46 on one CPU: slots, quotas, minor and major rotations. See sd.h
// for the design and the judgement calls; balancing is o1_balance.cpp's.
#include "policy/sd/sd.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "util/error.h"

namespace schedlab::sd {

using o1::kMaxRtPrio;

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

void StaircaseDeadline::attach(SchedContext& ctx) {
  O1::attach(ctx);
  rot_.resize(static_cast<size_t>(ctx.cpus()));
  // 1 + ilog2(CPUs)
  const int64_t scale = scale_rr_ ? std::bit_width(static_cast<unsigned>(ctx.cpus())) : 1;
  quota_ = rr_interval_ms_ * 1'000'000 * scale;
}

void StaircaseDeadline::set_static(Entity& e, Stair& s) {
  s.static_level = e.task->policy == SchedPolicy::kIdle ? kLevels - 1 : e.task->nice + 20;
  e.static_prio = kMaxRtPrio + s.static_level;
  e.load_weight = std::popcount(prio_matrix(s.static_level)) * 1024 / 20;
}

// next_entitled_slot(): the first free slot of the task's row at or below where its
// peers of the same nice are on this CPU; the slot's quota joins the level's.
bool StaircaseDeadline::take_slot(CpuId cpu, Entity& e, Stair& s) {
  Rotation& r = rot_[cpu];
  const int from = r.prio_level[s.static_level];
  if (from >= kLevels) return false;
  const uint64_t free = prio_matrix(s.static_level) & ~s.used & (kAllLevels << from);
  if (free == 0) return false;
  const int level = std::countr_zero(free);
  s.used |= bit(level);
  s.time_slice = quota_;
  r.level_quota[level] += quota_;
  r.prio_level[s.static_level] = std::max(r.prio_level[s.static_level], level);
  e.prio = kMaxRtPrio + level;
  return true;
}

// Into a list without a slot: the expired array, at the task's first slot, so that the
// next epoch starts in nice order.
void StaircaseDeadline::place(CpuId cpu, Entity& e, int array) {
  if (array != rq_[cpu].active)
    e.prio = kMaxRtPrio + std::countr_zero(prio_matrix(stair_[e.task->id].static_level));
  enqueue_task(cpu, e, array);
}

// recalc_task_prio() and enqueue: a task back in the same epoch on the same CPU keeps its
// level and quota while both it and the level have some left; otherwise it takes its
// next slot, or expires.
void StaircaseDeadline::queue_task(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  Rotation& r = rot_[cpu];
  Stair& s = stair_[e.task->id];
  if (s.epoch != r.epoch || s.epoch_cpu != cpu) {
    s.used = 0;
    s.epoch = r.epoch;
    s.epoch_cpu = cpu;
    s.time_slice = 0;
  }
  const int level = e.prio - kMaxRtPrio;
  const bool keep = s.time_slice > 0 && (s.used & bit(level)) && r.level_quota[level] > 0;
  if (keep || take_slot(cpu, e, s))
    place(cpu, e, rq.active);
  else
    place(cpu, e, rq.active ^ 1);
  ++rq.nr_running;
  rq.raw_weighted_load += e.load_weight;
}

// A listed task leaves its slot (quota used, level rotated, or yielded): what it did not
// use leaves the level too; it takes its next slot or expires.
void StaircaseDeadline::move_down(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  Stair& s = stair_[e.task->id];
  if (e.array == rq.active && s.time_slice > 0)
    rot_[cpu].level_quota[e.prio - kMaxRtPrio] -= s.time_slice;
  dequeue_task(e);
  s.time_slice = 0;
  if (take_slot(cpu, e, s))
    place(cpu, e, rq.active);
  else
    place(cpu, e, rq.active ^ 1);
}

// update_cpu_clock(): the running task's time comes off its quota and its level's.
void StaircaseDeadline::charge(CpuId cpu, Entity& e) {
  Stair& s = stair_[e.task->id];
  const int64_t now = ctx_->now();
  const int64_t ran = now - s.exec_start;
  s.exec_start = now;
  if (ran <= 0 || e.array != rq_[cpu].active) return;
  s.time_slice -= ran;
  rot_[cpu].level_quota[e.prio - kMaxRtPrio] -= ran;
}

// task_running_tick(): true when the running task must give up the CPU: its level's
// quota is gone (minor rotation) or its own is.
bool StaircaseDeadline::quota_check(CpuId cpu, Entity& e) {
  if (e.array != rq_[cpu].active) return true;
  const int level = e.prio - kMaxRtPrio;
  if (rot_[cpu].level_quota[level] <= 0) {
    minor_rotation(cpu, level);
    return true;
  }
  if (stair_[e.task->id].time_slice <= 0) {
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
  const TaskList& on_level = rq_[cpu].arrays[rq_[cpu].active].queue[level];
  while (!on_level.empty()) move_down(cpu, se_[on_level.head]);
}

// The active array is empty: the arrays swap, a new epoch begins, quotas are handed out
// afresh, each expired task on its first slot, where it already waits.
void StaircaseDeadline::major_rotation(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  Rotation& r = rot_[cpu];
  rq.active ^= 1;
  ++r.epoch;
  r.level_quota.fill(0);
  r.prio_level.fill(0);
  for (const TaskList& list : rq.arrays[rq.active].queue)
    for (TaskId id = list.head; id != kNoTask; id = se_[id].links.next) {
      Stair& s = stair_[id];
      s.used = 0;
      s.epoch = r.epoch;
      s.epoch_cpu = cpu;
      take_slot(cpu, se_[id], s);  // the first slot: the level it is listed at
    }
}

// sched_fork(): the child shares the parent's slot: each keeps half of what is left.
void StaircaseDeadline::task_new(Task& t, const Task* parent) {
  if (static_cast<size_t>(t.id) >= se_.size()) se_.resize(static_cast<size_t>(t.id) + 1);
  if (static_cast<size_t>(t.id) >= stair_.size()) stair_.resize(static_cast<size_t>(t.id) + 1);
  Entity& e = se_[t.id];
  Stair& s = stair_[t.id];
  e = Entity{};
  s = Stair{};
  e.task = &t;
  e.timestamp = ctx_->now();
  set_static(e, s);
  e.prio = kMaxRtPrio + std::countr_zero(prio_matrix(s.static_level));
  if (!parent || static_cast<size_t>(parent->id) >= se_.size() || !se_[parent->id].task ||
      se_[parent->id].array < 0)
    return;
  Entity& pe = se_[parent->id];
  Stair& ps = stair_[parent->id];
  e.parent = parent->id;
  const CpuId pcpu = pe.rq_cpu;
  if (rq_[pcpu].curr == parent->id) {
    charge(pcpu, pe);
    if (quota_check(pcpu, pe)) ctx_->resched(pcpu);
  }
  if (pe.array != rq_[pcpu].active || ps.static_level != s.static_level) return;
  s.used = ps.used;
  s.epoch = ps.epoch;
  s.epoch_cpu = ps.epoch_cpu;
  e.prio = pe.prio;
  s.time_slice = (ps.time_slice + 1) / 2;
  ps.time_slice -= s.time_slice;
}

void StaircaseDeadline::enqueue(CpuId cpu, Task& t, const EnqueueFlags& how) {
  Entity& e = se_[t.id];
  if (how.kind == EnqueueKind::kRequeue) set_static(e, stair_[t.id]);  // nice or policy changed
  queue_task(cpu, e);
}

void StaircaseDeadline::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  Entity& e = se_[t.id];
  RunQueue& rq = rq_[cpu];
  Rotation& r = rot_[cpu];
  Stair& s = stair_[t.id];
  if (rq.curr == t.id) {  // blocking or exiting in schedule()
    charge(cpu, e);
    e.last_ran = ctx_->now();
    rq.curr = kNoTask;
  }
  if (e.array < 0) return;
  const int level = e.prio - kMaxRtPrio;
  const bool active = e.array == rq.active;
  if (how == DequeueKind::kMigrate && active && s.time_slice > 0) {
    r.level_quota[level] -= s.time_slice;
    s.time_slice = 0;
  }
  deactivate(e);
  if (active && r.level_quota[level] <= 0 && rq.arrays[rq.active].queue[level].head != kNoTask)
    minor_rotation(cpu, level);
}

// try_to_wake_up() of 2.6.21 as in O(1) (a better level preempts), except that
// SCHED_BATCH never preempts.
void StaircaseDeadline::check_preempt(CpuId cpu, Task& curr, Task& woken, const WakeInfo& how) {
  if (woken.policy != SchedPolicy::kBatch) O1::check_preempt(cpu, curr, woken, how);
}

Task* StaircaseDeadline::pick_next(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.nr_running == 0) return nullptr;
  if (rq.arrays[rq.active].nr_active == 0) major_rotation(cpu);
  const o1::O1::PrioArray& a = rq.arrays[rq.active];
  Entity& next = se_[a.queue[std::countr_zero(a.bitmap)].head];
  const int64_t now = ctx_->now();
  stair_[next.task->id].exec_start = now;
  next.timestamp = now;
  rq.curr = next.task->id;
  return next.task;
}

void StaircaseDeadline::put_prev(CpuId cpu, Task& prev) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr != prev.id) return;
  Entity& e = se_[prev.id];
  charge(cpu, e);
  quota_check(cpu, e);
  e.last_ran = ctx_->now();
  rq.curr = kNoTask;  // it stays where it is in its list
}

void StaircaseDeadline::task_tick(CpuId cpu, Task& curr) {
  if (rq_[cpu].curr != curr.id) return;
  Entity& e = se_[curr.id];
  charge(cpu, e);
  if (quota_check(cpu, e)) ctx_->resched(cpu);
}

void StaircaseDeadline::yield(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask) return;
  Entity& e = se_[rq.curr];
  charge(cpu, e);
  if (!quota_check(cpu, e)) move_down(cpu, e);
}

std::string StaircaseDeadline::check_invariants() const {
  if (std::string broken = O1::check_invariants(); !broken.empty()) return broken;
  for (CpuId cpu = 0; cpu < static_cast<CpuId>(rq_.size()); ++cpu) {
    const RunQueue& rq = rq_[cpu];
    const Rotation& r = rot_[cpu];
    for (int a = 0; a < 2; ++a)
      for (int level = 0; level < kLevels; ++level)
        for (TaskId id = rq.arrays[a].queue[level].head; id != kNoTask; id = se_[id].links.next) {
          const Stair& s = stair_[id];
          const std::string& name = se_[id].task->name;
          const uint64_t row = prio_matrix(s.static_level);
          if (a != rq.active) {
            if (level != std::countr_zero(row))
              return fmt::format("sd: expired {} is not on its first slot", name);
            continue;
          }
          if (!(row & bit(level)) || !(s.used & bit(level)))
            return fmt::format("sd: {} is on level {} without a slot there", name, level);
          if (s.epoch != r.epoch || s.epoch_cpu != cpu)
            return fmt::format("sd: {} is active on CPU {} from another epoch", name, cpu);
          if (id != rq.curr && (s.time_slice <= 0 || r.level_quota[level] <= 0))
            return fmt::format("sd: {} waits on level {} without quota", name, level);
        }
  }
  return {};
}

PolicyInfo sd_policy_info() {
  return {"sd",
          "Staircase Deadline 0.46 (2.6.21): rotating staircase of per-level quotas, "
          "epochs, no bonus",
          {{"rr_interval_ms", 8, false, "quota per slot (RR_INTERVAL)"},
           {"scale_rr_interval", 1, true, "multiply rr_interval by 1 + ilog2(CPUs) (unverified)"},
           {"cache_hot_time_ns", 2'500'000, false,
            "a task that ran this recently is cache hot (mainline's balancer)"}},
          [](const ParamValues& p) {
            Tunables t;
            t.rr_interval_ms = p.get("rr_interval_ms");
            if (t.rr_interval_ms <= 0)
              throw InputError("", "rr_interval_ms", "must be at least 1 ms");
            t.scale_rr_interval = p.get("scale_rr_interval") != 0;
            t.o1.cache_hot_time_ns = p.get("cache_hot_time_ns");
            t.o1.domains = o1::domains_2622();
            return std::make_unique<StaircaseDeadline>(std::move(t));
          }};
}

}  // namespace schedlab::sd
