// The engine's side of the machine's costs (machine/costs.h) beyond the context switch and
// the migration refill: the delays of a wake-up that must reach another CPU or wake an
// idle one, and the slowdown of `run` work co-running with memory-heavy work on CPUs that
// share a cache or a core. Every path here is skipped when the machine sets no such cost.
#include <fmt/format.h>

#include "sim/engine.h"

namespace schedlab {

// A wake-up or fork is being placed on `target`: the reschedules it causes (engine's
// resched) pay the delays of wake_delay, and the woken task's first run the refill of the
// data its waker handed over when the two CPUs share no cache. A timer's wake-up has no
// waker and hands over nothing.
void Engine::begin_wake_costs(Task& woken, CpuId target, const WakeInfo& how) {
  wake_ctx_ = {true, how.waker_cpu, how.waker};
  const Time refill = machine_ref_.costs.wakeup_refill_ns;
  if (refill > 0 && how.waker != kNoTask && how.waker_cpu != kNoCpu &&
      !machine_ref_.same_llc(target, how.waker_cpu))
    execs_[woken.id].stall_left += refill;
}

// How late a reschedule that a wake-up asks of `cpu` arrives: the IPI when `cpu` is not
// the waker's (a timer's interrupt runs on the CPU its task slept on), else for a timer's
// wake-up the rest of its interrupt (timer_resched_ns) and, on a CPU idle a tick or more,
// the tick's restart (tick_restart_ns); and the exit from the idle state when `cpu`
// idles (unless an interrupt has just brought it out). A remote wake-up's idle exit, as
// calibrate measures it end to end, holds the tick's restart already.
Time Engine::wake_delay(CpuId cpu) const {
  const MachineCosts& costs = machine_ref_.costs;
  const Cpu& c = cpus_[cpu];
  const bool idle = !cpu_curr_[cpu];
  Time delay = 0;
  if (cpu != wake_ctx_.waker_cpu) {
    delay = costs.wakeup_ipi_ns;
  } else if (wake_ctx_.waker == kNoTask) {
    delay = costs.timer_resched_ns;
    // NO_HZ_IDLE stops the tick of a CPU whose next event is beyond the next tick
    if (idle && now_ - c.idle_since >= machine_ref_.tick_ns()) delay += costs.tick_restart_ns;
  }
  if (idle && c.awake_at != now_) delay += machine_ref_.idle_exit_ns(now_ - c.idle_since);
  return delay;
}

// A wake-up's reschedule of `cpu` is on its way (resched): the waker, running on its own
// CPU, spends the sending time before its next work when `cpu` is another.
void Engine::charge_ipi_send(CpuId cpu) {
  const Time send = machine_ref_.costs.wakeup_send_ns;
  if (send > 0 && cpu != wake_ctx_.waker_cpu && wake_ctx_.waker != kNoTask)
    execs_[wake_ctx_.waker].stall_left += send;
}

// need_resched is set already (resched): schedule() on `cpu` waits for this kIpi entry,
// which replaces a reschedule already on its way.
void Engine::delay_resched(CpuId cpu, Time delay) {
  Cpu& c = cpus_[cpu];
  c.ipi_pending = true;
  agenda_.push(now_ + delay, AgendaKind::kIpi, cpu, ++c.ipi_generation);
}

// The waker (on its CPU, accounted to now) spends wakeup_return_ns in the wake-up's
// system call: CPU time before its next step, as a stall. Wake-ups at one instant are one
// system call (a broadcast), so they share one return.
void Engine::begin_return(TaskId waker) {
  Exec& x = execs_[waker];
  const Time until = now_ + return_ns_;
  if (!tasks_[waker].on_cpu || until <= x.return_until) return;
  x.stall_left += until - std::max(now_, x.return_until);
  x.return_until = until;
}

// A waker that blocks in the same instant (a condition variable's signal and wait, a
// post then a wait) spends its return on this CPU before the switch (resched delays
// it), not on its next run.
void Engine::end_return_at_block(Exec& x) {
  if (x.return_until <= now_) return;
  x.stall_left = std::max<Time>(0, x.stall_left - (x.return_until - now_));
}

Time Engine::return_left(CpuId cpu) const {
  const Task* t = cpu_curr_[cpu];
  return t ? std::max<Time>(0, execs_[t->id].return_until - now_) : 0;
}

void Engine::deliver_ipi(CpuId cpu) {
  cpus_[cpu].ipi_pending = false;
  pending_rescheds_.push_back(cpu);
}

// A timer interrupt on an idle CPU is handled once the CPU has left its idle state, so the
// wake-up it makes (the sched_wakeup a trace records) comes that much after the expiry;
// the CPU is then awake and the wake-up onto it pays no idle exit again.
bool Engine::timer_waits_for_idle_exit(Task& t, Exec& x) {
  const Cpu& c = cpus_[t.cpu];
  if (cpu_curr_[t.cpu] || c.need_resched) return false;
  const Time exit = machine_ref_.idle_exit_ns(now_ - c.idle_since);
  if (exit == 0) return false;
  x.timer_exit_done = true;
  agenda_.push(now_ + exit, AgendaKind::kTaskWake, t.id, x.wake_generation);
  if (!x.spec->background) ++workload_timers_;
  return true;
}

// The slowdown of the task running on `cpu`, in 1/1024ths:
//   shared_cache_slowdown x m x (sum of m over the other busy CPUs sharing its cache)
//   + smt_slowdown x (busy SMT siblings),
// m being each task's memory intensity (1024 = 1.0).
int32_t Engine::corun_slowdown(CpuId cpu) const {
  const Task* t = cpu_curr_[cpu];
  if (!t) return 0;
  const int64_t m = execs_[t->id].memory_intensity_q10;
  int64_t shared = 0, siblings = 0;
  for (CpuId d : corun_neighbours_[cpu]) {
    const Task* other = cpu_curr_[d];
    if (!other) continue;
    shared += execs_[other->id].memory_intensity_q10;
    if (machine_ref_.same_core(cpu, d)) ++siblings;
  }
  return static_cast<int32_t>(((shared_cache_q10_ * m * shared) >> 20) + smt_q10_ * siblings);
}

// The rates change at this instant: each neighbour's work is charged at its old rate up
// to now, then its burst's end is moved to where the new rate puts it. `cpu` itself has
// been charged by the caller.
void Engine::corun_changed(CpuId cpu) {
  cpus_[cpu].slowdown_q10 = corun_slowdown(cpu);
  cpus_[cpu].slowdown_carry = 0;
  for (CpuId d : corun_neighbours_[cpu]) {
    const int32_t slowdown = corun_slowdown(d);
    Cpu& c = cpus_[d];
    if (slowdown == c.slowdown_q10) continue;
    account(d);
    c.slowdown_q10 = slowdown;
    c.slowdown_carry = 0;
    if (c.burst_armed && execs_[cpu_curr_[d]->id].burst == Burst::kWork) arm_burst(d);
  }
}

void Engine::set_memory_intensity(CpuId cpu, Exec& x, int32_t q10) {
  if (x.memory_intensity_q10 == q10) return;
  account(cpu);
  x.memory_intensity_q10 = q10;
  corun_changed(cpu);
}

}  // namespace schedlab
