#include "report/sched_latency.h"

#include <fmt/format.h>

#include <algorithm>

namespace schedlab {

namespace {

// perf's timestamp__scnprintf_usec: seconds with 6 decimals.
std::string usec_stamp(Time ns) {
  return fmt::format("{}.{:06}", ns / kNsPerSec, (ns % kNsPerSec) / 1000);
}

double ms(Time ns) {
  return static_cast<double>(ns) / 1e6;
}

Time clock_origin(const Metrics& m) {
  return m.origin_ns > 0 ? m.origin_ns : kSimClockBaseNs;
}

}  // namespace

std::string sched_latency_table(const Metrics& m) {
  std::vector<const TaskMetrics*> rows;
  for (const TaskMetrics& t : m.tasks)
    if (t.switches_voluntary + t.switches_involuntary > 0) rows.push_back(&t);
  const auto avg = [](const TaskMetrics* t) {
    return t->delays ? t->delay_total_ns / static_cast<Time>(t->delays) : 0;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const TaskMetrics* a, const TaskMetrics* b) {
    if (avg(a) != avg(b)) return avg(a) > avg(b);
    if (a->delay_max_ns != b->delay_max_ns) return a->delay_max_ns > b->delay_max_ns;
    const uint64_t sa = a->switches_voluntary + a->switches_involuntary;
    const uint64_t sb = b->switches_voluntary + b->switches_involuntary;
    if (sa != sb) return sa > sb;
    return a->cpu_time_ns > b->cpu_time_ns;
  });
  const std::string rule(139, '-');
  std::string out = fmt::format(
      "\n {}\n  {:<22}|   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | "
      "Max delay start           | Max delay end          |\n {}\n",
      rule, "Task", rule);
  const Time origin = clock_origin(m);
  Time all_runtime = 0;
  uint64_t all_switches = 0;
  for (const TaskMetrics* t : rows) {
    const uint64_t switches = t->switches_voluntary + t->switches_involuntary;
    all_runtime += t->cpu_time_ns;
    all_switches += switches;
    const std::string task = fmt::format("  {}:{} ", t->name, t->pid);
    out += fmt::format(
        "{:<24}|{:11.3f} ms |{:9} | avg:{:8.3f} ms | max:{:8.3f} ms | "
        "max start: {:>12} s | max end: {:>12} s\n",
        task, ms(t->cpu_time_ns), switches, ms(avg(t)), ms(t->delay_max_ns),
        usec_stamp(origin + t->delay_max_start_ns), usec_stamp(origin + t->delay_max_end_ns));
  }
  out += fmt::format(" {}\n  {:<22}|{:11.3f} ms |{:9} |\n {}\n", std::string(113, '-'),
                     "TOTAL:", ms(all_runtime), all_switches, std::string(51, '-'));
  return out;
}

void TimehistWriter::begin(const RunInfo& info) {
  origin_ = info.origin_ns > 0 ? info.origin_ns : kSimClockBaseNs;
  idle_since_.assign(static_cast<size_t>(info.cpus), 0);
  out_ << fmt::format("{:>15} {:>6}  {:<30}  {:>9}  {:>9}  {:>9}\n", "time", "cpu", "task name",
                      "wait time", "sch delay", "run time")
       << fmt::format("{:>15} {:>6}  {:<30}  {:>9}  {:>9}  {:>9}\n", "", "", "[tid/pid]", "(msec)",
                      "(msec)", "(msec)")
       << fmt::format("{} {}  {}  {}  {}  {}\n", std::string(15, '-'), std::string(6, '-'),
                      std::string(30, '-'), std::string(9, '-'), std::string(9, '-'),
                      std::string(9, '-'));
}

void TimehistWriter::task_created(const TaskInfo& t) {
  if (static_cast<size_t>(t.id) >= tracks_.size()) tracks_.resize(t.id + 1);
  const KernelIds::Ids& ids = ids_.add(t);
  tracks_[t.id].label = ids.pid == ids.tgid ? fmt::format("{}[{}]", t.name, ids.pid)
                                            : fmt::format("{}[{}/{}]", t.name, ids.pid, ids.tgid);
}

void TimehistWriter::event(const SchedEvent& e) {
  // ready from a recording's sched_waking where it has one, as perf sched timehist prefers
  if (e.type == EventType::kWakeup || e.type == EventType::kWakeupNew ||
      e.type == EventType::kWaking) {
    Track& t = tracks_[e.task];
    if (t.in_at < 0 || t.out_at >= t.in_at) {  // not running
      if (t.ready_at < 0) t.ready_at = e.time;
    }
    return;
  }
  if (e.type != EventType::kSwitch || e.arg == kStartState) {
    if (e.type == EventType::kSwitch && e.other != kNoTask) {
      Track& n = tracks_[e.other];
      n.in_at = e.time;
    }
    return;
  }
  std::string label = "<idle>";
  Time wait = 0, delay = 0, run = 0;
  if (e.task == kNoTask) {
    run = e.time - idle_since_[e.cpu];
  } else {
    Track& p = tracks_[e.task];
    label = p.label;
    wait = p.wait;
    delay = p.delay;
    run = p.in_at >= 0 ? e.time - p.in_at : 0;
    p.out_at = e.time;
    p.ready_at = static_cast<PrevState>(e.detail) == PrevState::kPreempted ? e.time : -1;
  }
  out_ << fmt::format("{:>15} [{:04}]  {:<30}  {:9.3f}  {:9.3f}  {:9.3f}\n",
                      usec_stamp(origin_ + e.time), e.cpu, label, ms(wait), ms(delay), ms(run));
  if (e.other == kNoTask) {
    idle_since_[e.cpu] = e.time;
    return;
  }
  Track& n = tracks_[e.other];
  n.wait = n.ready_at >= 0 && n.out_at >= 0 && n.ready_at > n.out_at ? n.ready_at - n.out_at : 0;
  n.delay = n.ready_at >= 0 ? e.time - n.ready_at : 0;
  n.ready_at = -1;
  n.in_at = e.time;
}

}  // namespace schedlab
