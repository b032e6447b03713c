// The extractor's state machine: each selected task is followed through running,
// runnable and blocked as the stream shows it, and its program is written as it goes
// (docs/replay.md). Loops and timers are found afterwards (loops.cpp, timers below).
#include "extract/extract.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <memory>

#include "extract/loops.h"
#include "util/error.h"

namespace schedlab {

namespace {

enum class Life : uint8_t { kUnborn, kRunning, kRunnable, kBlocked, kExited };

struct Follow {
  TaskInfo info;
  bool selected = false;
  bool seen = false;  // any event of it in the window
  Life life = Life::kUnborn;
  Time run_since = 0, block_since = 0;
  Time burst_ns = 0;   // CPU time of the burst under way
  int32_t index = -1;  // into the result's tasks
  // The sleeps' wake-up times (for the timer test), by position in steps.
  std::vector<std::pair<size_t, Time>> sleep_wakes;
  bool woken_by_a_thread = false;  // a sleep ended by a thread, not an interrupt: no timer
  // Every wake-up's time and the CPU time so far (SCHED_DEADLINE inference).
  std::vector<std::pair<Time, Time>> wakes;
  std::vector<XStep> steps;
  // Where its policy change falls in steps (its first event from TaskInfo::policy_since_ns);
  // npos: not reached in the window.
  size_t policy_step = std::string::npos;
  XTask out;
};

bool matches(const std::vector<std::string>& patterns, const std::string& name) {
  for (const std::string& p : patterns)
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

// A name suffixed ":pid" by the reader (a comm several pids share) matches by its comm too.
std::string comm_of(const TaskInfo& t) {
  const std::string suffix = fmt::format(":{}", t.pid);
  if (t.name.size() > suffix.size() && t.name.ends_with(suffix))
    return t.name.substr(0, t.name.size() - suffix.size());
  return t.name;
}

}  // namespace

struct WorkloadExtractor::State {
  ExtractOptions opt;
  RunInfo info;
  std::vector<Follow> tasks;
  std::map<std::pair<TaskId, TaskId>, int32_t> edge_of;
  std::vector<XEdge> edges;
  bool recording = true;
  Time origin = 0, end_ns = 0;
  size_t wakeups = 0, inferred = 0, lost = 0, unselected_wakers = 0, irq_wakes = 0;
  size_t running_wakers = 0, lost_lines = 0;
  Time first_lost_ns = 0;
  CpuId first_lost_cpu = 0;

  Follow* sel(TaskId id) {
    if (id < 0 || static_cast<size_t>(id) >= tasks.size()) return nullptr;
    Follow& f = tasks[static_cast<size_t>(id)];
    return f.selected ? &f : nullptr;
  }

  Time rel(Time t) const { return t - origin; }

  void start(Follow& f, Time t, Life life) {
    if (f.life != Life::kUnborn) return;
    f.seen = true;
    f.life = life;
    f.out.delay_ns = f.out.forked ? 0 : rel(t);
    if (life == Life::kRunning) f.run_since = t;
    if (life == Life::kBlocked) f.block_since = t;
  }

  // The burst so far, closed at t (a post or fork splits it; a block ends it).
  void close_burst(Follow& f, Time t) {
    if (f.life == Life::kRunning) {
      f.burst_ns += t - f.run_since;
      f.run_since = t;
    }
    if (f.burst_ns > 0) {
      f.steps.push_back({XStep::Kind::kRun, f.burst_ns, 0, false});
      f.out.cpu_ns += f.burst_ns;
    }
    f.burst_ns = 0;
  }

  void block(Follow& f, Time t, Life to) {
    close_burst(f, t);
    ++f.out.bursts;
    // a post right before blocking (within the floor) is a sync wake-up, as a write to a
    // pipe followed by a read of the answer
    if (f.steps.size() >= 2 && f.steps.back().kind == XStep::Kind::kRun &&
        f.steps.back().ns <= opt.tolerance_floor_ns &&
        f.steps[f.steps.size() - 2].kind == XStep::Kind::kPost)
      f.steps[f.steps.size() - 2].sync = true;
    else if (!f.steps.empty() && f.steps.back().kind == XStep::Kind::kPost)
      f.steps.back().sync = true;
    f.life = to;
    f.block_since = t;
  }

  void woken(Follow& f, Time t, TaskId waker) {
    f.wakes.emplace_back(t, f.out.cpu_ns);
    Follow* w = sel(waker);
    if (w && w != &f && w->life != Life::kUnborn && w->life != Life::kExited) {
      auto [it, fresh] = edge_of.try_emplace({waker, static_cast<TaskId>(&f - tasks.data())},
                                             static_cast<int32_t>(edges.size()));
      if (fresh) edges.push_back({-1, -1, 0});
      ++edges[static_cast<size_t>(it->second)].posts;
      if (w->life == Life::kRunning) ++running_wakers;
      close_burst(*w, t);
      w->steps.push_back({XStep::Kind::kPost, 0, it->second, false});
      f.steps.push_back({XStep::Kind::kWait, 0, it->second, false});
      ++f.out.edges_in;
    } else {
      if (waker == kNoTask)
        ++irq_wakes;
      else
        ++unselected_wakers;
      if (waker == kNoTask) ++f.out.unknown_wakers;
      f.sleep_wakes.emplace_back(f.steps.size(), rel(t));
      if (waker != kNoTask) f.woken_by_a_thread = true;
      f.steps.push_back({XStep::Kind::kSleep, t - f.block_since, 0, false});
      ++f.out.sleeps;
    }
    f.life = Life::kRunnable;
  }

  // The window opens: every task's program starts here, in the state it is in.
  void open_window(Time t) {
    recording = true;
    origin = t;
    for (Follow& f : tasks) {
      f.steps.clear();
      f.sleep_wakes.clear();
      f.woken_by_a_thread = false;
      f.wakes.clear();
      f.burst_ns = 0;
      f.out.cpu_ns = 0;
      f.out.bursts = f.out.edges_in = f.out.sleeps = f.out.unknown_wakers = 0;
      f.out.forked = false;
      f.out.delay_ns = 0;
      // a change before the window: all of it ran with the new policy
      f.policy_step = f.info.started_as && f.info.policy_since_ns <= t ? 0 : std::string::npos;
      if (f.life == Life::kRunning) f.run_since = t;
      if (f.life == Life::kBlocked) f.block_since = t;
      f.seen = f.life != Life::kUnborn && f.life != Life::kExited;
    }
    for (XEdge& e : edges) e.posts = 0;
    edges.clear();
    edge_of.clear();
  }

  void on_switch(const SchedEvent& e) {
    if (e.arg == kStartState) {
      if (Follow* n = sel(e.other)) start(*n, e.time, Life::kRunning);
      return;
    }
    if (e.arg == kInferredSwitch && e.task != kNoTask) ++inferred;  // out of idle: no burst
    if (Follow* p = sel(e.task)) {
      const auto state = static_cast<PrevState>(e.detail);
      if (p->life == Life::kUnborn) start(*p, e.time, Life::kRunning);
      if (p->life == Life::kRunning) {
        // an inferred switch hides what the task did: taken as a preemption
        if (state == PrevState::kPreempted || e.arg == kInferredSwitch) {
          p->burst_ns += e.time - p->run_since;
          p->life = Life::kRunnable;
        } else {
          block(*p, e.time, state == PrevState::kExited ? Life::kExited : Life::kBlocked);
        }
      }
    }
    if (Follow* n = sel(e.other)) {
      if (n->life == Life::kUnborn) start(*n, e.time, Life::kRunnable);
      if (n->life == Life::kBlocked) woken(*n, e.time, kNoTask);  // its wake-up was not seen
      if (n->life != Life::kExited) {
        n->life = Life::kRunning;
        n->run_since = e.time;
      }
    }
  }

  // The first event of a task from the time its lines show its new policy: the steps so
  // far ran with the old one (a burst under way is the new one's: the change came in it).
  void note_policy(TaskId id, Time t) {
    Follow* f = sel(id);
    if (f && f->info.started_as && f->policy_step == std::string::npos &&
        t >= f->info.policy_since_ns)
      f->policy_step = f->steps.size();
  }

  void on_event(const SchedEvent& e) {
    note_policy(e.task, e.time);
    if (e.other != e.task) note_policy(e.other, e.time);
    switch (e.type) {
      case EventType::kSwitch:
        on_switch(e);
        break;
      case EventType::kWakeup:
        ++wakeups;
        if (Follow* f = sel(e.task)) {
          if (f->life == Life::kUnborn) start(*f, e.time, Life::kBlocked);
          if (f->life == Life::kBlocked) woken(*f, e.time, e.other);
        }
        break;
      case EventType::kWakeupNew:
        if (Follow* f = sel(e.task)) start(*f, e.time, Life::kRunnable);
        break;
      case EventType::kFork: {
        Follow* c = sel(e.other);
        if (!c) break;
        Follow* p = sel(e.task);
        if (p && p->life != Life::kUnborn && c->life == Life::kUnborn) {
          close_burst(*p, e.time);
          p->steps.push_back({XStep::Kind::kFork, 0, e.other, false});
          c->out.forked = true;
        }
        start(*c, e.time, Life::kRunnable);
        break;
      }
      case EventType::kLost:
        if (lost_lines++ == 0) {
          first_lost_ns = e.time;
          first_lost_cpu = e.cpu;
        }
        lost += e.value > 0 ? static_cast<size_t>(e.value) : 0;
        break;
      default:
        break;
    }
  }
};

WorkloadExtractor::WorkloadExtractor(ExtractOptions options) : s_(std::make_unique<State>()) {
  s_->opt = std::move(options);
  s_->recording = s_->opt.from_ns <= 0;
}
WorkloadExtractor::~WorkloadExtractor() = default;

void WorkloadExtractor::begin(const RunInfo& info) {
  s_->info = info;
}

void WorkloadExtractor::task_created(const TaskInfo& t) {
  Follow f;
  f.info = t;
  const ExtractOptions& o = s_->opt;
  const bool by_comm = matches(o.comm_patterns, t.name) || matches(o.comm_patterns, comm_of(t));
  const bool by_pid = std::find(o.pids.begin(), o.pids.end(), t.pid) != o.pids.end() ||
                      std::find(o.pids.begin(), o.pids.end(), t.tgid) != o.pids.end();
  const bool any = o.comm_patterns.empty() && o.pids.empty();
  // a thread forked by a selected one belongs to the selection (a process tree)
  const bool child = t.parent != kNoTask && s_->sel(t.parent) != nullptr;
  const bool command = o.children_of > 0 && t.parent != kNoTask &&
                       static_cast<size_t>(t.parent) < s_->tasks.size() &&
                       s_->tasks[static_cast<size_t>(t.parent)].info.pid == o.children_of;
  f.selected = t.workload && ((any && o.children_of <= 0) || by_comm || by_pid || child || command);
  f.out.name = t.name;
  f.out.pid = t.pid;
  f.out.tgid = t.tgid;
  f.out.policy = t.policy;
  f.out.nice = t.nice;
  f.out.rt_priority = t.rt_priority;
  f.out.started_as = t.started_as;
  if (static_cast<size_t>(t.id) >= s_->tasks.size())
    s_->tasks.resize(static_cast<size_t>(t.id) + 1);
  s_->tasks[static_cast<size_t>(t.id)] = std::move(f);
}

void WorkloadExtractor::event(const SchedEvent& e) {
  State& s = *s_;
  if (s.opt.to_ns >= 0 && e.time > s.opt.to_ns) return;
  if (!s.recording && e.time >= s.opt.from_ns) s.open_window(s.opt.from_ns);
  // before the window the states are followed; open_window drops what was written
  s.on_event(e);
}

void WorkloadExtractor::end(Time t) {
  State& s = *s_;
  if (s.opt.to_ns >= 0) t = std::min(t, s.opt.to_ns);
  if (!s.recording) s.open_window(s.opt.from_ns);
  s.end_ns = t;
  for (Follow& f : s.tasks)
    if (f.selected && (f.life == Life::kRunning || f.life == Life::kRunnable)) {
      s.close_burst(f, t);
      ++f.out.bursts;
    }
}

namespace {

// A task's sleeps become `timer` steps when its wake-ups from outside, all from interrupt
// context, fall one period apart on one grid, each within the tolerance of a period (rt-app's
// timer: a boundary every period from t_zero + delay, the same for a thread its parent started).
// The period is the mean interval from the first such wake-up to the last, in whole microseconds as
// the file gives it; the grid's origin (the timer's origin_ns), the median of each
// wake-up less its multiple of the period, so the recording's timer latency stays in it,
// as it does in a sleep's observed length.
void find_timer(Follow& f, const ExtractOptions& o, int32_t index) {
  const auto& w = f.sleep_wakes;
  if (f.woken_by_a_thread) return;  // a timer's expiry wakes from interrupt context
  if (w.size() < static_cast<size_t>(std::max(2, o.timer_min_periods))) return;
  const auto intervals = static_cast<Time>(w.size() - 1);
  const Time mean = (w.back().second - w.front().second) / intervals;
  const Time period = (mean + kNsPerUs / 2) / kNsPerUs * kNsPerUs;
  if (period <= 0) return;
  std::vector<Time> origins;
  for (size_t i = 0; i < w.size(); ++i)
    origins.push_back(w[i].second - period * static_cast<Time>(i + 1));
  std::vector<Time> sorted = origins;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2),
                   sorted.end());
  const Time origin = sorted[sorted.size() / 2];
  const Time tolerance = std::max(o.tolerance_floor_ns, period * o.tolerance_percent / 100);
  for (const Time at : origins)
    if (std::abs(at - origin) > tolerance) return;
  f.out.timer_origin_ns = origin;
  for (const auto& [pos, _] : w) f.steps[pos] = {XStep::Kind::kTimer, period, index, false};
}

// --dl names a thread by its name, its comm or its pid.
bool names(const DlGiven& g, const Follow& f) {
  return g.who == f.info.name || g.who == comm_of(f.info) || g.who == std::to_string(f.info.pid);
}

// SCHED_DEADLINE parameters: as given (--dl, which also makes the task a deadline task),
// else for a task the trace shows as one (prio -1), inferred from its wake-ups.
void deadline_params(Follow& f, const ExtractOptions& o, std::vector<bool>& used,
                     std::vector<std::string>& notes) {
  XTask& x = f.out;
  for (size_t i = 0; i < o.dl.size(); ++i) {
    if (!names(o.dl[i], f)) continue;
    used[i] = true;
    if (x.policy != SchedPolicy::kDeadline)
      notes.push_back(fmt::format("{}: SCHED_DEADLINE as given (--dl), the trace shows {}", x.name,
                                  policy_name(x.policy)));
    x.policy = SchedPolicy::kDeadline;
    x.dl_runtime_ns = o.dl[i].runtime_ns;
    x.dl_deadline_ns = o.dl[i].deadline_ns;
    x.dl_period_ns = o.dl[i].period_ns;
    return;
  }
  if (x.policy != SchedPolicy::kDeadline) return;
  // only its jobs as a deadline task: its wake-ups from when its lines show prio -1
  std::vector<std::pair<Time, Time>> wakes;
  for (const auto& w : f.wakes)
    if (w.first >= f.info.policy_since_ns) wakes.push_back(w);
  const std::optional<DlInferred> dl = infer_dl(wakes);
  if (!dl) {
    notes.push_back(fmt::format(
        "{}: SCHED_DEADLINE in the trace, with fewer than two wake-ups to infer its period "
        "from: run as SCHED_OTHER (give --dl {}=RUNTIME:DEADLINE:PERIOD)",
        x.name, x.name));
    return;
  }
  x.dl_runtime_ns = dl->runtime_ns;
  x.dl_deadline_ns = x.dl_period_ns = dl->period_ns;
  x.dl_inferred = true;
  notes.push_back(fmt::format(
      "{}: SCHED_DEADLINE parameters inferred (a trace does not show them): period {} us "
      "(the median interval between its wake-ups), runtime {} us (its most CPU time in one "
      "whole job, from a wake-up to the next), deadline = period; --dl {}=R:D:P gives them",
      x.name, x.dl_period_ns / kNsPerUs, x.dl_runtime_ns / kNsPerUs, x.name));
}

}  // namespace

ExtractedWorkload WorkloadExtractor::result(const std::string& file) {
  State& s = *s_;
  ExtractedWorkload out;
  out.cpus = s.info.cpus;
  out.span_ns = s.end_ns - s.origin;
  // tasks in stream order, those with anything in the window
  for (Follow& f : s.tasks) {
    if (!f.selected || !f.seen) continue;
    f.index = static_cast<int32_t>(out.tasks.size());
    out.tasks.push_back({});
  }
  if (out.tasks.empty())
    throw InputError(file, "selection",
                     s.opt.comm_patterns.empty() && s.opt.pids.empty() && s.opt.children_of <= 0
                         ? "the trace shows no thread of the workload in the window"
                         : "no thread of the trace matches the selection (--comm / --pid)");
  if (s.wakeups == 0)
    throw InputError(file, "events",
                     "no sched_wakeup or sched_waking events: the trace does not say what "
                     "ended each block (record sched_waking and sched_wakeup)");
  std::vector<bool> dl_used(s.opt.dl.size(), false);
  std::vector<std::string> dl_notes;
  for (Follow& f : s.tasks) {
    if (f.index < 0) continue;
    deadline_params(f, s.opt, dl_used, dl_notes);
    // steps that name a task (fork) or an edge use the result's numbering
    for (XStep& st : f.steps)
      if (st.kind == XStep::Kind::kFork) st.ref = s.tasks[static_cast<size_t>(st.ref)].index;
    find_timer(f, s.opt, f.index);
    // the steps before its policy change and those after are compressed apart
    const size_t split = f.out.started_as ? std::min(f.policy_step, f.steps.size()) : 0;
    if (split == 0) f.out.started_as.reset();
    auto phases_of = [&](std::vector<XStep> steps, bool started_as) {
      // --exact: one phase of every step (none for no step: the file gets its `run 0`)
      std::vector<XPhase> part =
          !s.opt.exact    ? compress_loops(steps, s.opt.tolerance_percent, s.opt.tolerance_floor_ns)
          : steps.empty() ? std::vector<XPhase>{}
                          : std::vector<XPhase>{{1, std::move(steps)}};
      for (XPhase& p : part) p.started_as = started_as;
      return part;
    };
    const auto at = f.steps.begin() + static_cast<long>(split);
    f.out.phases = split > 0 ? phases_of({f.steps.begin(), at}, true) : std::vector<XPhase>{};
    if (split == 0 || split < f.steps.size())
      for (XPhase& p : phases_of({at, f.steps.end()}, false)) f.out.phases.push_back(std::move(p));
    out.tasks[static_cast<size_t>(f.index)] = std::move(f.out);
  }
  for (const auto& [pair, index] : s.edge_of) {
    XEdge& e = s.edges[static_cast<size_t>(index)];
    e.waker = s.tasks[static_cast<size_t>(pair.first)].index;
    e.wakee = s.tasks[static_cast<size_t>(pair.second)].index;
  }
  out.edges = s.edges;
  for (size_t i = 0; i < dl_used.size(); ++i)
    if (!dl_used[i])
      throw InputError(file, "--dl " + s.opt.dl[i].who,
                       "names no selected thread (a name, comm or pid of the trace)");
  size_t unknown = 0;
  for (const XTask& t : out.tasks) unknown += t.unknown_wakers;
  if (unknown)
    out.notes.push_back(fmt::format(
        "{} wake-up(s) came from interrupt context, the idle task or no identifiable waker "
        "(a timer, I/O, a lost event): each is a sleep of the observed length",
        unknown));
  if (s.unselected_wakers)
    out.notes.push_back(fmt::format(
        "{} wake-up(s) of selected threads by threads outside the selection: sleeps of the "
        "observed length",
        s.unselected_wakers));
  if (s.inferred)
    out.notes.push_back(
        fmt::format("{} switch(es) were inferred (events lost): taken as preemptions", s.inferred));
  out.notes.insert(out.notes.end(), dl_notes.begin(), dl_notes.end());
  if (s.lost_lines)
    out.notes.push_back(fmt::format(
        "{} events were lost when recording ({} overrun line(s), the first at {:.6f} s on CPU "
        "{}); the programs miss what they showed",
        s.lost, s.lost_lines, static_cast<double>(s.first_lost_ns) / 1e9, s.first_lost_cpu));
  out.notes.push_back(
      "not represented: spinning (counted as CPU work), futex requeue and lock hand-over "
      "(a wake-up by the thread that released), affinity changes, the recording machine's "
      "cache and frequency effects (bursts are CPU time at capacity 1024)");
  return out;
}

std::string edge_name(const ExtractedWorkload& w, const XEdge& e) {
  return fmt::format("{}>{}", w.tasks[static_cast<size_t>(e.waker)].name,
                     w.tasks[static_cast<size_t>(e.wakee)].name);
}

}  // namespace schedlab
