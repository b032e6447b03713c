#include "analysis/analyzer.h"

#include <algorithm>

namespace schedlab {

void Analyzer::begin(const RunInfo& info) {
  info_ = info;
  m_ = Metrics{};
  residency_due_.clear();
  residency_due_.reserve(kResidencyBatch);
  m_.policy = info.policy;
  m_.seed = info.seed;
  m_.cpus = info.cpus;
  m_.origin_ns = info.origin_ns;
  m_.generator = info.generator;
  cpus_.assign(info.cpus, CpuTrack{});
  m_.per_cpu.resize(info.cpus);
  for (int c = 0; c < info.cpus; ++c) m_.per_cpu[c].id = c;
  tracks_.reserve(info.tasks_at_start);
  m_.tasks.reserve(info.tasks_at_start);
  outside_workload_.reserve(info.tasks_at_start);
}

void Analyzer::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= tracks_.size()) {
    tracks_.resize(t.id + 1);
    m_.tasks.resize(t.id + 1);
    outside_workload_.resize(t.id + 1, 0);
  }
  outside_workload_[t.id] = !t.workload;
  TaskTrack& tr = tracks_[t.id];
  tr.state = State::kSleeping;
  tr.since = t.created_ns;
  tr.allowed = t.allowed;
  tr.all_cpus = static_cast<int>(t.allowed.count()) >= info_.cpus;
  TaskMetrics& tm = m_.tasks[t.id];
  tm.tid = t.id;
  tm.name = t.name;
  const KernelIds::Ids& ids = ids_.add(t);
  tm.pid = ids.pid;
  tm.tgid = ids.tgid;
}

Time Analyzer::global_integral(Time now) const {
  return global_acc_ + (waiting_all_ > 0 ? now - global_since_ : 0);
}

Time Analyzer::own_integral(const CpuTrack& c, Time now) const {
  return c.own_acc + (c.own_active ? now - c.own_since : 0);
}

// Time when a task waits that this CPU could run but the everyone-allowed waiters do
// not already cover.
void Analyzer::update_own(CpuId cpu, Time now) {
  CpuTrack& c = cpus_[cpu];
  if (c.own_active) c.own_acc += now - c.own_since;
  c.own_active = c.restricted_waiting > 0 && waiting_all_ == 0;
  c.own_since = now;
}

void Analyzer::waiting_changed(TaskId id, int delta, Time now) {
  const TaskTrack& tr = tracks_[id];
  if (tr.all_cpus) {
    const bool before = waiting_all_ > 0;
    waiting_all_ += delta;
    const bool after = waiting_all_ > 0;
    if (before == after) return;
    if (after)
      global_since_ = now;
    else
      global_acc_ += now - global_since_;
    for (CpuId c : restricted_cpus_) update_own(c, now);
    return;
  }
  for (CpuId c = 0; c < info_.cpus; ++c) {
    if (!tr.allowed.test(static_cast<size_t>(c))) continue;
    CpuTrack& ct = cpus_[c];
    ct.restricted_waiting += delta;
    if (ct.restricted_waiting == 1 && delta > 0) restricted_cpus_.push_back(c);
    if (ct.restricted_waiting == 0) std::erase(restricted_cpus_, c);
    update_own(c, now);
  }
}

void Analyzer::set_state(TaskId id, State s, Time now) {
  TaskTrack& tr = tracks_[id];
  const Time elapsed = now - tr.since;
  switch (tr.state) {
    case State::kWaiting:
      tr.wait_ns += elapsed;
      break;
    case State::kRunning:
      tr.cpu_ns += elapsed;
      break;
    case State::kSleeping:
      tr.sleep_ns += elapsed;
      break;
    case State::kGone:
      break;
  }
  const bool was_waiting = tr.state == State::kWaiting;
  tr.state = s;
  tr.since = now;
  if (was_waiting != (s == State::kWaiting)) waiting_changed(id, was_waiting ? -1 : +1, now);
}

void Analyzer::add_residency(TaskId id) {
  TaskTrack& tr = tracks_[id];
  if (tr.cpu == kNoCpu) return;
  residency_due_.push_back({id, tr.cpu, tr.cpu_ns - tr.cpu_ns_on_cpu});
  tr.cpu_ns_on_cpu = tr.cpu_ns;
  if (residency_due_.size() == kResidencyBatch) add_due_residency();
}

void Analyzer::add_due_residency() {
  for (const ResidencyDue& due : residency_due_)
    m_.tasks[due.task].cpu_residency.add(due.cpu, due.ns);
  residency_due_.clear();
}

void Analyzer::copy_figures(TaskId id) {
  TaskTrack& tr = tracks_[id];
  TaskMetrics& tm = m_.tasks[id];
  add_residency(id);
  tm.cpu_time_ns = tr.cpu_ns;
  tm.wait_time_ns = tr.wait_ns;
  tm.sleep_time_ns = tr.sleep_ns;
  tm.switches_voluntary = tr.switches_voluntary;
  if (tr.preempted) ++tr.switches_involuntary;  // preempted, and never ran again
  tr.preempted = false;
  tm.switches_involuntary = tr.switches_involuntary;
  tm.delays = tr.delays;
  tm.delay_total_ns = tr.delay_total_ns;
  tm.delay_max_ns = tr.delay_max_ns;
  tm.delay_max_start_ns = tr.delay_max_start_ns;
  tm.delay_max_end_ns = tr.delay_max_end_ns;
}

void Analyzer::affinity_changed(TaskId id, const CpuMask& m, Time now) {
  TaskTrack& tr = tracks_[id];
  const bool waiting = tr.state == State::kWaiting;
  if (waiting) waiting_changed(id, -1, now);
  tr.allowed = m;
  tr.all_cpus = static_cast<int>(m.count()) >= info_.cpus;
  if (waiting) waiting_changed(id, +1, now);
}

void Analyzer::close_idle(CpuId cpu, Time now) {
  CpuTrack& c = cpus_[cpu];
  m_.per_cpu[cpu].idle_while_runnable_ns +=
      (global_integral(now) - c.global_mark) + (own_integral(c, now) - c.own_mark);
}

Time Analyzer::cpu_time_at(TaskId id, Time now) const {
  const TaskTrack& tr = tracks_[id];
  return tr.cpu_ns + (tr.state == State::kRunning ? now - tr.since : 0);
}

void Analyzer::switched_in(TaskId id, CpuId cpu, Time now, bool recorded) {
  TaskTrack& tr = tracks_[id];
  if (tr.preempted) ++tr.switches_involuntary;
  if (recorded && tr.ready_at >= 0) {
    const Time delay = now - tr.ready_at;
    if (tr.preempted || tr.woken) {
      TaskMetrics& tm = m_.tasks[id];
      if (tr.preempted) {
        ++tm.preempted_gaps;
        tm.preempted_gap_total_ns += delay;
        tm.preempted_gap_max_ns = std::max(tm.preempted_gap_max_ns, delay);
      }
      if (tr.woken) tm.wakeup_latency.add(tr.preempted ? now - tr.woken_at : delay);
    }
    ++tr.delays;
    tr.delay_total_ns += delay;
    if (delay > tr.delay_max_ns || tr.delays == 1) {
      tr.delay_max_ns = delay;
      tr.delay_max_start_ns = tr.ready_at;
      tr.delay_max_end_ns = now;
    }
  }
  tr.preempted = tr.woken = false;
  tr.ready_at = -1;
  if (cpu != tr.cpu) {
    add_residency(id);
    tr.cpu = cpu;
  }
  set_state(id, State::kRunning, now);
  if (!tr.ran) {
    tr.ran = true;
    tr.first_run = now;
  }
  if (tr.activation_pending) {  // running again after its timer: the iteration ends
    TimerActivation& a = tr.pending;
    a.end_ns = now;
    a.wakeup_latency_ns = std::max<Time>(0, now - (a.start_ns + a.run_ns + a.slack_ns));
    m_.tasks[id].activations.push_back(a);
    tr.activation_pending = false;
    tr.iteration_start = now;
    tr.cpu_at_iteration_start = cpu_time_at(id, now);
  }
}

// rt-app's timer step: the period's work is done; slack = expiry - now. A late timer does
// not sleep, so its iteration ends here; otherwise when the task runs again.
void Analyzer::timer_reached(const SchedEvent& e) {
  TaskTrack& tr = tracks_[e.task];
  if (tr.iteration_start < 0) {
    tr.iteration_start = tr.first_run >= 0 ? tr.first_run : e.time;
    tr.cpu_at_iteration_start = 0;
  }
  TimerActivation a;
  a.start_ns = tr.iteration_start;
  a.run_ns = e.time - a.start_ns;
  a.cpu_ns = cpu_time_at(e.task, e.time) - tr.cpu_at_iteration_start;
  a.slack_ns = e.value - e.time;
  a.c_period_us = e.arg;
  a.c_duration_us = e.other;
  if (a.slack_ns < 0) ++m_.tasks[e.task].missed_periods;
  if (e.value > e.time) {
    tr.pending = a;
    tr.activation_pending = true;
    return;
  }
  a.end_ns = e.time;
  m_.tasks[e.task].activations.push_back(a);
  tr.iteration_start = e.time;
  tr.cpu_at_iteration_start = cpu_time_at(e.task, e.time);
}

void Analyzer::event(const SchedEvent& e) {
  ++m_.events;
  switch (e.type) {
    case EventType::kSwitch: {
      if (e.arg != kStartState) ++m_.context_switches;
      if (e.arg == kInferredSwitch) ++m_.inferred_switches;
      CpuTrack& c = cpus_[e.cpu];
      if (c.curr == kNoTask) {
        close_idle(e.cpu, e.time);
        m_.per_cpu[e.cpu].idle_ns += e.time - c.since;
      } else {
        m_.per_cpu[e.cpu].busy_ns += e.time - c.since;
      }
      if (e.task != kNoTask) {
        const auto state = static_cast<PrevState>(e.detail);
        TaskTrack& tr = tracks_[e.task];
        if (state == PrevState::kPreempted) {
          // Counted when it runs again (a trace may switch a task out twice).
          if (tr.preempted) ++tr.switches_involuntary;
          if (tr.woken && !tr.preempted) tr.woken_at = tr.ready_at;  // its latency runs on
          tr.preempted = true;
          tr.ready_at = e.time;
          set_state(e.task, State::kWaiting, e.time);
        } else {
          ++tr.switches_voluntary;
          set_state(e.task, state == PrevState::kBlocked ? State::kSleeping : State::kGone, e.time);
        }
      }
      if (e.other != kNoTask) switched_in(e.other, e.cpu, e.time, e.arg != kInferredSwitch);
      c.curr = e.other;
      c.since = e.time;
      if (c.curr == kNoTask) {
        c.global_mark = global_integral(e.time);
        c.own_mark = own_integral(c, e.time);
      }
      break;
    }
    // A recording's wake-up starts at its sched_waking, where one was traced (perf sched
    // timehist does the same): on kernels since 3.0 the remote sched_wakeup comes on the
    // target CPU after the IPI (ttwu_queue), and the wait from waking is the task's.
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew: {
      TaskTrack& tr = tracks_[e.task];
      if (tr.state == State::kSleeping) {
        tr.woken = true;
        tr.ready_at = e.time;
        set_state(e.task, State::kWaiting, e.time);
      }
      break;
    }
    case EventType::kMigrate:
      ++m_.migrations;
      ++m_.tasks[e.task].migrations;
      break;
    case EventType::kExit:
      if (tracks_[e.task].state != State::kRunning) set_state(e.task, State::kGone, e.time);
      break;
    case EventType::kMark: {
      const std::string& name = info_.mark_names.at(e.arg);
      MarkMetrics& mk = m_.marks[name];
      mk.count += static_cast<uint64_t>(e.value);
      if (mk.first_ns < 0) mk.first_ns = e.time;
      mk.last_ns = e.time;
      const auto mark = static_cast<size_t>(e.arg), task = static_cast<size_t>(e.task);
      if (mark >= last_mark_.size()) last_mark_.resize(mark + 1);
      if (task >= last_mark_[mark].size()) last_mark_[mark].resize(task + 1, -1);
      Time& last = last_mark_[mark][task];
      if (last >= 0) mk.interval.add(e.time - last);
      last = e.time;
      break;
    }
    case EventType::kDlJob: {
      TaskMetrics& tm = m_.tasks[e.task];
      ++tm.dl_jobs;
      if (e.value > 0) ++tm.deadline_misses;
      break;
    }
    case EventType::kHolderPreempted:
      ++m_.lock_holder_preemptions;
      break;
    case EventType::kTimer:
      timer_reached(e);
      break;
    case EventType::kLost:
      if (e.value < 0)
        m_.per_cpu[e.cpu].lost_uncounted = true;
      else
        m_.per_cpu[e.cpu].lost_events += static_cast<uint64_t>(e.value);
      break;
    case EventType::kFork:
    case EventType::kBlock:
      break;
  }
}

void Analyzer::end(Time t) {
  m_.duration_ns = t;
  for (size_t id = 0; id < tracks_.size(); ++id) {
    set_state(static_cast<TaskId>(id), State::kGone, t);
    copy_figures(static_cast<TaskId>(id));
  }
  add_due_residency();
  for (CpuId c = 0; c < info_.cpus; ++c) {
    CpuTrack& ct = cpus_[c];
    if (ct.curr == kNoTask) {
      close_idle(c, t);
      m_.per_cpu[c].idle_ns += t - ct.since;
    } else {
      m_.per_cpu[c].busy_ns += t - ct.since;
    }
    ct.since = t;
  }
  close_task_metrics();
}

// The tasks of the workload only (a recording also sees the rest of the machine), and
// Jain's index of their CPU times: (sum x)^2 / (n sum x^2).
void Analyzer::close_task_metrics() {
  size_t kept = 0;
  for (size_t id = 0; id < m_.tasks.size(); ++id)
    if (!outside_workload_[id] && kept++ != id) m_.tasks[kept - 1] = std::move(m_.tasks[id]);
  m_.tasks.resize(kept);
  for (const TaskMetrics& tm : m_.tasks) m_.wakeup_latency.merge(tm.wakeup_latency);
  double sum = 0, sum_sq = 0;
  for (const TaskMetrics& tm : m_.tasks) {
    const double x = static_cast<double>(tm.cpu_time_ns);
    sum += x;
    sum_sq += x * x;
  }
  m_.jain_fairness =
      sum_sq > 0 ? (sum * sum) / (static_cast<double>(m_.tasks.size()) * sum_sq) : 1.0;
}

}  // namespace schedlab
