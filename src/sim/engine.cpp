#include "sim/engine.h"

#include <fmt/format.h>

#include <cmath>

#include "sim/background.h"
#include "util/error.h"

namespace schedlab {

namespace {

std::unique_ptr<const Workload> noisy_workload(const Machine& m, const Workload& w,
                                               const EngineOptions& o) {
  if (!has_background(m)) return nullptr;
  return std::make_unique<const Workload>(with_background(w, m, o.seed, o.end_ns));
}

int32_t q10(double factor) {
  return static_cast<int32_t>(std::lround(factor * 1024));
}

}  // namespace

Engine::Engine(const Machine& machine, const Workload& workload, ClassStack classes,
               EngineOptions options, EventSink& sink)
    : machine_ref_(machine),
      noisy_workload_(noisy_workload(machine, workload, options)),
      workload_(noisy_workload_ ? *noisy_workload_ : workload),
      stack_(std::move(classes)),
      options_(std::move(options)),
      sink_(sink),
      rng_storage_(options_.seed),
      sync_(workload_) {
  machine_ = &machine_ref_;
  task_store_ = &tasks_;
  tick_ns_ = machine.tick_ns();
  rng_ = &rng_storage_;
  cpu_curr_.assign(machine.cpus, nullptr);
  idle_cpus_ = all_cpus(machine.cpus);
  cpus_.resize(machine.cpus);
  agenda_ = Agenda(machine.cpus);
  fork_counts_.assign(workload_.tasks.size(), 0);
  for (const TaskSpec& spec : workload_.tasks) {
    auto& attrs = phase_attrs_.emplace_back();
    for (const Phase& p : spec.phases) {
      const auto& cpus = p.cpus ? p.cpus : spec.cpus;
      CpuMask mask = all_cpus(machine.cpus);
      if (cpus) {
        mask.reset();
        for (int c : *cpus) mask.set(static_cast<size_t>(c));
      }
      attrs.push_back({mask, p.sched});
    }
  }
  build_class_list();
  for (ClassSlot& slot : slots_) slot.cls->attach(*this);
  const MachineCosts& costs = machine.costs;
  wake_costs_ = costs.wakeup_ipi_ns > 0 || costs.wakeup_send_ns > 0 || costs.wakeup_refill_ns > 0 ||
                costs.timer_resched_ns > 0 || costs.tick_restart_ns > 0 ||
                !machine.idle_states.empty();
  return_ns_ = costs.wakeup_return_ns;
  shared_cache_q10_ = q10(costs.shared_cache_slowdown);
  smt_q10_ = q10(costs.smt_slowdown);
  corun_ = shared_cache_q10_ > 0 || smt_q10_ > 0;
  if (corun_) {
    corun_neighbours_.resize(machine.cpus);
    for (CpuId c = 0; c < machine.cpus; ++c)
      for (CpuId d = 0; d < machine.cpus; ++d)
        if (d != c && machine.same_llc(c, d)) corun_neighbours_[c].push_back(d);
  }
  has_background_ = noisy_workload_ != nullptr;
}

Engine::~Engine() = default;

// What the engine reads of each class on the hot path, asked once; each policy's class
// (the first that takes it); and the refusal of a task whose policy no class takes, as
// sched_setscheduler() answers EINVAL.
void Engine::build_class_list() {
  for (const auto& c : stack_.classes)
    slots_.push_back({c.get(), !c->idle_until_first_task(), c->decides_preemption_of_lower(),
                      c->decides_preemption_by_higher(), c->follows_task_life()});
  constexpr uint8_t kNoClass = 0xff;
  class_index_.fill(kNoClass);
  for (size_t p = 0; p < kPolicies; ++p)
    for (size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].cls->takes(static_cast<SchedPolicy>(p))) {
        class_index_[p] = static_cast<uint8_t>(i);
        break;
      }
  auto check = [&](const TaskSpec& t, SchedPolicy p) {
    if (class_index_[static_cast<size_t>(p)] == kNoClass)
      throw InputError("", "tasks." + t.name + ".policy", stack_.why_refused(p));
  };
  for (const TaskSpec& t : workload_.tasks) {
    check(t, t.sched.policy);
    for (const Phase& p : t.phases)
      if (p.sched) check(t, p.sched->policy);
  }
}

void Engine::join_class(Task& t, const Task* parent) {
  ClassSlot& slot = slot_of(t);
  slot.in_use = true;
  slot.cls->task_new(t, parent);
}

EngineResult Engine::run() {
  RunInfo info;
  info.policy = options_.policy_name;
  info.seed = options_.seed;
  info.cpus = machine_ref_.cpus;
  info.generator = options_.generator;
  info.mark_names = workload_.marks.names;
  info.block_object_names = {{},
                             workload_.timers.names,
                             workload_.mutexes.names,
                             workload_.condvars.names,
                             workload_.barriers.names,
                             workload_.suspend_queues.names,
                             workload_.counters.names,
                             workload_.spinlocks.names,
                             workload_.spinlocks.names,
                             workload_.semaphores.names,
                             workload_.lwlocks.names,
                             workload_.innodb_rwlocks.names};
  for (const TaskSpec& spec : workload_.tasks)
    if (spec.delay_ns <= 0) info.tasks_at_start += static_cast<size_t>(spec.instances);
  sink_.begin(info);
  start_static_tasks();
  process_rescheds();
  uint64_t handled = 0;
  while (!agenda_.empty() && live_tasks_ + pending_starts_ > 0) {
    const AgendaItem item = agenda_.top();
    if (item.time > options_.end_ns) break;
    agenda_.pop();
    if (options_.check_invariants && item.time < now_)  // pushed for a time already past
      violation(fmt::format("the clock would go back from {} to {} ns", now_, item.time));
    now_ = item.time;
    switch (item.kind()) {
      case AgendaKind::kTaskStart: {
        const TaskSpec& spec = workload_.tasks[item.target()];
        if (!spec.background) --pending_starts_;
        create_task(
            item.target(),
            spec.instances > 1 ? fmt::format("{}-{}", spec.name, item.generation()) : spec.name,
            nullptr);
        break;
      }
      case AgendaKind::kTaskWake: {
        // Both found from the id: their cache misses overlap.
        Task& t = tasks_[item.target()];
        Exec& x = execs_[item.target()];
        if (!x.spec->background) --workload_timers_;
        if (static_cast<uint32_t>(x.wake_generation) != item.generation() || t.runnable) break;
        if (x.timer_exit_done)
          cpus_[t.cpu].awake_at = now_;  // out of idle for this timer's interrupt
        else if (wake_costs_ && timer_waits_for_idle_exit(t, x))
          break;
        wake(t, WakeInfo{WakeKind::kWakeup, t.cpu, false}, kNoTask);
        break;
      }
      case AgendaKind::kBurstEnd:
        if (cpus_[item.target()].burst_armed) on_burst_end(item.target());
        break;
      case AgendaKind::kTick:
        if (item.generation() == static_cast<uint32_t>(jiffy_generation_)) on_jiffy();
        break;
      case AgendaKind::kClassTimer:  // the generation names the class that started it
        --workload_timers_;
        slots_[item.generation()].cls->timer_fired(item.target());
        break;
      case AgendaKind::kIpi:
        if (cpus_[item.target()].ipi_pending &&
            cpus_[item.target()].ipi_generation == item.generation())
          deliver_ipi(item.target());
        break;
    }
    process_rescheds();
    // Background tasks keep the agenda full: a workload with nothing runnable and nothing
    // timed left can never move again.
    if (has_background_ && workload_runnable_ == 0 && workload_timers_ == 0 &&
        pending_starts_ == 0 && live_tasks_ > 0)
      deadlock();
    if (options_.check_invariants && (++handled % 1024) == 0) check_all_accounted();
  }
  const bool finished = live_tasks_ + pending_starts_ == 0;
  if (!finished && agenda_.empty()) deadlock();
  const Time end = finished ? now_ : options_.end_ns;
  now_ = end;
  for (ClassSlot& slot : slots_)
    if (slot.follows_task_life) slot.cls->run_ended();
  for (CpuId c = 0; c < machine_ref_.cpus; ++c) {
    account(c);
    if (!cpu_curr_[c]) cpus_[c].idle_ns += end - cpus_[c].idle_since;
  }
  if (options_.check_invariants) {
    check_all_accounted();
    check_conservation(end);
  }
  sink_.end(end);
  result_.end_ns = end;
  result_.all_exited = finished;
  return result_;
}

void Engine::start_static_tasks() {
  for (size_t i = 0; i < workload_.tasks.size(); ++i) {
    const TaskSpec& spec = workload_.tasks[i];
    for (int k = 0; k < spec.instances; ++k) {
      if (spec.delay_ns > 0) {
        agenda_.push(spec.delay_ns, AgendaKind::kTaskStart, static_cast<int32_t>(i), k);
        if (!spec.background) ++pending_starts_;
      } else {
        create_task(static_cast<int>(i),
                    spec.instances > 1 ? fmt::format("{}-{}", spec.name, k) : spec.name, nullptr);
      }
    }
  }
}

CpuId Engine::checked_cpu(const Task& t, CpuId cpu) const {
  if (cpu < 0 || cpu >= machine_ref_.cpus || !t.allowed_on(cpu))
    violation(fmt::format("select_cpu placed {} on CPU {} outside its affinity", t.name, cpu));
  return cpu;
}

Task& Engine::create_task(int spec_index, const std::string& name, Task* parent) {
  const TaskSpec& spec = workload_.tasks[spec_index];
  if (live_tasks_ >= options_.max_live_tasks)  // a fork tree grows without bound otherwise
    throw WorkloadError(fmt::format(
        "more than {} tasks alive at once at {:.6f} s, when {} (--max-tasks raises the limit)",
        options_.max_live_tasks, static_cast<double>(now_) / 1e9,
        parent ? fmt::format("task {} forks {}", parent->name, name)
               : fmt::format("task {} starts", name)));
  const auto& [first_mask, first_sched] = phase_attributes(spec, 0);
  CpuMask allowed = first_mask;
  SchedSettings s = first_sched.value_or(spec.sched);
  // rt-app's forked thread sleeps until t_zero + delay, if that is still ahead, before its
  // first phase sets its attributes; until then it has its creator's, as pthread_create
  // gives them (a deadline creator's as SCHED_OTHER: an assumption, since the kernel
  // refuses a deadline task's fork unless it resets on fork).
  const bool starts_later = parent && spec.delay_ns > now_;
  if (starts_later) {
    allowed = parent->allowed;
    s = SchedSettings{};
    if (parent->policy != SchedPolicy::kDeadline) {
      s.policy = parent->policy;
      s.nice = parent->nice;
      s.rt_priority = parent->rt_priority;
    }
  }
  Task& t = tasks_.emplace_back();
  Exec& x = execs_.emplace_back();
  t.id = static_cast<TaskId>(tasks_.size() - 1);
  t.name = name;
  t.parent = parent ? parent->id : kNoTask;
  t.allowed = allowed;
  t.nr_cpus_allowed = static_cast<int>(t.allowed.count());
  x.spec = &spec;
  set_runnable(t, true);
  set_sched_attrs(t, s);
  x.t_first = spec.delay_ns;  // rt-app: t_zero + delay, for forked threads too
  if (starts_later) {
    x.start_at = spec.delay_ns;
    x.own_attrs_due = true;
  }
  x.memory_intensity_q10 = spec.phases[0].memory_intensity_q10 >= 0
                               ? spec.phases[0].memory_intensity_q10
                               : spec.memory_intensity_q10;
  if (!spec.background) ++live_tasks_;
  sink_.task_created(info_of(t));
  if (parent) emit({now_, EventType::kFork, 0, parent->cpu, parent->id, t.id, 0, 0});
  if (spec.loop == 0) {  // rt-app runs no iteration at all
    exit_task(t);
    return t;
  }
  SchedClass& cls = class_of(t);
  join_class(t, parent);
  CpuId origin = parent ? parent->cpu : 0;
  if (!t.allowed_on(origin)) origin = static_cast<CpuId>(t.allowed.find_first());
  t.cpu = origin;  // sched_fork: the child starts where the parent runs
  const WakeInfo how{WakeKind::kFork, origin, false, parent ? parent->id : kNoTask};
  const CpuId cpu = checked_cpu(t, cls.select_cpu(t, origin, how));
  t.cpu = cpu;
  emit({now_, EventType::kWakeupNew, 0, cpu, t.id, t.parent, 0, 0});
  account(cpu);  // the queue's clock is current before it changes (update_curr)
  if (wake_costs_ && parent) begin_wake_costs(t, cpu, how);
  if (return_ns_ > 0 && parent) begin_return(parent->id);
  cls.enqueue(cpu, t, EnqueueFlags{EnqueueKind::kNew, how});
  t.queued = true;
  check_preempt_curr(cpu, t, how);
  wake_ctx_.active = false;
  return t;
}

// __sched_setscheduler() for the settings a task starts or enters a phase with. Any class
// may refuse them (the deadline class's admission control); that ends the run with an
// error naming the task, as rt-app stops when sched_setattr() fails.
void Engine::set_sched_attrs(Task& t, const SchedSettings& s) {
  for (ClassSlot& slot : slots_)
    if (const std::string refused = slot.cls->sched_setattr(t, s); !refused.empty())
      throw WorkloadError(fmt::format("tasks.{}: {}", execs_[t.id].spec->name, refused));
  const bool deadline = s.policy == SchedPolicy::kDeadline;
  t.policy = s.policy;
  t.nice = s.nice;
  t.rt_priority = s.rt_priority;
  policy_changed(t);
  // rt-app's dl-runtime on a SCHED_OTHER or SCHED_BATCH task is a custom slice (EEVDF of
  // 6.12: fair_policy(), which SCHED_IDLE is not, in __setscheduler_params()).
  t.custom_slice_ns = takes_custom_slice(s.policy) ? s.dl_runtime_ns : 0;
  t.dl_runtime_ns = deadline ? s.dl_runtime_ns : 0;
  t.dl_deadline_ns = deadline ? s.dl_deadline_ns : 0;
  t.dl_period_ns = deadline ? s.dl_period_ns : 0;
}

void Engine::wake(Task& t, const WakeInfo& how_, TaskId waker) {
  WakeInfo how = how_;
  how.waker = waker;
  if (return_ns_ > 0 && waker != kNoTask) begin_return(waker);
  Exec& x = execs_[t.id];
  ++x.wake_generation;  // a pending timed wake-up is void now
  x.timer_exit_done = false;
  set_runnable(t, true);
  if (t.on_cpu) {  // blocked but not yet switched out: it simply keeps running
    emit({now_, EventType::kWakeup, 0, t.cpu, t.id, waker, 0, 0});
    notify_woken(t);
    return;
  }
  SchedClass& cls = class_of(t);
  const CpuId cpu = checked_cpu(t, cls.select_cpu(t, t.cpu, how));
  set_task_cpu(t, cpu);
  emit({now_, EventType::kWakeup, 0, cpu, t.id, waker, 0, 0});
  notify_woken(t);
  account(cpu);  // the queue's clock is current before it changes (update_curr)
  if (wake_costs_) begin_wake_costs(t, cpu, how);
  cls.enqueue(cpu, t, EnqueueFlags{EnqueueKind::kWakeup, how});
  t.queued = true;
  check_preempt_curr(cpu, t, how);
  wake_ctx_.active = false;
}

void Engine::set_runnable(Task& t, bool runnable) {
  t.runnable = runnable;
  if (!execs_[t.id].spec->background) workload_runnable_ += runnable ? 1 : -1;
}

void Engine::block(Task& t, BlockReason reason, int32_t object) {
  Exec& x = execs_[t.id];
  set_runnable(t, false);
  x.block_reason = reason;
  x.block_object = object;
  if (return_ns_ > 0) end_return_at_block(x);
  emit({now_, EventType::kBlock, static_cast<uint8_t>(reason), t.cpu, t.id, kNoTask, object, 0});
  notify_blocked(t);
  resched(t.cpu);
}

void Engine::exit_task(Task& t) {
  set_runnable(t, false);
  Exec& x = execs_[t.id];
  x.exited = true;
  if (!x.spec->background) --live_tasks_;
  notify_exiting(t);
  emit({now_, EventType::kExit, 0, t.cpu, t.id, kNoTask, 0, 0});
  if (t.on_cpu) resched(t.cpu);
}

void Engine::set_task_cpu(Task& t, CpuId cpu) {
  if (t.cpu == cpu) return;
  if (t.cpu != kNoCpu) emit({now_, EventType::kMigrate, 0, t.cpu, t.id, kNoTask, cpu, 0});
  t.cpu = cpu;
}

void Engine::check_preempt_curr(CpuId cpu, Task& woken, const WakeInfo& how) {
  Task* curr = cpu_curr_[cpu];
  if (!curr) {
    resched(cpu);
    return;
  }
  if (curr == &woken || !curr->runnable || cpus_[cpu].need_resched) return;
  account(cpu);
  // Within a class, the class decides; across classes, a higher class preempts and a
  // lower one waits, unless the woken task's class decides that case itself.
  const size_t woken_rank = class_index(woken), curr_rank = class_index(*curr);
  const ClassSlot& woken_class = slots_[woken_rank];
  if (woken_rank == curr_rank ||
      (woken_rank < curr_rank ? woken_class.decides_preemption_of_lower
                              : woken_class.decides_preemption_by_higher))
    woken_class.cls->check_preempt(cpu, *curr, woken, how);
  else if (woken_rank < curr_rank)
    resched(cpu);
}

void Engine::resched(CpuId cpu) {
  Cpu& c = cpus_[cpu];
  // A task still in the system call of a wake-up it made is switched out once it returns.
  const Time returning = return_ns_ > 0 ? return_left(cpu) : 0;
  if (c.need_resched) {
    // Outside a wake-up (the CPU's own block, exit or tick, a balancer) it is at once.
    if (c.ipi_pending && !wake_ctx_.active) {
      if (returning > 0)
        delay_resched(cpu, returning);
      else
        deliver_ipi(cpu);
    }
    return;
  }
  c.need_resched = true;
  idle_cpus_.reset(static_cast<size_t>(cpu));
  const Time wake = wake_ctx_.active ? wake_delay(cpu) : 0;
  if (wake > 0) charge_ipi_send(cpu);
  if (const Time delay = std::max(wake, returning); delay > 0) {
    c.resched_at_return = returning >= wake;
    delay_resched(cpu, delay);
    return;
  }
  pending_rescheds_.push_back(cpu);
}

void Engine::process_rescheds() {
  for (size_t i = 0; i < pending_rescheds_.size(); ++i) {
    // A class that asks for schedule() again from every schedule() would spin here forever.
    if (i > 1'000'000) violation("schedule() keeps rescheduling at one instant (a livelock)");
    const CpuId cpu = pending_rescheds_[i];
    if (cpus_[cpu].need_resched) schedule(cpu);
  }
  pending_rescheds_.clear();
}

void Engine::migrate_queued(Task& t, CpuId to, uint32_t class_bits) {
  if (!t.queued || t.on_cpu)
    violation(fmt::format("migrate_queued of {}, which is not queued", t.name));
  if (to < 0 || to >= machine_ref_.cpus || !t.allowed_on(to))
    violation(fmt::format("migration of {} to CPU {} outside its affinity", t.name, to));
  SchedClass& cls = class_of(t);
  const CpuId from = t.cpu;
  cls.dequeue(from, t, DequeueKind::kMigrate);
  t.queued = false;
  set_task_cpu(t, to);
  account(to);  // the queue's clock is current before it changes (update_curr)
  const WakeInfo how{WakeKind::kMigrate, from, false};
  cls.enqueue(to, t, EnqueueFlags{EnqueueKind::kMigrate, how, class_bits});
  t.queued = true;
  check_preempt_curr(to, t, how);
}

void Engine::start_timer(SchedClass& owner, TaskId t, Time at) {
  uint32_t index = 0;
  while (index < slots_.size() && slots_[index].cls != &owner) ++index;
  if (index == slots_.size()) violation("start_timer by a class outside the class list");
  agenda_.push(at, AgendaKind::kClassTimer, t, index);
  ++workload_timers_;
}

void Engine::schedule(CpuId cpu) {
  Cpu& c = cpus_[cpu];
  c.need_resched = false;
  c.ipi_pending = false;
  c.resched_at_return = false;
  Task* prev = cpu_curr_[cpu];
  if (prev) {
    account(cpu);
    Exec& x = execs_[prev->id];
    if (prev->runnable && x.attrs_pending) {
      requeue_with_new_attrs(cpu, *prev);
    } else if (prev->runnable) {
      class_of(*prev).put_prev(cpu, *prev);
      prev->queued = true;
      prev->on_cpu = false;  // queued like any other task until it is picked again
    } else {
      class_of(*prev).dequeue(cpu, *prev, x.exited ? DequeueKind::kExit : DequeueKind::kSleep);
      if (x.exited) class_of(*prev).task_dead(*prev);
    }
  }
  switch_to(cpu, prev, pick(cpu));
  for (ClassSlot& slot : slots_)
    if (slot.in_use) slot.cls->post_schedule(cpu);
}

// pick_next_task(): each class in turn, highest first, balances then picks; when none
// has a task, each may pull one (new-idle balancing) before it is asked again.
Task* Engine::pick(CpuId cpu) {
  Task* next = nullptr;
  for (ClassSlot& slot : slots_) {
    if (!slot.in_use) continue;
    slot.cls->balance(cpu);
    if ((next = slot.cls->pick_next(cpu))) break;
  }
  if (!next)
    for (ClassSlot& slot : slots_) {
      if (!slot.in_use) continue;
      slot.cls->idle_balance(cpu);
      if ((next = slot.cls->pick_next(cpu))) break;
    }
  if (!next) return nullptr;
  if (!next->allowed_on(cpu))
    violation(fmt::format("{} picked on CPU {} outside its affinity", next->name, cpu));
  if (options_.check_invariants) check_pick(cpu, next);
  next->queued = false;
  set_task_cpu(*next, cpu);
  return next;
}

void Engine::requeue_with_new_attrs(CpuId cpu, Task& prev) {
  Exec& x = execs_[prev.id];
  SchedClass& old_class = class_of(prev);
  old_class.put_prev(cpu, prev);
  prev.queued = true;
  old_class.dequeue(cpu, prev, DequeueKind::kRequeue);
  prev.queued = false;
  const bool mask_changed = prev.allowed != x.pending_allowed;
  const SchedSettings& s = x.pending_sched;
  const bool sched_changed =
      s.policy != prev.policy || s.nice != prev.nice || s.rt_priority != prev.rt_priority;
  prev.allowed = x.pending_allowed;
  prev.nr_cpus_allowed = static_cast<int>(prev.allowed.count());
  set_sched_attrs(prev, s);
  x.attrs_pending = false;
  if (mask_changed) sink_.affinity_changed(prev.id, prev.allowed, now_);
  if (sched_changed) sink_.sched_changed(info_of(prev), now_);
  SchedClass& cls = class_of(prev);
  if (&cls != &old_class) join_class(prev, nullptr);
  const WakeInfo how{WakeKind::kMigrate, cpu, false};
  const CpuId target =
      prev.allowed_on(cpu) ? cpu : checked_cpu(prev, cls.select_cpu(prev, cpu, how));
  set_task_cpu(prev, target);
  account(target);  // the queue's clock is current before it changes (update_curr)
  cls.enqueue(target, prev, EnqueueFlags{EnqueueKind::kRequeue, how});
  prev.queued = true;
  if (target != cpu) check_preempt_curr(target, prev, how);
}

void Engine::switch_to(CpuId cpu, Task* prev, Task* next) {
  Cpu& c = cpus_[cpu];
  // Whatever was due on this CPU is void now; its slot is reused by the next burst.
  c.burst_armed = false;
  if (prev != next) {
    SchedEvent e{
        now_, EventType::kSwitch, 0, cpu, prev ? prev->id : kNoTask, next ? next->id : kNoTask, 0,
        0};
    if (prev) {
      const Exec& px = execs_[prev->id];
      const PrevState state = prev->runnable ? PrevState::kPreempted
                              : px.exited    ? PrevState::kExited
                                             : PrevState::kBlocked;
      e.detail = static_cast<uint8_t>(state);
      if (state == PrevState::kBlocked) e.arg = static_cast<int32_t>(px.block_reason);
      prev->on_cpu = false;
      prev->last_ran_ns = now_;
      execs_[prev->id].last_cpu_ran = cpu;
    } else {
      c.idle_ns += now_ - c.idle_since;
    }
    emit(e);
    if (next) {
      next->on_cpu = true;
      c.overhead_left = machine_ref_.context_switch_ns;
      Exec& nx = execs_[next->id];
      nx.stall_left +=
          machine_ref_.migration_penalty(nx.last_cpu_ran, cpu, now_ - next->last_ran_ns);
    } else {
      c.idle_since = now_;
      c.overhead_left = 0;
    }
  }
  if (next) next->on_cpu = true;
  set_curr(cpu, next);
  idle_cpus_.set(static_cast<size_t>(cpu), next == nullptr);
  c.seg_start = now_;
  if (corun_ && prev != next) corun_changed(cpu);
  if (!next) {
    c.tick_armed = false;
    return;
  }
  arm_tick(cpu);
  Exec& nx = execs_[next->id];
  nx.holder_episode_counted = false;  // running again: a later preemption is a new episode
  if (nx.burst == Burst::kSpin) {
    // Back on a CPU while spinning: a lock freed meanwhile is taken at once.
    const Step& s = nx.spec->phases[nx.phase].steps[nx.step];
    SpinLockState& lock = sync_.spinlocks[s.object];
    if (lock.owner == kNoTask) {
      lock.owner = next->id;
      std::erase(lock.spinners, next->id);  // no longer spinning: it holds the lock
      nx.spin_left = 0;
    }
  }
  if (nx.burst == Burst::kRwSpin) {
    // Back on a CPU while spinning on an InnoDB rw-lock: a field freed meanwhile ends it.
    const Step& s = nx.spec->phases[nx.phase].steps[nx.step];
    if (innodb_rw_spin_over(sync_.innodb_rwlocks[s.object], next->id,
                            static_cast<LwLockMode>(s.amount)))
      nx.spin_left = 0;
  }
  if (nx.burst == Burst::kNone)
    advance_program(cpu);
  else
    arm_burst(cpu);
}

void Engine::account(CpuId cpu) {
  Task* t = cpu_curr_[cpu];
  if (!t) return;
  Cpu& c = cpus_[cpu];
  Time elapsed = now_ - c.seg_start;
  if (elapsed <= 0) return;
  c.seg_start = now_;
  const Time overhead = std::min(elapsed, c.overhead_left);
  c.overhead_left -= overhead;
  c.overhead_ns += overhead;
  elapsed -= overhead;
  if (elapsed == 0) return;
  t->sum_exec_ns += elapsed;
  Exec& x = execs_[t->id];
  const Time stall = std::min(elapsed, x.stall_left);
  x.stall_left -= stall;
  const Time progress = elapsed - stall;
  if (x.burst == Burst::kWork) {
    if (c.slowdown_q10 == 0)
      x.work_scaled -= static_cast<Int128>(progress) * machine_ref_.capacity[cpu];
    else {  // at 1024 / (1024 + slowdown) of the rate, the remainder carried to the next
      const Int128 done =
          static_cast<Int128>(progress) * machine_ref_.capacity[cpu] * 1024 + c.slowdown_carry;
      x.work_scaled -= done / (1024 + c.slowdown_q10);
      c.slowdown_carry = static_cast<int64_t>(done % (1024 + c.slowdown_q10));
    }
    if (x.work_scaled < 0) x.work_scaled = 0;
  } else if (x.burst == Burst::kSpin || x.burst == Burst::kRwSpin) {
    x.spin_left = std::max<Time>(0, x.spin_left - progress);
  }
}

void Engine::arm_burst(CpuId cpu) {
  Cpu& c = cpus_[cpu];
  const Exec& x = execs_[cpu_curr_[cpu]->id];
  const Time base = c.seg_start + c.overhead_left + x.stall_left;
  Time end = base;
  switch (x.burst) {
    case Burst::kWork: {
      const int cap = machine_ref_.capacity[cpu];
      if (c.slowdown_q10 != 0) {  // co-running: 1024 / (1024 + slowdown) of the rate
        const Int128 rate = Int128{cap} * 1024;
        end = base + static_cast<Time>((x.work_scaled * (1024 + c.slowdown_q10) + rate - 1) / rate);
      } else if (cap == 1024 &&
                 x.work_scaled <= INT64_MAX)  // the common case, without a 128-bit divide
        end = base + static_cast<Time>((static_cast<int64_t>(x.work_scaled) + 1023) >> 10);
      else
        end = base + static_cast<Time>((x.work_scaled + cap - 1) / cap);
      break;
    }
    case Burst::kRuntime:
      end = std::max(base, x.runtime_end);
      break;
    case Burst::kSpin:
    case Burst::kRwSpin:
      end = base + x.spin_left;
      break;
    case Burst::kNone:
      break;
  }
  c.burst_armed = true;
  agenda_.set_slot(cpu, end, AgendaKind::kBurstEnd);
}

void Engine::arm_tick(CpuId cpu) {
  Cpu& c = cpus_[cpu];
  // Ticks fall on the global jiffy grid: the first jiffy after now, or the first at or
  // after the time the class wants one.
  const Time wanted = class_of(*cpu_curr_[cpu]).next_tick_wanted(cpu, *cpu_curr_[cpu]);
  // Divisions only when now_ crosses a jiffy or the class wants a later one.
  if (now_ >= next_grid_) next_grid_ = (now_ / tick_ns_ + 1) * tick_ns_;
  const Time next =
      wanted <= next_grid_ ? next_grid_ : (wanted + tick_ns_ - 1) / tick_ns_ * tick_ns_;
  if (c.tick_armed && c.tick_at <= next) return;
  c.tick_armed = true;
  c.tick_at = next;
  if (jiffy_at_ < 0 || next < jiffy_at_) arm_jiffy(next);
}

// One agenda entry stands for the next jiffy at which any CPU ticks, so a machine of many
// CPUs costs one heap operation per jiffy rather than one per CPU.
void Engine::arm_jiffy(Time at) {
  jiffy_at_ = at;
  agenda_.push(at, AgendaKind::kTick, 0, ++jiffy_generation_);
}

void Engine::on_jiffy() {
  jiffy_at_ = -1;
  for (CpuId cpu = 0; cpu < machine_ref_.cpus; ++cpu) {
    if (!cpus_[cpu].tick_armed || cpus_[cpu].tick_at != now_) continue;
    on_tick(cpu);
    process_rescheds();
  }
  Time next = -1;
  for (const Cpu& c : cpus_)
    if (c.tick_armed && (next < 0 || c.tick_at < next)) next = c.tick_at;
  if (next >= 0 && (jiffy_at_ < 0 || next < jiffy_at_)) arm_jiffy(next);
}

void Engine::on_tick(CpuId cpu) {
  Cpu& c = cpus_[cpu];
  c.tick_armed = false;
  Task* curr = cpu_curr_[cpu];
  if (!curr) return;
  account(cpu);
  class_of(*curr).task_tick(cpu, *curr);
  for (ClassSlot& slot : slots_)
    if (slot.in_use) slot.cls->tick_balance(cpu);
  arm_tick(cpu);
}

void Engine::on_burst_end(CpuId cpu) {
  cpus_[cpu].burst_armed = false;
  account(cpu);
  Task& t = *cpu_curr_[cpu];
  Exec& x = execs_[t.id];
  const Burst finished = x.burst;
  x.burst = Burst::kNone;
  x.work_scaled = 0;
  x.spin_left = 0;
  if (finished == Burst::kSpin) {
    const Step& s = x.spec->phases[x.phase].steps[x.step];
    if (sync_.spinlocks[s.object].owner != t.id) {
      spin_attempt_failed(cpu, t, x);
      return;
    }
  }
  if (finished == Burst::kRwSpin) {
    innodb_rw_spin_ended(cpu, t, x);
    return;
  }
  advance_program(cpu);
}

TaskInfo Engine::info_of(const Task& t) const {
  TaskInfo info;
  info.id = t.id;
  info.name = t.name;
  info.parent = t.parent;
  info.policy = t.policy;
  info.nice = t.nice;
  info.rt_priority = t.rt_priority;
  info.allowed = t.allowed;
  info.created_ns = now_;
  info.workload = !execs_[t.id].spec->background;
  return info;
}

}  // namespace schedlab
