// Records of an ftrace trace, sorted by time, replayed into the event stream: tasks
// numbered in order of first appearance (pid 0 is the idle task) and announced, what ran
// on each CPU when the trace began, then every record, with times relative to the
// trace's start.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "host/ftrace_record.h"

namespace schedlab {

namespace {

using Kind = FtraceKind;
using Side = FtraceSide;
using Record = FtraceRecord;

struct TaskRow {
  std::string comm;
  Time created = 0;
  TaskId parent = kNoTask;
  int64_t pid = 0, tgid = 0;
  bool from_start = false;  // running on a CPU when the trace began
  struct PrioSeen {
    int prio = 120;
    uint32_t lines = 0;
    Time first_ns = 0;
  };
  std::vector<PrioSeen> prios = {};  // each prio its lines show, how often, since when

  void saw_prio(int prio, Time at) {
    for (PrioSeen& p : prios)
      if (p.prio == prio) {
        ++p.lines;
        return;
      }
    prios.push_back({prio, 1, at});
  }
  // The prio most of the task's lines show (of equals the later seen), 120 if none shows
  // one. Not its first: a thread sets its own policy or nice after it starts (rt-app's
  // SCHED_DEADLINE threads with sched_setattr, x264's frame threads with nice), so its
  // first lines show what it was forked with; a priority-inheritance boost is brief.
  PrioSeen prio() const {
    PrioSeen most;
    for (const PrioSeen& seen : prios)
      if (seen.lines >= most.lines) most = seen;
    return most;
  }
};

// A trace's prio field: -1 SCHED_DEADLINE, 0-99 an RT priority (99 - prio), 100-139
// SCHED_OTHER at nice prio - 120.
TaskInfo::StartedAs attrs_of(int prio) {
  TaskInfo::StartedAs a;
  a.policy = prio < 0     ? SchedPolicy::kDeadline
             : prio < 100 ? SchedPolicy::kFifo
                          : SchedPolicy::kOther;
  a.rt_priority = prio >= 0 && prio < 100 ? 99 - prio : 0;
  a.nice = prio >= 100 ? prio - 120 : 0;
  return a;
}

class Replay {
 public:
  Replay(const std::vector<Record>& recs, const RunRecord& run, int header_cpus,
         const FtraceSpan& span, const FtraceOptions& options, EventSink& sink)
      : recs_(recs),
        run_(run),
        options_(options),
        sink_(sink),
        t0_(span.start_ns >= 0 ? std::min(span.start_ns, recs.front().time) : recs.front().time),
        cpus_(header_cpus) {}

  // A task starts at its first appearance; one running on a CPU when the trace begins
  // (the first line of that CPU names it) ran from the start.
  void number_tasks() {
    std::vector<char> cpu_seen(kMaxCpus, 0);
    for (const Record& r : recs_) {
      cpus_ = std::max(cpus_, r.cpu + 1);
      if (r.target != kNoCpu) cpus_ = std::max(cpus_, r.target + 1);
      if (!is_state_record(r.kind)) continue;
      const Time at = r.time - t0_;
      const bool from_start =
          !cpu_seen[r.cpu] && r.ctx.pid > 0 && id_of_.find(r.ctx.pid) == id_of_.end();
      cpu_seen[r.cpu] = 1;
      const TaskId c = task(r.ctx, from_start ? 0 : at, kNoTask);
      if (from_start) rows_[c].from_start = true;
      if (r.kind == Kind::kFork) {
        has_fork_ = true;
        const TaskId parent = task(r.a, at, kNoTask);
        task(r.b, at, parent);
        continue;
      }
      has_fork_ |= r.kind == Kind::kWakeupNew;
      has_wakeup_ |= r.kind == Kind::kWakeup;
      task(r.a, at, kNoTask);
      if (r.kind == Kind::kSwitch) task(r.b, at, kNoTask);
    }
  }
  int cpus() const { return cpus_; }

  // Names: the run's own for its threads; a comm used by several pids gets ":pid".
  void announce() {
    std::map<std::string, int> pids_per_comm;
    for (const TaskRow& row : rows_) ++pids_per_comm[row.comm];
    RunInfo info;
    info.policy = run_.policy;
    info.cpus = cpus_;
    info.origin_ns = t0_;
    info.generator = run_.generator;
    info.mark_names = run_.mark_names;
    sink_.begin(info);
    for (TaskId id = 0; id < static_cast<TaskId>(rows_.size()); ++id) {
      const TaskRow& row = rows_[id];
      const auto named = run_.threads.find(row.pid);
      const bool ours = named != run_.threads.end();
      TaskInfo t;
      t.id = id;
      t.name = ours                          ? named->second.name
               : pids_per_comm[row.comm] > 1 ? fmt::format("{}:{}", row.comm, row.pid)
                                             : row.comm;
      t.comm = row.comm;
      t.parent = row.parent;
      const TaskRow::PrioSeen seen = row.prio();
      t.policy_since_ns = seen.first_ns;
      const TaskInfo::StartedAs now = attrs_of(seen.prio);
      t.policy = now.policy;
      t.rt_priority = now.rt_priority;
      t.nice = now.nice;
      if (!row.prios.empty() && row.prios.front().prio != seen.prio &&
          row.prios.front().first_ns < seen.first_ns)
        t.started_as = attrs_of(row.prios.front().prio);
      t.allowed = ours && named->second.allowed.any() ? named->second.allowed : all_cpus(cpus_);
      t.created_ns = row.created;
      t.pid = row.pid;
      t.tgid = row.tgid > 0 ? row.tgid : row.pid;
      t.workload = run_.threads.empty() || ours;
      sink_.task_created(t);
    }
  }

  // What each CPU ran from the start: the task its first line shows running.
  void start_state() {
    std::vector<char> cpu_seen(static_cast<size_t>(cpus_), 0);
    for (const Record& r : recs_) {
      if (!is_state_record(r.kind) || cpu_seen[r.cpu]) continue;
      cpu_seen[r.cpu] = 1;
      const TaskId c = id(r.ctx);
      if (c != kNoTask && rows_[c].from_start)
        sink_.event({0, EventType::kSwitch, 0, r.cpu, kNoTask, c, kStartState, 0});
    }
  }

  // A switch out of the idle task that the trace lacks (on some kernels the switch out of
  // idle is never traced on a CPU: this VM's CPU 1). When the task's wake-up (or a
  // migration to this CPU) is in the trace after the CPU went idle, the switch is placed
  // right after it, or after the CPU's last record in idle context if that is later: an
  // idle CPU runs a task woken onto it at once. Without that evidence it stays inferred at
  // the task's first line, as for lost events. Before this rule every such switch was
  // inferred at the task's first line, which took its CPU time before that line as idle
  // and as waiting.
  void place_idle_exits() {
    const size_t n = recs_.size();
    std::vector<TaskId> curr(static_cast<size_t>(cpus_), kNoTask);
    std::vector<char> cpu_seen(static_cast<size_t>(cpus_), 0);
    // per CPU: the switch to idle, the last record in idle context (record indexes)
    std::vector<ptrdiff_t> idle_start(static_cast<size_t>(cpus_), -1), idle_last = idle_start;
    // per task: its last wake-up or migration, its last record as a running task
    std::vector<ptrdiff_t> woken(rows_.size(), -1), seen = woken;
    for (size_t i = 0; i < n; ++i) {
      const Record& r = recs_[i];
      if (!is_state_record(r.kind)) continue;
      const auto at = static_cast<ptrdiff_t>(i);
      const auto cpu = static_cast<size_t>(r.cpu);
      const TaskId running = id(r.ctx);
      if (cpu_seen[cpu] && r.ctx.pid > 0 && running != curr[cpu] && curr[cpu] == kNoTask &&
          woken[running] > idle_start[cpu]) {
        const ptrdiff_t after = std::max({woken[running], idle_last[cpu], seen[running]});
        idle_exits_.emplace(static_cast<size_t>(after), std::pair{r.cpu, running});
        curr[cpu] = running;
      }
      cpu_seen[cpu] = 1;
      if (r.ctx.pid >= 0) curr[cpu] = running;  // as events() infers at the line
      if (r.kind == Kind::kSwitch) curr[cpu] = id(r.b);
      if (r.ctx.pid == 0) idle_last[cpu] = at;
      if (r.kind == Kind::kSwitch && curr[cpu] == kNoTask) idle_start[cpu] = idle_last[cpu] = at;
      if (running != kNoTask) seen[running] = at;
      if (r.kind == Kind::kSwitch && id(r.b) != kNoTask) seen[id(r.b)] = at;
      const bool wakes =
          r.kind == Kind::kWakeup || r.kind == Kind::kWakeupNew || r.kind == Kind::kMigrate;
      if (wakes && id(r.a) != kNoTask) woken[id(r.a)] = at;
    }
  }

  // When a line's running task is not the one the last switch left there, a switch was
  // not recorded (lost events): one is inferred at that line, or, out of idle, where
  // place_idle_exits() put it.
  size_t events() {
    size_t inferred = 0;
    on_cpu_.assign(rows_.size(), kNoCpu);
    wakings_.assign(rows_.size(), TaskWaking{});
    std::vector<TaskId> curr(static_cast<size_t>(cpus_), kNoTask);
    std::vector<char> cpu_seen(static_cast<size_t>(cpus_), 0);
    auto exit_at = idle_exits_.begin();
    for (size_t i = 0; i < recs_.size(); ++i) {
      const Record& r = recs_[i];
      const Time at = r.time - t0_;
      const auto place_exits = [&] {
        for (; exit_at != idle_exits_.end() && exit_at->first == i; ++exit_at) {
          const auto [cpu, task] = exit_at->second;
          sink_.event({at, EventType::kSwitch, static_cast<uint8_t>(PrevState::kBlocked), cpu,
                       kNoTask, task, kInferredSwitch, 0});
          set_curr(curr, cpu, task);
          ++inferred;
          ++idle_exits_placed_;
        }
      };
      if (r.kind == Kind::kOwn) {
        // a timer step's value is its expiry, on the trace clock like the time
        const int64_t value = r.own->type == EventType::kTimer ? r.own->value - t0_ : r.own->value;
        sink_.event({at, r.own->type, 0, r.cpu, id(r.a), r.own->other, r.own->arg, value});
        continue;
      }
      if (r.kind == Kind::kLost) {
        sink_.event({at, EventType::kLost, 0, r.cpu, kNoTask, kNoTask, 0, r.lost});
        continue;
      }
      if (r.kind == Kind::kWaking) {
        waking(r, at);
        continue;
      }
      const TaskId running = id(r.ctx);
      if (cpu_seen[r.cpu] && r.ctx.pid >= 0 && running != curr[r.cpu]) {
        sink_.event({at, EventType::kSwitch, static_cast<uint8_t>(PrevState::kBlocked), r.cpu,
                     curr[r.cpu], running, kInferredSwitch, 0});
        slept(curr[r.cpu], at);
        ++inferred;
      }
      cpu_seen[r.cpu] = 1;
      set_curr(curr, r.cpu, r.kind == Kind::kSwitch ? id(r.b) : running);
      emit(r, at);
      if (r.kind == Kind::kSwitch && r.prev_state != PrevState::kPreempted) slept(id(r.a), at);
      if (r.kind == Kind::kWakeup || r.kind == Kind::kWakeupNew) woken(id(r.a));
      place_exits();
    }
    return inferred;
  }

  // A wake-up's start (sched_waking), of a task the trace shows elsewhere too. A task
  // still running when it is woken (it is on its way to sleep: try_to_wake_up waits for
  // it to leave its CPU) is woken from its switch-out: the waking is held until then, and
  // dropped if its sched_wakeup comes first (it did not sleep). So a waking and a
  // switch-out of one timestamp on two CPUs read the same in either order, as a
  // trace.dat's merge by time may give them. A waking that comes after its own
  // sched_wakeup (a tie the merge put the other way, or the CPUs' clocks apart: the
  // wake-up had no waking before it, and the task has not blocked since) is dropped.
  void waking(const Record& r, Time at) {
    const TaskId a = known(r.a);
    if (a == kNoTask) return;
    TaskWaking& w = wakings_[static_cast<size_t>(a)];
    if (w.unpaired_wakeup) {
      w.unpaired_wakeup = false;
      return;
    }
    w.waking_seen = true;
    const SchedEvent e{at, EventType::kWaking, 0, r.cpu, a, waker(r), r.target, 0};
    if (on_cpu_[static_cast<size_t>(a)] == kNoCpu)
      sink_.event(e);
    else
      w.held = e;
  }
  // What events() takes each CPU to run, and each task's CPU (kNoCpu: not running).
  void set_curr(std::vector<TaskId>& curr, CpuId cpu, TaskId t) {
    const TaskId was = curr[static_cast<size_t>(cpu)];
    if (was != kNoTask && on_cpu_[static_cast<size_t>(was)] == cpu)
      on_cpu_[static_cast<size_t>(was)] = kNoCpu;
    curr[static_cast<size_t>(cpu)] = t;
    if (t != kNoTask) on_cpu_[static_cast<size_t>(t)] = cpu;
  }
  // `t` blocked (a recorded or inferred switch-out) at `at`: its held waking starts its
  // wake-up there, and a later waking belongs to a wake-up still to come.
  void slept(TaskId t, Time at) {
    if (t == kNoTask) return;
    TaskWaking& w = wakings_[static_cast<size_t>(t)];
    w.unpaired_wakeup = false;
    if (w.held.task == kNoTask) return;
    w.held.time = at;
    sink_.event(w.held);
    w.held.task = kNoTask;
  }
  // A sched_wakeup (or sched_wakeup_new) of `t`: its held waking is dropped, and the
  // wake-up is unpaired when no waking came before it.
  void woken(TaskId t) {
    if (t == kNoTask) return;
    TaskWaking& w = wakings_[static_cast<size_t>(t)];
    w.held.task = kNoTask;
    w.unpaired_wakeup = !w.waking_seen;
    w.waking_seen = false;
  }

  // Tasks that appear after the start although the trace records no creations.
  std::vector<std::string> notes() const {
    std::vector<std::string> out;
    size_t late = 0;
    for (const TaskRow& row : rows_) late += row.created > 0 && row.parent == kNoTask;
    if (late > 0 && !has_fork_)
      out.push_back(fmt::format(
          "the trace has no sched_process_fork or sched_wakeup_new events: {} task(s) first "
          "seen after its start are taken to start at their first appearance",
          late));
    if (idle_exits_placed_ > 0)
      out.push_back(fmt::format(
          "{} switch(es) out of the idle task are not in the trace: each is placed at the "
          "running task's wake-up (or the CPU's last idle event, if later), where an idle CPU "
          "switches; their wake-up latencies are not measured",
          idle_exits_placed_));
    if (!has_wakeup_)
      out.push_back(
          "the trace has no sched_wakeup events: wake-up latencies and sleep times are not "
          "measured");
    return out;
  }

 private:
  TaskId id(const Side& s) const { return s.pid > 0 ? id_of_.at(s.pid) : kNoTask; }
  // A task a waking line names may be one no other line does.
  TaskId known(const Side& s) const {
    const auto it = s.pid > 0 ? id_of_.find(s.pid) : id_of_.end();
    return it == id_of_.end() ? kNoTask : it->second;
  }

  TaskId waker(const Record& r) const {
    if (!options_.wakers || (r.kind != Kind::kWakeup && r.kind != Kind::kWaking)) return kNoTask;
    if (r.waker_softirq && !options_.softirq_wakers) return kNoTask;
    return known(r.waker);
  }

  TaskId task(const Side& s, Time at, TaskId parent) {
    if (s.pid <= 0) return kNoTask;
    auto [it, fresh] = id_of_.try_emplace(s.pid, static_cast<TaskId>(rows_.size()));
    if (fresh) rows_.push_back({s.comm, at, parent, s.pid, 0, false});
    // The name a task ends with (a child is named after its parent until it execs); the
    // "<...>" of an unknown comm never replaces a name.
    TaskRow& row = rows_[it->second];
    if (!s.comm.empty() && s.comm != "<...>") row.comm = s.comm;
    if (s.tgid > 0) row.tgid = s.tgid;
    if (s.prio) row.saw_prio(*s.prio, at);
    return it->second;
  }

  void emit(const Record& r, Time at) {
    const TaskId a = id(r.a), b = id(r.b);
    switch (r.kind) {
      case Kind::kSwitch:
        sink_.event({at, EventType::kSwitch,
                     static_cast<uint8_t>(a == kNoTask ? PrevState::kPreempted : r.prev_state),
                     r.cpu, a, b, 0, 0});
        break;
      case Kind::kWakeup:
      case Kind::kWakeupNew:
        if (a == kNoTask) break;
        sink_.event({at, r.kind == Kind::kWakeup ? EventType::kWakeup : EventType::kWakeupNew, 0,
                     r.target != kNoCpu ? r.target : r.cpu, a, waker(r), 0, 0});
        break;
      case Kind::kMigrate:
        if (a != kNoTask)
          sink_.event({at, EventType::kMigrate, 0, r.orig, a, kNoTask, r.target, 0});
        break;
      case Kind::kFork:
        if (a != kNoTask && b != kNoTask) sink_.event({at, EventType::kFork, 0, r.cpu, a, b, 0, 0});
        break;
      case Kind::kExit:
        if (a != kNoTask) sink_.event({at, EventType::kExit, 0, r.cpu, a, kNoTask, 0, 0});
        break;
      case Kind::kOwn:
      case Kind::kLost:
      case Kind::kWaking:
        break;
    }
  }

  const std::vector<Record>& recs_;
  const RunRecord& run_;
  const FtraceOptions& options_;
  EventSink& sink_;
  Time t0_;
  int cpus_;
  bool has_fork_ = false, has_wakeup_ = false;
  std::map<int64_t, TaskId> id_of_;
  std::vector<TaskRow> rows_;
  std::multimap<size_t, std::pair<int, TaskId>> idle_exits_;  // record index -> (cpu, task)
  std::vector<CpuId> on_cpu_;  // [task]: the CPU events() takes it to run on
  struct TaskWaking {
    SchedEvent held;               // the waking of the task still running (task kNoTask: none)
    bool waking_seen = false;      // a waking since the task's last sched_wakeup
    bool unpaired_wakeup = false;  // its last sched_wakeup had none, and it has not blocked since
  };
  std::vector<TaskWaking> wakings_;  // [task]
  size_t idle_exits_placed_ = 0;
};

}  // namespace

void replay_ftrace(const std::vector<FtraceRecord>& records, const RunRecord& run, int header_cpus,
                   const FtraceSpan& span, const FtraceOptions& options, EventSink& sink,
                   FtraceStats& stats) {
  Replay replay(records, run, header_cpus, span, options, sink);
  replay.number_tasks();
  stats.cpus = replay.cpus();
  replay.announce();
  replay.start_state();
  replay.place_idle_exits();
  stats.inferred_switches = replay.events();
  for (std::string& n : replay.notes()) stats.notes.push_back(std::move(n));
  const Time t0 = span.start_ns >= 0 ? std::min(span.start_ns, stats.first_ns) : stats.first_ns;
  const Time end = span.end_ns >= 0 ? std::max(span.end_ns, stats.last_ns) : stats.last_ns;
  sink.end(end - t0);
}

}  // namespace schedlab
