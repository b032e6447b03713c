// SCHED_DEADLINE's contract with user space: sched_setattr()'s admission control
// (kernel/sched/deadline.c, sched_dl_overflow()), and the jobs whose ends are checked
// against their deadlines, counted by the rule of events/deadline_job.h and reported as
// kDlJob events. The scheduling itself is in deadline.cpp.
#include <fmt/format.h>

#include "policy/deadline/deadline.h"

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
// (__dl_overflow(); EBUSY otherwise). Either refusal ends the run, as rt-app stops when
// sched_setattr() fails. A task leaving the policy gives its bandwidth back and its open
// job is not counted.
std::string DlClass::sched_setattr(const Task& t, const SchedSettings& s) {
  const bool deadline = s.policy == SchedPolicy::kDeadline;
  const auto id = static_cast<size_t>(t.id);
  if (!deadline && id >= bw_.size()) return {};  // never a deadline task: nothing to undo
  if (id >= bw_.size()) bw_.resize(id + 1, 0);
  const int64_t new_bw = deadline ? to_ratio(s.dl_period_ns, s.dl_runtime_ns) : 0;
  const Machine& m = ctx_->machine();
  if (deadline) {
    if (t.allowed.count() != static_cast<size_t>(m.cpus))
      return "a SCHED_DEADLINE task must be allowed on every CPU (sched_setattr fails with EPERM "
             "under a narrower affinity); drop its \"cpus\"";
    int64_t capacity = 0;
    for (CpuId c = 0; c < m.cpus; ++c) capacity += m.capacity[c];
    const int64_t limit = to_ratio(kRtPeriodUs, kRtRuntimeUs) * capacity >> 10;
    const int64_t total = total_bw_ - bw_[id] + new_bw;
    if (total > limit)
      return fmt::format(
          "SCHED_DEADLINE admission control refuses '{}' (dl-runtime {} us / dl-period {} us): "
          "deadline tasks would reserve {:.3f} CPUs, more than 95 % of {} CPUs ({:.3f})",
          t.name, s.dl_runtime_ns / 1000, s.dl_period_ns / 1000,
          static_cast<double>(total) / (1 << 20), m.cpus, static_cast<double>(limit) / (1 << 20));
  }
  total_bw_ += new_bw - bw_[id];
  bw_[id] = new_bw;
  if (!deadline && id < se_.size()) se_[id].job.cancel();
  return {};
}

// A job starts when a deadline task becomes one or wakes, or passes a timer whose period
// is already over: it is due one relative deadline later.
void DlClass::start_job(Task& t) {
  se_[t.id].job.start(ctx_->now(), t.dl_deadline_ns, t.sum_exec_ns);
}

// A job ends when the task blocks, yields, exits or reaches a timer (the end of its
// period's work).
void DlClass::close_job(Task& t, bool exiting) {
  if (static_cast<size_t>(t.id) >= se_.size()) return;  // exits before it ever joined
  if (const auto late = se_[t.id].job.close(ctx_->now(), t.sum_exec_ns, exiting))
    ctx_->emit({ctx_->now(), EventType::kDlJob, 0, t.cpu, t.id, kNoTask, 0, *late});
}

void DlClass::task_woken(Task& t) {
  start_job(t);
}

void DlClass::task_blocked(Task& t) {
  close_job(t);
}

void DlClass::task_period_done(Task& t, bool next_started) {
  close_job(t);
  if (next_started) start_job(t);
}

// task_dead_dl(): the bandwidth is free again (at exit: there is no 0-lag timer here).
void DlClass::task_exiting(Task& t) {
  close_job(t, true);
  const auto id = static_cast<size_t>(t.id);
  if (id < bw_.size()) {
    total_bw_ -= bw_[id];
    bw_[id] = 0;
  }
}

// A job still open at the end of the run has missed if its deadline has passed by then.
void DlClass::run_ended() {
  for (Entity& e : se_) {
    if (!e.task) continue;
    if (const auto late = e.job.close_at_end(ctx_->now(), e.task->sum_exec_ns))
      ctx_->emit({ctx_->now(), EventType::kDlJob, 0, e.task->cpu, e.task->id, kNoTask, 0, *late});
  }
}

}  // namespace schedlab
