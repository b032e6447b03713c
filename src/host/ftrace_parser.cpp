#include "host/ftrace_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace schedlab {

namespace {

// kOwn: an event of the run itself (RunRecord::events), merged in by time.
enum class Kind : uint8_t { kSwitch, kWakeup, kWakeupNew, kMigrate, kFork, kExit, kOwn };

struct Side {
  int64_t pid = -1;
  std::string comm;
  int prio = 120;
};

struct Record {
  Time time = 0;
  CpuId cpu = 0;
  Kind kind = Kind::kSwitch;
  Side ctx;   // the task running on the CPU when the event was recorded
  Side a, b;  // switch: prev, next; fork: parent, child; others: the task in a
  PrevState prev_state = PrevState::kPreempted;
  CpuId target = kNoCpu;  // wake-up target or migration destination
  CpuId orig = kNoCpu;    // migration source
  size_t line = 0;
  const HostEvent* own = nullptr;  // kOwn: the run's event (its task in a)
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool to_int(std::string_view s, int64_t& v) {
  s = trim(s);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// SECS.FRACTION (up to 9 fraction digits) in ns. kOutOfRange: a number of seconds that is
// negative or more than an int64 count of nanoseconds holds.
enum class Stamp { kOk, kNotATime, kOutOfRange };
Stamp to_time(std::string_view s, Time& t) {
  const auto dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  int64_t secs = 0, frac = 0;
  const auto r = std::from_chars(whole.data(), whole.data() + whole.size(), secs);
  if (r.ptr != whole.data() + whole.size() || whole.empty()) return Stamp::kNotATime;
  if (r.ec == std::errc::result_out_of_range) return Stamp::kOutOfRange;
  if (r.ec != std::errc()) return Stamp::kNotATime;
  if (dot != std::string_view::npos) {
    std::string_view f = s.substr(dot + 1);
    if (f.size() > 9 || !to_int(f, frac) || frac < 0) return Stamp::kNotATime;
    for (size_t i = f.size(); i < 9; ++i) frac *= 10;
  }
  if (secs < 0 || secs > (INT64_MAX - frac) / kNsPerSec) return Stamp::kOutOfRange;
  t = secs * kNsPerSec + frac;
  return Stamp::kOk;
}

// The value of `key=` in a field list, up to the next known key (values such as comm may
// hold spaces).
class Fields {
 public:
  Fields(std::string_view text, std::initializer_list<std::string_view> keys) : text_(text) {
    for (std::string_view k : keys) {
      const size_t at = find_key(k);
      if (at != std::string_view::npos) starts_.push_back({at, k});
    }
    std::sort(starts_.begin(), starts_.end());
  }
  bool has(std::string_view key) const {
    return std::any_of(starts_.begin(), starts_.end(),
                       [&](const auto& s) { return s.second == key; });
  }
  std::string_view get(std::string_view key) const {
    for (size_t i = 0; i < starts_.size(); ++i) {
      if (starts_[i].second != key) continue;
      const size_t from = starts_[i].first + key.size() + 1;
      size_t to = i + 1 < starts_.size() ? starts_[i + 1].first : text_.size();
      std::string_view v = text_.substr(from, to - from);
      if (const size_t arrow = v.find(" ==>"); arrow != std::string_view::npos)
        v = v.substr(0, arrow);
      return trim(v);
    }
    return {};
  }

 private:
  size_t find_key(std::string_view key) const {
    for (size_t at = text_.find(key); at != std::string_view::npos; at = text_.find(key, at + 1)) {
      const bool starts = at == 0 || text_[at - 1] == ' ';
      if (starts && at + key.size() < text_.size() && text_[at + key.size()] == '=') return at;
    }
    return std::string_view::npos;
  }
  std::string_view text_;
  std::vector<std::pair<size_t, std::string_view>> starts_;
};

PrevState prev_state_of(std::string_view s) {
  if (s.find('X') != std::string_view::npos || s.find('Z') != std::string_view::npos)
    return PrevState::kExited;
  if (s == "R" || s == "R+") return PrevState::kPreempted;
  return PrevState::kBlocked;
}

class Parser {
 public:
  Parser(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(size_t line, const std::string& why) const {
    throw InputError(file_, fmt::format("line {}", line), why);
  }

  void line(std::string_view text, size_t number) {
    ++stats.lines;
    text = trim(text);
    if (text.empty()) return;
    if (text.front() == '#') {
      if (const size_t p = text.find("#P:"); p != std::string_view::npos) {
        std::string_view count = trim(text.substr(p + 3));
        count = count.substr(0, count.find(' '));
        int64_t n = 0;
        if (!count.empty() && (!to_int(count, n) || n < 1 || n > kMaxCpus))
          fail(number, fmt::format("#P:{} is outside 1..{}", count, kMaxCpus));
        if (!count.empty()) header_cpus_ = static_cast<int>(n);
      }
      return;
    }
    if (text.rfind("CPU:", 0) == 0 && text.find("LOST") != std::string_view::npos) {
      int64_t lost = 0;  // trace_pipe's "CPU:N [LOST M EVENTS]"
      const size_t l = text.find("LOST ");
      const std::string_view rest = text.substr(l + 5);
      if (to_int(rest.substr(0, rest.find(' ')), lost))
        stats.lost_events += static_cast<size_t>(lost);
      return;
    }
    // COMM-PID [(TGID)] [CPU] [FLAGS] SECS.FRAC: EVENT: FIELDS
    size_t open = text.find(" [");
    while (open != std::string_view::npos) {
      const size_t close = text.find(']', open);
      int64_t cpu = 0;
      if (close != std::string_view::npos && to_int(text.substr(open + 2, close - open - 2), cpu)) {
        if (cpu < 0 || cpu >= kMaxCpus)  // an index into per-CPU tables from here on
          fail(number, fmt::format("CPU {} is outside 0..{}", cpu, kMaxCpus - 1));
        parse_after_cpu(text.substr(close + 1), static_cast<CpuId>(cpu), number,
                        context_of(text.substr(0, open)));
        return;
      }
      open = text.find(" [", open + 1);
    }
    ++stats.skipped_lines;
  }

  std::vector<Record> records;
  FtraceStats stats;
  int header_cpus_ = 0;

 private:
  // "COMM-PID" or "COMM-PID (TGID)" before the CPU column.
  static Side context_of(std::string_view who) {
    who = trim(who);
    if (!who.empty() && who.back() == ')') {
      const size_t paren = who.rfind('(');
      if (paren != std::string_view::npos) who = trim(who.substr(0, paren));
    }
    Side s;
    const size_t dash = who.rfind('-');
    if (dash == std::string_view::npos || !to_int(who.substr(dash + 1), s.pid)) s.pid = -1;
    s.comm = std::string(who.substr(0, dash == std::string_view::npos ? who.size() : dash));
    return s;
  }

  void parse_after_cpu(std::string_view rest, CpuId cpu, size_t number, Side ctx) {
    rest = trim(rest);
    size_t colon = rest.find(": ");
    if (colon == std::string_view::npos) {
      ++stats.skipped_lines;
      return;
    }
    std::string_view stamp = rest.substr(0, colon);
    if (const size_t sp = stamp.rfind(' '); sp != std::string_view::npos)
      stamp = stamp.substr(sp + 1);  // after the flags column
    Time time = 0;
    const Stamp parsed = to_time(stamp, time);
    if (parsed == Stamp::kOutOfRange)
      fail(number, fmt::format("timestamp {} is outside 0..{} s", stamp, INT64_MAX / kNsPerSec));
    if (parsed == Stamp::kNotATime) {
      ++stats.skipped_lines;
      return;
    }
    // A CPU's ring buffer is in time order; a step back is a damaged or spliced file.
    Time& last = last_time_[static_cast<size_t>(cpu)];
    if (time < last)
      fail(number, fmt::format("time goes backwards on CPU {}: {} after {}.{:09}", cpu, stamp,
                               last / kNsPerSec, last % kNsPerSec));
    last = time;
    rest = rest.substr(colon + 2);
    colon = rest.find(": ");
    const std::string_view event = trim(rest.substr(0, colon));
    const std::string_view fields = colon == std::string_view::npos ? "" : rest.substr(colon + 2);
    Record r;
    r.time = time;
    r.cpu = cpu;
    r.line = number;
    r.ctx = std::move(ctx);
    if (event == "sched_switch") {
      r.kind = Kind::kSwitch;
      switch_fields(fields, r);
    } else if (event == "sched_wakeup" || event == "sched_wakeup_new") {
      r.kind = event == "sched_wakeup" ? Kind::kWakeup : Kind::kWakeupNew;
      wakeup_fields(fields, r);
    } else if (event == "sched_migrate_task") {
      r.kind = Kind::kMigrate;
      const Fields f(fields, {"comm", "pid", "prio", "orig_cpu", "dest_cpu"});
      task_side(f, "comm", "pid", "prio", r.a, event);
      r.orig = cpu_field(f, "orig_cpu", event);
      r.target = cpu_field(f, "dest_cpu", event);
    } else if (event == "sched_process_fork") {
      r.kind = Kind::kFork;
      const Fields f(fields, {"comm", "pid", "child_comm", "child_pid"});
      task_side(f, "comm", "pid", nullptr, r.a, event);
      task_side(f, "child_comm", "child_pid", nullptr, r.b, event);
    } else if (event == "sched_process_exit") {
      r.kind = Kind::kExit;
      const Fields f(fields, {"comm", "pid", "prio"});
      task_side(f, "comm", "pid", "prio", r.a, event);
    } else {
      return;  // sched_waking, markers and other events
    }
    if (!error_.empty()) fail(number, error_);
    ++stats.events;
    records.push_back(std::move(r));
  }

  void task_side(const Fields& f, const char* comm, const char* pid, const char* prio, Side& s,
                 std::string_view event) {
    if (!f.has(pid) || !to_int(f.get(pid), s.pid)) {
      error_ = fmt::format("{} without a valid {}=", event, pid);
      return;
    }
    s.comm = std::string(f.get(comm));
    int64_t p = 120;
    if (prio && f.has(prio) && to_int(f.get(prio), p)) s.prio = static_cast<int>(p);
  }

  CpuId cpu_field(const Fields& f, const char* key, std::string_view event) {
    int64_t c = 0;
    if (!f.has(key) || !to_int(f.get(key), c) || c < 0 || c >= kMaxCpus) {
      error_ = fmt::format("{} without a valid {}=", event, key);
      return kNoCpu;
    }
    return static_cast<CpuId>(c);
  }

  // 2.6.28-2.6.30: "comm:pid [prio]".
  bool old_side(std::string_view text, Side& s) {
    text = trim(text);
    const size_t bracket = text.rfind(" [");
    const std::string_view who = bracket == std::string_view::npos ? text : text.substr(0, bracket);
    const size_t colon = who.rfind(':');
    if (colon == std::string_view::npos || !to_int(who.substr(colon + 1), s.pid)) return false;
    s.comm = std::string(who.substr(0, colon));
    int64_t p = 120;
    if (bracket != std::string_view::npos) {
      const size_t end = text.find(']', bracket);
      if (end != std::string_view::npos && to_int(text.substr(bracket + 2, end - bracket - 2), p))
        s.prio = static_cast<int>(p);
    }
    return true;
  }

  void switch_fields(std::string_view fields, Record& r) {
    if (fields.rfind("task ", 0) == 0) {  // task a:1 [120] (S) ==> b:2 [120]
      const size_t arrow = fields.find("==>");
      const size_t paren = fields.rfind('(', arrow);
      const size_t paren_end = fields.find(')', paren == std::string_view::npos ? 0 : paren);
      if (arrow == std::string_view::npos || paren == std::string_view::npos ||
          paren_end == std::string_view::npos || !old_side(fields.substr(5, paren - 5), r.a) ||
          !old_side(fields.substr(arrow + 3), r.b)) {
        error_ = "sched_switch in an unknown layout";
        return;
      }
      r.prev_state = prev_state_of(fields.substr(paren + 1, paren_end - paren - 1));
      return;
    }
    const Fields f(fields, {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
                            "next_pid", "next_prio"});
    task_side(f, "prev_comm", "prev_pid", "prev_prio", r.a, "sched_switch");
    if (!error_.empty()) return;
    task_side(f, "next_comm", "next_pid", "next_prio", r.b, "sched_switch");
    if (!f.has("prev_state")) {
      error_ = "sched_switch without prev_state=";
      return;
    }
    r.prev_state = prev_state_of(f.get("prev_state"));
  }

  void wakeup_fields(std::string_view fields, Record& r) {
    if (fields.rfind("task ", 0) == 0) {  // task a:1 [120] success=1
      const size_t success = fields.find(" success=");
      if (!old_side(fields.substr(5, success == std::string_view::npos ? std::string_view::npos
                                                                       : success - 5),
                    r.a))
        error_ = "sched_wakeup in an unknown layout";
      return;
    }
    const Fields f(fields, {"comm", "pid", "prio", "success", "target_cpu"});
    task_side(f, "comm", "pid", "prio", r.a, "sched_wakeup");
    if (error_.empty() && f.has("target_cpu"))
      r.target = cpu_field(f, "target_cpu", "sched_wakeup");
  }

  std::string file_;
  std::string error_;
  std::vector<Time> last_time_ = std::vector<Time>(kMaxCpus, 0);  // per CPU
};

struct TaskRow {
  std::string comm;
  int prio = 120;
  Time created = 0;
  TaskId parent = kNoTask;
};

// The records, sorted by time, replayed into a sink: tasks numbered in order of first
// appearance (pid 0 is the idle task), announced, then what ran when the trace began,
// then every record with times relative to the first.
class Replay {
 public:
  Replay(const std::vector<Record>& recs, const RunRecord& run, int header_cpus, EventSink& sink)
      : recs_(recs), run_(run), sink_(sink), t0_(recs.front().time), cpus_(header_cpus) {}

  void number_tasks() {
    for (const Record& r : recs_) {
      cpus_ = std::max(cpus_, r.cpu + 1);
      if (r.target != kNoCpu) cpus_ = std::max(cpus_, r.target + 1);
      task(r.ctx, 0, kNoTask);
      if (r.kind == Kind::kFork) {
        const TaskId parent = task(r.a, 0, kNoTask);
        task(r.b, r.time - t0_, parent);
      } else {
        task(r.a, 0, kNoTask);
        if (r.kind == Kind::kSwitch) task(r.b, 0, kNoTask);
      }
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
    info.mark_names = run_.mark_names;
    sink_.begin(info);
    std::vector<int64_t> pid_of(rows_.size());
    for (const auto& [pid, id] : id_of_) pid_of[id] = pid;
    for (TaskId id = 0; id < static_cast<TaskId>(rows_.size()); ++id) {
      const TaskRow& row = rows_[id];
      const auto named = run_.threads.find(pid_of[id]);
      const bool ours = named != run_.threads.end();
      TaskInfo t;
      t.id = id;
      t.name = ours                          ? named->second.name
               : pids_per_comm[row.comm] > 1 ? fmt::format("{}:{}", row.comm, pid_of[id])
                                             : row.comm;
      t.parent = row.parent;
      t.policy = row.prio < 0     ? SchedPolicy::kDeadline
                 : row.prio < 100 ? SchedPolicy::kFifo
                                  : SchedPolicy::kOther;
      t.rt_priority = row.prio >= 0 && row.prio < 100 ? 99 - row.prio : 0;
      t.nice = row.prio >= 100 ? row.prio - 120 : 0;
      t.allowed = ours && named->second.allowed.any() ? named->second.allowed : all_cpus(cpus_);
      t.created_ns = row.created;
      t.workload = run_.threads.empty() || ours;
      sink_.task_created(t);
    }
  }

  // Each line names the task running on its CPU. The first line of a CPU says what ran
  // there from the start; a task first seen being switched in was queued from the start.
  void start_state() {
    std::vector<char> task_seen(rows_.size(), 0), cpu_seen(static_cast<size_t>(cpus_), 0);
    for (const Record& r : recs_) {
      if (r.kind == Kind::kOwn) continue;
      const TaskId c = id(r.ctx);
      if (!cpu_seen[r.cpu]) {
        cpu_seen[r.cpu] = 1;
        if (c != kNoTask && !task_seen[c]) {
          sink_.event({0, EventType::kSwitch, 0, r.cpu, kNoTask, c, kStartState, 0});
          task_seen[c] = 1;
        }
      }
      if (r.kind == Kind::kSwitch && r.b.pid > 0 && !task_seen[id(r.b)])
        sink_.event({0, EventType::kWakeup, 0, r.cpu, id(r.b), kNoTask, 0, 0});
      for (const Side* side : {&r.ctx, &r.a, &r.b})
        if (side->pid > 0) task_seen[id(*side)] = 1;
    }
  }

  // When a line's running task is not the one the last switch left there, a switch was
  // not recorded (lost events): one is inferred at that line.
  size_t events() {
    size_t inferred = 0;
    std::vector<TaskId> curr(static_cast<size_t>(cpus_), kNoTask);
    std::vector<char> cpu_seen(static_cast<size_t>(cpus_), 0);
    for (const Record& r : recs_) {
      const Time at = r.time - t0_;
      if (r.kind == Kind::kOwn) {
        sink_.event({at, r.own->type, 0, r.cpu, id(r.a), kNoTask, r.own->arg, r.own->value});
        continue;
      }
      const TaskId running = id(r.ctx);
      if (cpu_seen[r.cpu] && r.ctx.pid >= 0 && running != curr[r.cpu]) {
        sink_.event({at, EventType::kSwitch, static_cast<uint8_t>(PrevState::kBlocked), r.cpu,
                     curr[r.cpu], running, 0, 0});
        ++inferred;
      }
      cpu_seen[r.cpu] = 1;
      curr[r.cpu] = r.kind == Kind::kSwitch ? id(r.b) : running;
      emit(r, at);
    }
    return inferred;
  }

 private:
  TaskId id(const Side& s) const { return s.pid > 0 ? id_of_.at(s.pid) : kNoTask; }

  TaskId task(const Side& s, Time at, TaskId parent) {
    if (s.pid <= 0) return kNoTask;
    auto [it, fresh] = id_of_.try_emplace(s.pid, static_cast<TaskId>(rows_.size()));
    if (fresh) rows_.push_back({s.comm, s.prio, at, parent});
    // The name a task ends with (a child is named after its parent until it execs); the
    // "<...>" of an unknown comm never replaces a name.
    TaskRow& row = rows_[it->second];
    if (!s.comm.empty() && s.comm != "<...>") row.comm = s.comm;
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
                     r.target != kNoCpu ? r.target : r.cpu, a, kNoTask, 0, 0});
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
        break;
    }
  }

  const std::vector<Record>& recs_;
  const RunRecord& run_;
  EventSink& sink_;
  Time t0_;
  int cpus_;
  std::map<int64_t, TaskId> id_of_;
  std::vector<TaskRow> rows_;
};

// A run's own event as a record without a CPU context line.
Record own_record(const HostEvent& e) {
  Record r;
  r.time = e.time_ns;
  r.cpu = e.cpu >= 0 && e.cpu < kMaxCpus ? e.cpu : 0;
  r.kind = Kind::kOwn;
  r.a.pid = e.tid;
  r.own = &e;
  return r;
}

}  // namespace

FtraceStats parse_ftrace(std::istream& in, const std::string& file, EventSink& sink,
                         const RunRecord& run) {
  Parser p(file);
  std::string text;
  size_t number = 0;
  while (std::getline(in, text)) p.line(text, ++number);
  std::vector<Record>& recs = p.records;
  FtraceStats stats = p.stats;
  stats.switches = static_cast<size_t>(std::count_if(
      recs.begin(), recs.end(), [](const Record& r) { return r.kind == Kind::kSwitch; }));
  if (stats.switches == 0)
    throw InputError(file, "", "no sched_switch events: not an ftrace text trace of sched events");
  for (const HostEvent& e : run.events) recs.push_back(own_record(e));
  std::stable_sort(recs.begin(), recs.end(),
                   [](const Record& x, const Record& y) { return x.time < y.time; });
  stats.first_ns = recs.front().time;
  stats.last_ns = recs.back().time;
  Replay replay(recs, run, p.header_cpus_, sink);
  replay.number_tasks();
  stats.cpus = replay.cpus();
  replay.announce();
  replay.start_state();
  stats.inferred_switches = replay.events();
  sink.end(stats.last_ns - stats.first_ns);
  return stats;
}

}  // namespace schedlab
