// CFS of 2.6.31 and 2.6.32: the fair class proper, after kernel/sched_fair.c of 2.6.31.14
// and 2.6.32.2 (plus the hooks of kernel/sched.c that feed it: enqueue_task/dequeue_task's
// averages, try_to_wake_up's avg_wakeup, put_prev_task's avg_overlap/avg_running,
// wake_up_new_task). Functions carry the kernel's names so the two read side by side.
#include <algorithm>

#include "policy/cfs/cfs.h"

namespace schedlab::cfs {

namespace {
int ilog2(int n) {
  int r = 0;
  while (n >>= 1) ++r;
  return r;
}
}  // namespace

void Cfs::attach(SchedContext& ctx) {
  SchedClass::attach(ctx);
  const int n = ctx.cpus();
  llc_span_.assign(static_cast<size_t>(n), CpuMask{});
  for (CpuId a = 0; a < n; ++a)
    for (CpuId b = 0; b < n; ++b)
      if (ctx.machine().same_llc(a, b)) llc_span_[a].set(static_cast<size_t>(b));
  // sched_init_granularity(): the defaults grow with the CPU count; latency and
  // min_granularity are capped at 200 ms. (sched_tunable_scaling, from 2.6.36, names
  // the modes: 0 none, 1 logarithmic as here, 2 linear.)
  const int64_t factor = cfg_.tunable_scaling == 0   ? 1
                         : cfg_.tunable_scaling == 2 ? n
                                                     : 1 + ilog2(n);
  if (eevdf()) {  // sched_update_scaling(): factor 1 + ilog2(min(ncpus, 8))
    const int64_t f = cfg_.tunable_scaling == 0   ? 1
                      : cfg_.tunable_scaling == 2 ? std::min(n, 8)
                                                  : 1 + ilog2(std::min(n, 8));
    cfg_.base.base_slice *= f;
  }
  const int64_t kLimit = era23() ? 100'000'000 : 200'000'000;
  tun_ = cfg_.base;
  tun_.min_granularity = std::min(tun_.min_granularity * factor, kLimit);
  tun_.latency = std::min(tun_.latency * factor, kLimit);
  tun_.wakeup_granularity *= factor;
  if (tun_.runtime_limit == 0) tun_.runtime_limit = tun_.latency;  // 2.6.23's boot value
  // sched_nr_latency as the sysctl handler keeps it: latency / min_granularity, rounded up.
  tun_.nr_latency = std::max<int64_t>(
      1, (tun_.latency + tun_.min_granularity - 1) / std::max<int64_t>(1, tun_.min_granularity));
  const auto domains =
      build_domains(ctx.machine(), cfg_.domains,
                    balance32() ? GroupPower::kSumOfCpus : GroupPower::kOnePerSharedGroup);
  rq_.reserve(n);
  no_cfs_tasks_ = all_cpus(n);
  for (CpuId c = 0; c < n; ++c) {
    RunQueue& rq = rq_.emplace_back(&timeline_pos_);
    rq.domains = domains[c];
    rq.avg_idle = 2 * tun_.migration_cost;
  }
}

// ---------------------------------------------------------------- time and vruntime

void Cfs::update_min_vruntime(RunQueue& rq) {
  int64_t v = rq.min_vruntime;
  if (rq.curr != kNoTask) v = se_[rq.curr].vruntime;
  const TaskId left = rq.timeline.leftmost();
  if (left != kNoTask)
    v = rq.curr == kNoTask ? se_[left].vruntime : std::min(v, se_[left].vruntime);
  rq.min_vruntime = std::max(rq.min_vruntime, v);
}

// update_curr(): charge the running entity's new CPU time as weighted virtual time.
void Cfs::update_curr(CpuId cpu) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask) return;
  Entity& e = se_[rq.curr];
  const int64_t delta = e.task->sum_exec_ns - e.charged_exec;
  if (delta <= 0) return;
  e.charged_exec = e.task->sum_exec_ns;
  e.vruntime += calc_delta_fair(delta, e.load);
  update_min_vruntime(rq);
  e.exec_start = ctx_->now();
}

// __sched_period(): the latency target, stretched when more than nr_latency tasks share it.
int64_t Cfs::sched_period(int64_t nr_running) const {
  return nr_running > tun_.nr_latency ? tun_.min_granularity * nr_running : tun_.latency;
}

// sched_slice(): the entity's weighted share of the period, counting it if not yet queued.
int64_t Cfs::sched_slice(const RunQueue& rq, const Entity& e) const {
  const int64_t period = sched_period(rq.nr_running + (e.on_rq ? 0 : 1));
  LoadWeight load = rq.load;
  if (!e.on_rq) load = LoadWeight{rq.load.weight + e.load.weight, 0};
  return calc_delta_mine(period, e.load.weight, load);
}

int64_t Cfs::sched_vslice(const RunQueue& rq, const Entity& e) const {
  return calc_delta_fair(sched_slice(rq, e), e.load);
}

// set_task_cpu()'s renormalisation: vruntime keeps its distance to min_vruntime when the
// entity changes run queue.
void Cfs::follow_frame(CpuId cpu, Entity& e) {
  if (e.frame_cpu == cpu) return;
  e.vruntime += rq_[cpu].min_vruntime - (e.frame_cpu == kNoCpu ? 0 : rq_[e.frame_cpu].min_vruntime);
  e.frame_cpu = cpu;
}

// place_entity(): a new task starts one virtual slice after min_vruntime (START_DEBIT);
// a waking task gets up to one latency of sleeper credit (2.6.32: half of it).
void Cfs::place_entity(RunQueue& rq, Entity& e, bool initial) {
  int64_t v = rq.min_vruntime;
  if (initial && cfg_.feat.start_debit) v += sched_vslice(rq, e);
  const bool sleeper_credit = era31() ? cfg_.feat.new_fair_sleepers : cfg_.feat.fair_sleepers;
  if (!initial && sleeper_credit) {
    int64_t thresh = tun_.latency;
    if (cfg_.feat.normalized_sleeper && e.task->policy != SchedPolicy::kIdle)
      thresh = calc_delta_fair(thresh, e.load);
    if (era32() && cfg_.feat.gentle_fair_sleepers) thresh >>= 1;
    v -= thresh;
  }
  // Never gain time by being placed backwards (2.6.31: only for wake-ups).
  if (!initial || era32()) v = std::max(e.vruntime, v);
  e.vruntime = v;
}

// ---------------------------------------------------------------- queueing

// account_entity_enqueue / _dequeue: the run queue's load, count and task list.
void Cfs::account_enqueue(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  const TaskId id = e.task->id;
  rq.load.weight += e.load.weight;
  rq.load.inv_weight = 0;
  if (rq.nr_running++ == 0) no_cfs_tasks_.reset(static_cast<size_t>(cpu));
  e.on_rq = true;
  e.list_prev = kNoTask;
  e.list_next = rq.tasks_head;
  if (rq.tasks_head != kNoTask) se_[rq.tasks_head].list_prev = id;
  rq.tasks_head = id;
}

void Cfs::account_dequeue(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  rq.load.weight -= e.load.weight;
  rq.load.inv_weight = 0;
  if (--rq.nr_running == 0) no_cfs_tasks_.set(static_cast<size_t>(cpu));
  e.on_rq = false;
  if (e.list_prev != kNoTask)
    se_[e.list_prev].list_next = e.list_next;
  else
    rq.tasks_head = e.list_next;
  if (e.list_next != kNoTask) se_[e.list_next].list_prev = e.list_prev;
  e.list_prev = e.list_next = kNoTask;
}

void Cfs::enqueue_entity(CpuId cpu, Entity& e) {
  account_enqueue(cpu, e);
  if (e.task->id != rq_[cpu].curr) rq_[cpu].timeline.insert(e.task->id, e.vruntime);
}

void Cfs::dequeue_entity(CpuId cpu, Entity& e) {
  RunQueue& rq = rq_[cpu];
  const TaskId id = e.task->id;
  clear_buddies(rq, id);
  account_dequeue(cpu, e);
  if (id != rq.curr) rq.timeline.erase(id);
  update_min_vruntime(rq);
}

void Cfs::clear_buddies(RunQueue& rq, TaskId id) {
  if (rq.last == id) rq.last = kNoTask;
  if (rq.next == id) rq.next = kNoTask;
}

// __sched_fork(): fresh statistics; the child starts from a copy of its parent's entity.
void Cfs::task_new(Task& t, const Task* parent) {
  if (static_cast<size_t>(t.id) >= se_.size()) {
    se_.resize(t.id + 1);
    timeline_pos_.resize(t.id + 1, -1);
  }
  Entity& e = se_[t.id];
  const bool known = e.task != nullptr;  // back from another class: keep its vruntime
  e.task = &t;
  e.load = task_load_weight(t.policy, t.nice);
  e.charged_exec = t.sum_exec_ns;
  if (known) return;
  e.prev_sum_exec = t.sum_exec_ns;
  e.exec_start = 0;
  e.last_wakeup = e.start_runtime = 0;
  e.avg_overlap = e.avg_running = 0;
  e.avg_wakeup = tun_.wakeup_granularity;
  e.wait_runtime = e.wait_start_fair = e.sleep_start_fair = 0;
  e.vlag = 0;
  e.slice = tun_.base_slice;
  e.sched_delayed = e.rel_deadline = false;
  if (parent && static_cast<size_t>(parent->id) < se_.size() && se_[parent->id].task) {
    e.vruntime = se_[parent->id].vruntime;  // dup_task_struct copies the parent's entity
    e.frame_cpu = se_[parent->id].frame_cpu;
    e.parent = parent->id;
  }
}

// wake_up_new_task() and task_new_fair(): where a forked child enters the timeline.
void Cfs::task_new_fair(CpuId cpu, Entity& child, CpuId parent_cpu) {
  RunQueue& rq = rq_[cpu];
  update_curr(cpu);
  if (era32() && rq.curr != kNoTask) child.vruntime = se_[rq.curr].vruntime;
  place_entity(rq, child, true);
  if (tun_.child_runs_first && parent_cpu == cpu && rq.curr != kNoTask &&
      se_[rq.curr].vruntime < child.vruntime) {
    // The child takes the parent's place in the timeline and the parent yields to it.
    std::swap(se_[rq.curr].vruntime, child.vruntime);
    ctx_->resched(cpu);
  }
}

void Cfs::enqueue(CpuId cpu, Task& t, const EnqueueFlags& flags) {
  const EnqueueKind how = flags.kind;
  if (era23()) return enqueue_23(cpu, t, how);
  if (eevdf()) return enqueue_66(cpu, t, how);
  Entity& e = se_[t.id];
  e.load = task_load_weight(t.policy, t.nice);
  follow_frame(cpu, e);
  update_curr(cpu);
  RunQueue& rq = rq_[cpu];
  if (rq.nr_running == 0) sync_cpu_load(cpu);  // an idle CPU's averages catch up first
  switch (how) {
    case EnqueueKind::kNew: {
      const TaskId parent = e.parent;
      e.parent = kNoTask;
      if (parent == kNoTask) {
        // A task of the scenario: as if forked by a launcher that is not on this CPU.
        e.vruntime = rq.min_vruntime;
        place_entity(rq, e, true);
      } else {
        const Task& p = *se_[parent].task;
        // 2.6.31 places the child only if its CPU is running a CFS task; otherwise it
        // keeps the parent's vruntime (activate_task without task_new).
        if (p.runnable && (era32() || rq.curr != kNoTask)) task_new_fair(cpu, e, p.cpu);
      }
      break;
    }
    case EnqueueKind::kWakeup:
      e.start_runtime = t.sum_exec_ns;
      place_entity(rq, e, false);
      if (era32() && rq.idle_stamp != 0) {  // ttwu's avg_idle sample
        const int64_t delta = ctx_->now() - rq.idle_stamp;
        const int64_t max = 2 * tun_.migration_cost;
        if (delta > max)
          rq.avg_idle = max;
        else
          update_avg(rq.avg_idle, delta);
        rq.idle_stamp = 0;
      }
      break;
    case EnqueueKind::kMigrate:
    case EnqueueKind::kRequeue:
      break;
  }
  enqueue_entity(cpu, e);
}

void Cfs::dequeue(CpuId cpu, Task& t, DequeueKind how) {
  if (era23()) return dequeue_23(cpu, t, how);
  if (eevdf()) return dequeue_66(cpu, t, how);
  Entity& e = se_[t.id];
  RunQueue& rq = rq_[cpu];
  update_curr(cpu);
  if (how == DequeueKind::kSleep || how == DequeueKind::kExit) {
    // dequeue_task(): the overlap with the task it last woke, else a wake-up-free run.
    if (e.last_wakeup != 0) {
      update_avg(e.avg_overlap, t.sum_exec_ns - e.last_wakeup);
      e.last_wakeup = 0;
    } else {
      update_avg(e.avg_wakeup, tun_.wakeup_granularity);
    }
    if (era32() && rq.curr == t.id) {  // put_prev_task() of a task going to sleep
      update_avg(e.avg_running, t.sum_exec_ns - e.prev_sum_exec);
      update_avg(e.avg_running, 0);
    }
  }
  dequeue_entity(cpu, e);
  if (rq.curr == t.id) rq.curr = kNoTask;
}

// ---------------------------------------------------------------- picking

void Cfs::set_next_entity(CpuId cpu, TaskId id) {
  RunQueue& rq = rq_[cpu];
  Entity& e = se_[id];
  if (e.on_rq) rq.timeline.erase(id);
  e.exec_start = ctx_->now();
  rq.curr = id;
  e.prev_sum_exec = e.task->sum_exec_ns;
  e.charged_exec = e.task->sum_exec_ns;
}

// pick_next_entity(): the leftmost, unless a buddy is not too far right of it.
TaskId Cfs::pick_next_entity(RunQueue& rq) {
  const TaskId left = rq.timeline.leftmost();
  const Entity& l = se_[left];
  auto acceptable = [&](TaskId buddy) {
    return buddy != kNoTask && wakeup_preempt_entity(se_[buddy], l, rq) < 1;
  };
  TaskId chosen = left;
  if (era31()) {  // the next buddy first, then the last
    if (acceptable(rq.next))
      chosen = rq.next;
    else if (acceptable(rq.last))
      chosen = rq.last;
  } else {  // the last buddy wins over the next
    if (acceptable(rq.next)) chosen = rq.next;
    if (acceptable(rq.last)) chosen = rq.last;
  }
  clear_buddies(rq, chosen);
  return chosen;
}

Task* Cfs::pick_next(CpuId cpu) {
  if (era23()) return pick_next_23(cpu);
  if (eevdf()) return pick_next_66(cpu);
  RunQueue& rq = rq_[cpu];
  if (rq.nr_running == 0) return nullptr;
  const TaskId id = pick_next_entity(rq);
  set_next_entity(cpu, id);
  return se_[id].task;
}

// put_prev_task() and put_prev_entity(): a preempted task goes back into the timeline.
void Cfs::put_prev(CpuId cpu, Task& prev) {
  if (era23()) return put_prev_23(cpu, prev);
  if (eevdf()) return put_prev_66(cpu, prev);
  RunQueue& rq = rq_[cpu];
  Entity& e = se_[prev.id];
  update_curr(cpu);
  const int64_t runtime = prev.sum_exec_ns - e.prev_sum_exec;
  if (era32()) update_avg(e.avg_running, runtime);
  // avg_overlap grows on preemption too, by the run capped at twice the migration cost.
  update_avg(e.avg_overlap, std::min(runtime, 2 * tun_.migration_cost));
  rq.curr = kNoTask;
  rq.timeline.insert(prev.id, e.vruntime);
}

// ---------------------------------------------------------------- preemption

int64_t Cfs::wakeup_gran(const Entity& curr, const Entity& woken, const RunQueue& rq) const {
  int64_t gran = tun_.wakeup_granularity;
  if (rq.curr != kNoTask && cfg_.feat.adaptive_gran) {
    // adaptive_gran(): a task that wakes others often need not wait the full granularity.
    const int64_t this_run = curr.task->sum_exec_ns - curr.prev_sum_exec;
    const int64_t expected_wakeup = 2 * woken.avg_wakeup * rq.nr_running;
    gran = std::min(std::max<int64_t>(expected_wakeup - this_run, 0), tun_.wakeup_granularity);
  }
  // In virtual time, with the woken entity's weight (ASYM_GRAN) or the current's.
  const Entity& by = cfg_.feat.asym_gran ? woken : curr;
  return calc_delta_fair(gran, by.load);
}

// wakeup_preempt_entity(): 1 if `woken` is more than a granularity left of `curr`,
// 0 if left but within it, -1 if not left.
int Cfs::wakeup_preempt_entity(const Entity& curr, const Entity& woken, const RunQueue& rq) const {
  const int64_t vdiff = curr.vruntime - woken.vruntime;
  if (vdiff <= 0) return -1;
  return vdiff > wakeup_gran(curr, woken, rq) ? 1 : 0;
}

void Cfs::check_preempt(CpuId cpu, Task& curr_task, Task& woken_task, const WakeInfo& how) {
  RunQueue& rq = rq_[cpu];
  if (rq.curr != curr_task.id || &curr_task == &woken_task) return;
  if (era23()) return check_preempt_23(cpu, curr_task, woken_task);
  if (eevdf()) return check_preempt_66(cpu, curr_task, woken_task, how);
  Entity& curr = se_[curr_task.id];
  Entity& woken = se_[woken_task.id];
  const bool scale = rq.nr_running >= tun_.nr_latency;
  update_curr(cpu);
  const bool sync = how.kind == WakeKind::kWakeup && how.sync && cfg_.feat.sync_wakeups;
  const int64_t mc = tun_.migration_cost;
  const bool not_idle_curr = curr_task.policy != SchedPolicy::kIdle;
  const bool not_idle_woken = woken_task.policy != SchedPolicy::kIdle;
  if (era31()) {
    if (cfg_.feat.last_buddy && curr.on_rq && not_idle_curr) rq.last = curr_task.id;
    if (not_idle_woken) rq.next = woken_task.id;
  } else if (cfg_.feat.next_buddy && scale && how.kind != WakeKind::kFork && not_idle_woken) {
    rq.next = woken_task.id;
  }
  if (ctx_->resched_pending(cpu)) return;
  // BATCH and IDLE tasks never preempt on wake-up; an IDLE task is always preempted.
  if (woken_task.policy != SchedPolicy::kOther) return;
  if (curr_task.policy == SchedPolicy::kIdle) {
    ctx_->resched(cpu);
    return;
  }
  const bool overlapping = curr.avg_overlap < mc && woken.avg_overlap < mc;
  if (era31()) {
    if (!cfg_.feat.wakeup_preempt) return;
    if (cfg_.feat.wakeup_overlap && (sync || overlapping)) {
      ctx_->resched(cpu);
      return;
    }
    if (wakeup_preempt_entity(curr, woken, rq) == 1) ctx_->resched(cpu);
    return;
  }
  if ((cfg_.feat.wakeup_sync && sync) || (cfg_.feat.wakeup_overlap && overlapping)) {
    ctx_->resched(cpu);
    return;
  }
  if (cfg_.feat.wakeup_running && woken.avg_running < curr.avg_running) {
    if (not_idle_woken) rq.next = woken_task.id;
    ctx_->resched(cpu);
    return;
  }
  if (!cfg_.feat.wakeup_preempt) return;
  if (wakeup_preempt_entity(curr, woken, rq) == 1) {
    ctx_->resched(cpu);
    // The preempted task is the last buddy, so the CPU can come back to it.
    if (curr.on_rq && cfg_.feat.last_buddy && scale && not_idle_curr) rq.last = curr_task.id;
  }
}

// check_preempt_tick(): the slice is over (2.6.32 also: the task ran at least
// min_granularity and is more than a slice's worth of vruntime right of the leftmost).
void Cfs::check_preempt_tick(CpuId cpu, Entity& curr) {
  RunQueue& rq = rq_[cpu];
  const int64_t ideal_runtime = sched_slice(rq, curr);
  const int64_t delta_exec = curr.task->sum_exec_ns - curr.prev_sum_exec;
  if (delta_exec > ideal_runtime) {
    ctx_->resched(cpu);
    clear_buddies(rq, curr.task->id);  // no buddy favour for a task that used its slice
    return;
  }
  if (era31() || !cfg_.feat.wakeup_preempt) return;
  if (delta_exec < tun_.min_granularity) return;
  if (rq.nr_running > 1) {
    const int64_t delta = curr.vruntime - se_[rq.timeline.leftmost()].vruntime;
    if (delta > ideal_runtime) ctx_->resched(cpu);
  }
}

void Cfs::task_tick(CpuId cpu, Task& curr) {
  if (era23()) return task_tick_23(cpu, curr);
  if (eevdf()) return task_tick_66(cpu, curr);
  RunQueue& rq = rq_[cpu];
  if (rq.curr != curr.id) return;
  update_curr(cpu);
  if (rq.nr_running > 1 || !cfg_.feat.wakeup_preempt) check_preempt_tick(cpu, se_[curr.id]);
}

// yield_task_fair(): by default only an update, so the task goes back at its vruntime;
// with sched_compat_yield (or for SCHED_BATCH) it moves to the right end of the timeline.
void Cfs::yield(CpuId cpu) {
  if (era23()) return yield_23(cpu);
  if (eevdf()) return yield_66(cpu);
  RunQueue& rq = rq_[cpu];
  if (rq.curr == kNoTask || rq.nr_running == 1) return;
  Entity& e = se_[rq.curr];
  clear_buddies(rq, rq.curr);
  if (!tun_.compat_yield && e.task->policy != SchedPolicy::kBatch) {
    update_curr(cpu);
    return;
  }
  const TaskId rightmost = rq.timeline.rightmost();
  if (rightmost == kNoTask || se_[rightmost].vruntime < e.vruntime) return;
  e.vruntime = se_[rightmost].vruntime + 1;
}

// ---------------------------------------------------------------- choosing a CPU

// try_to_wake_up()'s sample of the waker: its run time between the wake-ups it does.
void Cfs::record_wakeup_by(TaskId waker) {
  if (waker == kNoTask || static_cast<size_t>(waker) >= se_.size() || !se_[waker].task) return;
  Entity& w = se_[waker];
  const int64_t sum = w.task->sum_exec_ns;
  update_avg(w.avg_wakeup, sum - (w.last_wakeup != 0 ? w.last_wakeup : w.start_runtime));
  w.last_wakeup = sum;
}

CpuId Cfs::select_cpu(Task& t, CpuId prev, const WakeInfo& how) {
  CpuId cpu = prev;
  switch (how.kind) {
    case WakeKind::kFork:
      cpu = balance_fork(t, how.waker_cpu == kNoCpu ? prev : how.waker_cpu);
      break;
    case WakeKind::kWakeup: {
      const CpuId this_cpu = how.waker_cpu == kNoCpu ? prev : how.waker_cpu;
      const bool sync = how.sync && cfg_.feat.sync_wakeups;
      if (eevdf() && se_[t.id].sched_delayed) return se_[t.id].frame_cpu;  // still queued there
      cpu = era23()   ? select_wake_cpu_2623(t, prev, this_cpu, sync, how.waker)
            : eevdf() ? select_wake_cpu_66(t, prev, this_cpu, sync)
            : era31() ? select_wake_cpu_2631(t, prev, this_cpu, sync, how.waker)
                      : select_wake_cpu_2632(t, prev, this_cpu, sync, how.waker);
      record_wakeup_by(how.waker);
      break;
    }
    case WakeKind::kMigrate:  // set_cpus_allowed_ptr(): any allowed CPU
      cpu = static_cast<CpuId>(t.allowed._Find_first());
      break;
  }
  if (cpu == kNoCpu || !t.allowed_on(cpu)) cpu = static_cast<CpuId>(t.allowed._Find_first());
  return cpu;
}

// wake_affine(): pull the woken task to the waker's CPU when the loads stay balanced.
bool Cfs::wake_affine(const Domain& sd, Task& p, CpuId prev, CpuId this_cpu, bool sync,
                      TaskId waker, int64_t load, int64_t this_load) {
  const int idx = sd.t.wake_idx;
  const Task* current = waker != kNoTask ? se_[waker].task : ctx_->curr(this_cpu);
  const bool current_fair =
      current && static_cast<size_t>(current->id) < se_.size() && se_[current->id].task;
  const int64_t current_overlap = current_fair ? se_[current->id].avg_overlap : 0;
  const int64_t current_weight = current_fair ? se_[current->id].load.weight : 0;
  const Entity& e = se_[p.id];
  const int64_t mc = tun_.migration_cost;
  if (era31() || cfg_.feat.sync_less) {
    if (sync && (current_overlap > mc || e.avg_overlap > mc)) sync = false;
  }
  if (era32() && !sync && cfg_.feat.sync_more && current_overlap < mc && e.avg_overlap < mc)
    sync = true;
  // Unsigned as in the kernel: removing the waker's weight may wrap (then: not balanced).
  auto tl = static_cast<uint64_t>(this_load);
  if (sync) tl -= static_cast<uint64_t>(current_weight);
  const auto w = static_cast<uint64_t>(e.load.weight);
  const auto imbalance = static_cast<uint64_t>(100 + (sd.t.imbalance_pct - 100) / 2);
  const auto l = static_cast<uint64_t>(load);
  const bool balanced = (era32() && tl == 0) || 100 * (tl + w) <= imbalance * (l + w);
  if (sync && balanced) return true;
  const auto tl_per_task = static_cast<uint64_t>(cpu_avg_load_per_task(this_cpu));
  return balanced || (tl <= l && tl + static_cast<uint64_t>(target_load(prev, idx)) <= tl_per_task);
}

// 2.6.31 select_task_rq_fair(): stay on prev unless wake_affine or passive balancing
// (SD_WAKE_BALANCE) pulls the task to the waker's CPU. wake_idle() finds nothing on
// domains without SD_WAKE_IDLE, which no default domain has, so it is left out.
CpuId Cfs::select_wake_cpu_2631(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker) {
  if (prev == this_cpu || !t.allowed_on(this_cpu)) return prev;
  const Domain* this_sd = nullptr;
  for (const Domain& sd : rq_[this_cpu].domains)
    if (sd.span.test(static_cast<size_t>(prev))) {
      this_sd = &sd;
      break;
    }
  if (!this_sd) return prev;
  const int idx = this_sd->t.wake_idx;
  const int64_t imbalance = 100 + (this_sd->t.imbalance_pct - 100) / 2;
  const int64_t load = source_load(prev, idx);
  const int64_t this_load = target_load(this_cpu, idx);
  if (this_sd->has(kSdWakeAffine) && cfg_.feat.affine_wakeups &&
      wake_affine(*this_sd, t, prev, this_cpu, sync, waker, load, this_load))
    return this_cpu;
  if (this_sd->has(kSdWakeBalance) && imbalance * this_load <= 100 * load) return this_cpu;
  return prev;
}

// 2.6.32 select_task_rq_fair() for a wake-up: the lowest SD_WAKE_AFFINE domain of the
// waker's CPU that spans prev; with SD_PREFER_SIBLING an idle CPU (no CFS task) in it is
// preferred; wake_affine() then decides between that CPU and prev.
CpuId Cfs::select_wake_cpu_2632(Task& t, CpuId prev, CpuId this_cpu, bool sync, TaskId waker) {
  const bool want_affine = cfg_.feat.affine_wakeups && t.allowed_on(this_cpu);
  if (!want_affine) return prev;
  CpuId cpu = this_cpu;
  const Domain* affine_sd = nullptr;
  for (const Domain& sd : rq_[this_cpu].domains) {
    if (!sd.has(kSdWakeAffine)) continue;
    CpuId candidate = kNoCpu;
    if (sd.span.test(static_cast<size_t>(prev))) candidate = cpu;
    if (sd.has(kSdPreferSibling)) {
      if (candidate == cpu && rq_[prev].nr_running == 0) candidate = prev;
      if (candidate == kNoCpu || candidate == cpu) {
        const CpuMask free = sd.span & t.allowed & no_cfs_tasks_;
        if (free.any()) candidate = static_cast<CpuId>(free._Find_first());
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
  if (wake_affine(*affine_sd, t, prev, this_cpu, sync, waker, source_load(prev, idx),
                  target_load(this_cpu, idx)))
    return cpu;
  return prev;
}

}  // namespace schedlab::cfs
