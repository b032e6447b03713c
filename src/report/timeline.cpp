#include "report/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "report/gnuplot.h"

namespace schedlab {

TimelineRecorder::TimelineRecorder(Time from_ns, Time to_ns) {
  t_.from_ns = from_ns;
  t_.to_ns = to_ns;
}

void TimelineRecorder::begin(const RunInfo& info) {
  t_.cpus = info.cpus;
  t_.policy = info.policy;
  running_.assign(static_cast<size_t>(info.cpus), kNoTask);
  since_.assign(static_cast<size_t>(info.cpus), 0);
}

void TimelineRecorder::task_created(const TaskInfo& t) {
  if (t.id < 0) return;
  const auto id = static_cast<size_t>(t.id);
  if (t_.names.size() <= id) t_.names.resize(id + 1);
  t_.names[id] = t.name;
}

// Ends what `cpu` ran at `now`, keeping the part inside the window.
void TimelineRecorder::close(CpuId cpu, Time now) {
  const TaskId task = running_[static_cast<size_t>(cpu)];
  if (task == kNoTask) return;
  const Time start = std::max(since_[static_cast<size_t>(cpu)], t_.from_ns);
  const Time end = std::min(now, t_.to_ns);
  if (end > start) {
    t_.slices.push_back({cpu, task, start, end});
    if (t_.busy_ns.size() <= static_cast<size_t>(task)) t_.busy_ns.resize(task + 1);
    t_.busy_ns[static_cast<size_t>(task)] += end - start;
  }
}

void TimelineRecorder::event(const SchedEvent& e) {
  if (e.cpu < 0 || e.cpu >= t_.cpus) return;
  const auto cpu = static_cast<size_t>(e.cpu);
  if (e.type == EventType::kSwitch) {
    if (e.arg != kStartState) close(e.cpu, e.time);
    running_[cpu] = e.other;
    since_[cpu] = e.time;
  } else if ((e.type == EventType::kWakeup || e.type == EventType::kWakeupNew) &&
             e.time >= t_.from_ns && e.time <= t_.to_ns) {
    t_.wakeups.push_back({e.cpu, e.task, e.time});
  }
}

void TimelineRecorder::end(Time t) {
  for (CpuId c = 0; c < t_.cpus; ++c) close(c, t);
  t_.to_ns = std::max(t_.from_ns, std::min(t_.to_ns, t));
}

namespace {

// Okabe-Ito without its black, then five of Paul Tol's muted colours.
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#F0E442", "#882255",
                                    "#44AA99", "#999933", "#AA4499", "#332288"};
constexpr size_t kColours = std::size(kPalette);
constexpr const char* kOther = "#BBBBBB";
constexpr size_t kMaxExactSlices = 4000;
constexpr int kColumns = 1000;

// "worker-3" and "x264-frame12-0" -> "worker", "x264-frame": the name without its
// trailing numbers (instance and thread numbers, and the dashes before them).
std::string family_of(const std::string& name) {
  std::string f = name;
  for (;;) {
    const auto last = f.find_last_not_of("0123456789");
    if (last == std::string::npos || last + 1 == f.size()) return f;
    f.resize(f[last] == '-' || f[last] == '_' ? last : last + 1);
  }
}

// Each task's legend entry and colour: tasks themselves when few, else families; the
// busiest first, the rest "other tasks" in grey.
struct Legend {
  std::vector<std::string> entries;  // in legend order
  std::vector<std::string> colours;  // by entry
  std::vector<int> entry_of;         // by task id: index into entries, -1 for other
  bool any_other = false;
};

Legend legend_of(const Timeline& t) {
  std::vector<TaskId> seen;
  for (size_t id = 0; id < t.busy_ns.size(); ++id)
    if (t.busy_ns[id] > 0) seen.push_back(static_cast<TaskId>(id));
  auto name = [&](TaskId id) {
    return static_cast<size_t>(id) < t.names.size() && !t.names[id].empty()
               ? t.names[id]
               : fmt::format("task {}", id);
  };
  // A family needs two members: "x264" alone is not of "x".
  std::map<std::string, int> members;
  for (TaskId id : seen) ++members[family_of(name(id))];
  const bool by_family = seen.size() > kColours;
  auto entry = [&](TaskId id) {
    const std::string f = family_of(name(id));
    return by_family && members[f] > 1 ? f : name(id);
  };
  std::map<std::string, Time> busy;
  for (TaskId id : seen) busy[entry(id)] += t.busy_ns[id];
  std::vector<std::pair<std::string, Time>> order(busy.begin(), busy.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  Legend l;
  const size_t named = order.size() > kColours ? kColours - 1 : order.size();
  std::map<std::string, int> index;
  for (size_t i = 0; i < named; ++i) {
    index[order[i].first] = static_cast<int>(i);
    l.entries.push_back(order[i].first);
    l.colours.push_back(kPalette[i]);
  }
  l.entry_of.assign(t.busy_ns.size(), -1);
  for (TaskId id : seen) {
    const auto it = index.find(entry(id));
    l.entry_of[static_cast<size_t>(id)] = it == index.end() ? -1 : it->second;
    l.any_other |= it == index.end();
  }
  return l;
}

std::string ms(Time ns) {
  return fmt::format("{:.6g}", static_cast<double>(ns) / 1e6);
}

std::string colour_of(const Legend& l, TaskId task) {
  const int e = static_cast<size_t>(task) < l.entry_of.size() ? l.entry_of[task] : -1;
  return e < 0 ? kOther : l.colours[static_cast<size_t>(e)];
}

std::string box(CpuId cpu, Time start, Time end, const std::string& colour) {
  // boxxyerror: x y xlow xhigh ylow yhigh colour (0xRRGGBB)
  return fmt::format("{} {} {} {} {} {} 0x{}\n", ms((start + end) / 2), cpu, ms(start), ms(end),
                     cpu - 0.35, cpu + 0.35, colour.substr(1));
}

// The slices as drawn: exactly, or per column the task that ran there most.
std::string slice_block(const Timeline& t, const Legend& l) {
  std::string block;
  if (t.slices.size() <= kMaxExactSlices) {
    for (const Timeline::Slice& s : t.slices)
      block += box(s.cpu, s.start_ns, s.end_ns, colour_of(l, s.task));
    return block;
  }
  const Time span = std::max<Time>(1, t.to_ns - t.from_ns);
  auto column_start = [&](int c) { return t.from_ns + span * c / kColumns; };
  for (CpuId cpu = 0; cpu < t.cpus; ++cpu) {
    std::vector<std::map<TaskId, Time>> columns(kColumns);
    for (const Timeline::Slice& s : t.slices) {
      if (s.cpu != cpu) continue;
      int c = static_cast<int>((s.start_ns - t.from_ns) * kColumns / span);
      for (; c < kColumns && column_start(c) < s.end_ns; ++c) {
        const Time lo = std::max(s.start_ns, column_start(c));
        const Time hi = std::min(s.end_ns, column_start(c + 1));
        if (hi > lo) columns[static_cast<size_t>(c)][s.task] += hi - lo;
      }
    }
    TaskId open = kNoTask;
    int open_at = 0;
    for (int c = 0; c <= kColumns; ++c) {
      TaskId top = kNoTask;
      if (c < kColumns) {
        Time most = 0;
        for (const auto& [task, ns] : columns[static_cast<size_t>(c)])
          if (ns > most) top = task, most = ns;
      }
      if (top == open) continue;
      if (open != kNoTask)
        block += box(cpu, column_start(open_at), column_start(c), colour_of(l, open));
      open = top;
      open_at = c;
    }
  }
  return block;
}

}  // namespace

int timeline_height(const Timeline& t) {
  return 160 + 44 * std::max(1, t.cpus);
}

std::string timeline_script(const Timeline& t, const TimelineOptions& o) {
  const Legend legend = legend_of(t);
  std::string s = "set encoding utf8\n";
  s += "set title " + gnuplot_quote(o.title) + "\n";
  s += "set xlabel \"Time (ms)\"\n";
  std::string ticks;
  for (CpuId c = 0; c < t.cpus; ++c) ticks += fmt::format("{}\"CPU {}\" {}", c ? ", " : "", c, c);
  s += "set ytics (" + ticks + ") nomirror\nset xtics nomirror out\nset border 1\n";
  s += fmt::format("set yrange [{}:-0.7] noreverse\n", t.cpus - 0.5);  // CPU 0 on top
  s += fmt::format("set xrange [{}:{}]\n", ms(t.from_ns), ms(std::max(t.to_ns, t.from_ns + 1)));
  s += "set key outside right top vertical Left reverse\nset style fill solid 1.0 noborder\n";
  s += "set bmargin 4\n";
  s += "$slices << EOD\n" + slice_block(t, legend) + "EOD\n";
  // Wake-ups just above the lane of the CPU the task was woken onto (one per column).
  std::string wakes;
  const Time span = std::max<Time>(1, t.to_ns - t.from_ns);
  std::vector<std::vector<char>> marked(static_cast<size_t>(t.cpus),
                                        std::vector<char>(kColumns + 1));
  for (const Timeline::Wakeup& w : t.wakeups) {
    const auto c = static_cast<size_t>((w.time_ns - t.from_ns) * kColumns / span);
    if (std::exchange(marked[static_cast<size_t>(w.cpu)][c], 1)) continue;
    wakes += fmt::format("{} {}\n", ms(w.time_ns), w.cpu - 0.47);
  }
  s += "$wakeups << EOD\n" + (wakes.empty() ? std::string("NaN NaN\n") : wakes) + "EOD\n";
  s += "plot $slices using 1:2:3:4:5:6:7 with boxxyerror lc rgb variable notitle";
  for (size_t e = 0; e < legend.entries.size(); ++e)
    s += fmt::format(", \\\n     NaN with boxes lc rgb \"{}\" title {}", legend.colours[e],
                     gnuplot_quote(legend.entries[e]));
  if (legend.any_other)
    s += fmt::format(", \\\n     NaN with boxes lc rgb \"{}\" title \"other tasks\"", kOther);
  s += ", \\\n     $wakeups using 1:2 with points pt 11 ps 0.45 lc rgb \"black\" title "
       "\"wake-up\"\n";
  return s;
}

std::string timeline_caption(const Timeline& t, const std::string& what) {
  return fmt::format(
      "{} under {}: what each CPU ran from {} to {} ms (colours: the tasks of the legend{}), and "
      "the "
      "wake-ups onto it (triangles).",
      what, t.policy, ms(t.from_ns), ms(t.to_ns),
      t.slices.size() > kMaxExactSlices ? "; drawn at 1000 columns a lane, each the task that "
                                          "ran most of it"
                                        : "");
}

}  // namespace schedlab
