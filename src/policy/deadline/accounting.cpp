// The engine's share of SCHED_DEADLINE: sched_setattr()'s admission control, and the
// jobs whose ends are checked against their deadlines (the class is in dl_class.cpp).
#include <fmt/format.h>

#include "sim/engine.h"
#include "util/error.h"

namespace schedlab {

namespace {
// to_ratio(): a bandwidth in the kernel's fixed point (1 << 20 is one CPU).
int64_t to_ratio(Time period, Time runtime) {
  return static_cast<int64_t>((static_cast<Int128>(runtime) << 20) / period);
}
// The default sched_rt_runtime_us / sched_rt_period_us: deadline tasks may reserve 95 %
// of each CPU.
constexpr Time kRtRuntimeUs = 950000, kRtPeriodUs = 1000000;
}  // namespace

// __sched_setscheduler() for the attributes a task starts or enters a phase with. A
// deadline task must be allowed on every CPU (the kernel answers EPERM otherwise), and
// the bandwidths of all deadline tasks must fit in 95 % of the machine's capacity
// (__dl_overflow(); EBUSY otherwise). Both end the run with a clear error, as rt-app
// stops when sched_setattr() fails.
void Engine::set_sched_attrs(Task& t, const SchedSettings& s) {
  Exec& x = execs_[t.id];
  const bool deadline = s.policy == SchedPolicy::kDeadline;
  const int64_t new_bw = deadline ? to_ratio(s.dl_period_ns, s.dl_runtime_ns) : 0;
  if (deadline) {
    if (t.allowed.count() != static_cast<size_t>(machine_ref_.cpus))
      throw WorkloadError(
          fmt::format("tasks.{}: a SCHED_DEADLINE task must be allowed on every CPU (sched_setattr "
                      "fails with EPERM under a narrower affinity); drop its \"cpus\"",
                      x.spec->name));
    int64_t capacity = 0;
    for (CpuId c = 0; c < machine_ref_.cpus; ++c) capacity += machine_ref_.capacity[c];
    const int64_t limit = to_ratio(kRtPeriodUs, kRtRuntimeUs) * capacity >> 10;
    const int64_t total = dl_total_bw_ - x.dl_bw + new_bw;
    if (total > limit)
      throw WorkloadError(fmt::format(
          "tasks.{}: SCHED_DEADLINE admission control refuses '{}' (dl-runtime {} us / "
          "dl-period {} us): deadline tasks would reserve {:.3f} CPUs, more than 95 % of {} "
          "CPUs ({:.3f})",
          x.spec->name, t.name, s.dl_runtime_ns / 1000, s.dl_period_ns / 1000,
          static_cast<double>(total) / (1 << 20), machine_ref_.cpus,
          static_cast<double>(limit) / (1 << 20)));
  }
  dl_total_bw_ += new_bw - x.dl_bw;
  x.dl_bw = new_bw;
  t.policy = s.policy;
  t.nice = s.nice;
  t.rt_priority = s.rt_priority;
  // rt-app's dl-runtime on a fair task is a custom slice (EEVDF of 6.12).
  t.custom_slice_ns = is_rt(s.policy) || deadline ? 0 : s.dl_runtime_ns;
  t.dl_runtime_ns = deadline ? s.dl_runtime_ns : 0;
  t.dl_deadline_ns = deadline ? s.dl_deadline_ns : 0;
  t.dl_period_ns = deadline ? s.dl_period_ns : 0;
  if (!deadline) x.dl_job_deadline = -1;
}

// A job starts when a deadline task becomes runnable, or passes a timer whose period is
// already over: it is due one relative deadline later.
void Engine::dl_job_start(Task& t) {
  if (t.policy != SchedPolicy::kDeadline) return;
  Exec& x = execs_[t.id];
  x.dl_job_deadline = now_ + t.dl_deadline_ns;
  x.dl_job_exec = t.sum_exec_ns;
}

// A job ends when the task blocks, yields, exits or reaches a timer (the end of its
// period's work), and at the end of the run if its deadline has passed by then. A task
// that exits right after a wake-up (rt-app's last timer) had no job.
void Engine::dl_job_end(Task& t, bool exiting) {
  Exec& x = execs_[t.id];
  if (x.dl_job_deadline < 0) return;
  if (exiting && t.sum_exec_ns == x.dl_job_exec) {
    x.dl_job_deadline = -1;
    return;
  }
  emit({now_, EventType::kDlJob, 0, t.cpu, t.id, kNoTask, 0, now_ - x.dl_job_deadline});
  x.dl_job_deadline = -1;
}

void Engine::start_timer(TaskId t, Time at) {
  agenda_.push(at, AgendaKind::kClassTimer, t, 0);
}

}  // namespace schedlab
