#include "host/ftrace_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include "host/ftrace_record.h"
#include "host/trace_dat.h"
#include "util/error.h"
#include "util/input_file.h"

namespace schedlab {

namespace {

using Kind = FtraceKind;
using Side = FtraceSide;
using Record = FtraceRecord;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// ---- Field conversion: every number of a line is read here. ----

// kOutOfRange: a number, but one the tables cannot take (issue 18, findings 1 and 10: a
// negative CPU indexed the per-CPU tables, a CPU or #P: of 256 or more overflowed the CPU
// masks, a timestamp past int64 nanoseconds wrapped). The line is then an error, not skipped.
enum class Conv { kOk, kNotANumber, kOutOfRange };

Conv to_int_checked(std::string_view s, int64_t& v) {
  s = trim(s);
  if (s.empty()) return Conv::kNotANumber;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ptr != s.data() + s.size()) return Conv::kNotANumber;
  if (r.ec == std::errc::result_out_of_range) return Conv::kOutOfRange;
  return r.ec == std::errc() ? Conv::kOk : Conv::kNotANumber;
}

bool to_int(std::string_view s, int64_t& v) {
  return to_int_checked(s, v) == Conv::kOk;
}

// SECS.FRACTION (any number of fraction digits up to 9) or whole nanoseconds, in ns;
// negative or more than int64 nanoseconds is out of range.
Conv to_time(std::string_view s, Time& t) {
  const auto dot = s.find('.');
  int64_t secs = 0, frac = 0;
  if (const Conv c = to_int_checked(s.substr(0, dot), secs); c != Conv::kOk) return c;
  if (secs < 0) return Conv::kOutOfRange;
  if (dot == std::string_view::npos) {  // trace-cmd --raw-ts: an integer
    t = secs;
    return Conv::kOk;
  }
  std::string_view f = s.substr(dot + 1);
  if (f.size() > 9 || !to_int(f, frac) || frac < 0) return Conv::kNotANumber;
  for (size_t i = f.size(); i < 9; ++i) frac *= 10;
  if (secs > (INT64_MAX - frac) / kNsPerSec) return Conv::kOutOfRange;
  t = secs * kNsPerSec + frac;
  return Conv::kOk;
}

// "time goes backwards" naming the earlier time with as many fraction digits as the line's
// own stamp where that loses nothing (a µs trace reads 1.000050 after 1.000100), else 9.
std::string backwards(CpuId cpu, std::string_view stamp, Time earlier) {
  const size_t dot = stamp.find('.');
  int digits = dot == std::string_view::npos ? 9 : static_cast<int>(stamp.size() - dot - 1);
  int64_t unit = 1;
  for (int i = digits; i < 9; ++i) unit *= 10;
  if (earlier % unit != 0) {  // the earlier time has digits the line's precision lacks
    digits = 9;
    unit = 1;
  }
  return fmt::format("time goes backwards on CPU {}: {} after {}.{:0{}}", cpu, stamp,
                     earlier / kNsPerSec, (earlier % kNsPerSec) / unit, digits);
}

// A CPU number as the kernel prints it (zero-padded), within the machine's limit.
Conv convert_cpu(std::string_view s, CpuId& cpu) {
  int64_t c = 0;
  if (const Conv r = to_int_checked(s, c); r != Conv::kOk) return r;
  if (c < 0 || c >= kMaxCpus) return Conv::kOutOfRange;
  cpu = static_cast<CpuId>(c);
  return Conv::kOk;
}

bool to_cpu(std::string_view s, CpuId& cpu) {
  return convert_cpu(s, cpu) == Conv::kOk;
}

// A CPU count (#P:, trace-cmd's cpus=), up to the next blank: kNotANumber leaves it unknown.
Conv to_cpu_count(std::string_view s, int& n) {
  s = trim(s);
  int64_t v = 0;
  if (const Conv r = to_int_checked(s.substr(0, s.find(' ')), v); r != Conv::kOk) return r;
  if (v < 1 || v > kMaxCpus) return Conv::kOutOfRange;
  n = static_cast<int>(v);
  return Conv::kOk;
}

// prev_state as letters (R, R+, S, D, X, I, "S|W", the plugin's W and x) or, in trace-cmd
// report -R, as the kernel's number: 0 running (preempted), a single bit at 0x100 or
// above the preemption flag TASK_REPORT_MAX of 4.14+ (TASK_STATE_MAX before), 0x10 and
// 0x20 EXIT_DEAD/EXIT_ZOMBIE; anything else a sleep.
PrevState prev_state_of(std::string_view s) {
  s = trim(s);
  int64_t n = 0;
  if (to_int(s, n)) {
    if (n == 0 || (n >= 0x100 && (n & (n - 1)) == 0)) return PrevState::kPreempted;
    if (n & 0x30) return PrevState::kExited;
    return PrevState::kBlocked;
  }
  if (s.find('X') != std::string_view::npos || s.find('Z') != std::string_view::npos)
    return PrevState::kExited;
  if (s == "R" || s == "R+") return PrevState::kPreempted;
  return PrevState::kBlocked;
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
  // A number's text: the value up to its first blank (a kernel may add keys this reader
  // does not know, such as Android's `state=W` after target_cpu).
  std::string_view number(std::string_view key) const {
    const std::string_view v = get(key);
    return v.substr(0, v.find(' '));
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

// "comm:pid [prio]": the sched plugins of trace-cmd and the 2.6.28-2.6.30 kernels. The
// pid is after the last colon (a comm may hold colons: kworker/0:1:45).
bool colon_side(std::string_view text, Side& s) {
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

// ---- Lines: where the columns are. ----

// The timestamp column: the first "DIGITS[.DIGITS]:" token after a blank, followed by a
// blank and an event name with its colon (a comm may hold digits and dots). A leading '-'
// is taken too, so that a negative timestamp is refused rather than the line skipped.
size_t find_timestamp(std::string_view text, size_t& end) {
  for (size_t i = 1; i < text.size(); ++i) {
    const bool minus = text[i] == '-' && i + 1 < text.size() && is_digit(text[i + 1]);
    if ((!is_digit(text[i]) && !minus) || (text[i - 1] != ' ' && text[i - 1] != '\t')) continue;
    size_t j = minus ? i + 1 : i;
    while (j < text.size() && is_digit(text[j])) ++j;
    if (j < text.size() && text[j] == '.') {
      ++j;
      while (j < text.size() && is_digit(text[j])) ++j;
    }
    if (j + 1 < text.size() && text[j] == ':' && text[j + 1] == ' ') {
      end = j;
      return i;
    }
  }
  return std::string_view::npos;
}

// "COMM-PID", optionally behind a trace-cmd instance's "name:" and before "(TGID)".
Side context_of(std::string_view who) {
  Side s;
  who = trim(who);
  if (!who.empty() && who.back() == ')') {
    const size_t paren = who.rfind('(');
    if (paren != std::string_view::npos) {
      int64_t tgid = 0;
      if (to_int(who.substr(paren + 1, who.size() - paren - 2), tgid)) s.tgid = tgid;
      who = trim(who.substr(0, paren));
    }
  }
  // trace-cmd report of an instance: "sltr:             bash-5035"
  if (const size_t colon = who.find(": ");
      colon != std::string_view::npos && who.substr(0, colon).find(' ') == std::string_view::npos)
    who = trim(who.substr(colon + 1));
  const size_t dash = who.rfind('-');
  if (dash == std::string_view::npos || !to_int(who.substr(dash + 1), s.pid)) s.pid = -1;
  s.comm = std::string(who.substr(0, dash == std::string_view::npos ? who.size() : dash));
  return s;
}

// The columns before the timestamp: COMM-PID [(TGID)] [CPU] [FLAGS] (tracefs, trace-cmd),
// or COMM-PID CPUFLAGS (trace-cmd report -l: "bash-5035    0d..2."). A CPU column that
// is a number outside 0..kMaxCpus-1 is left in `bad_cpu` (the caller refuses the line).
bool split_head(std::string_view head, Side& ctx, CpuId& cpu, std::string_view& bad_cpu,
                std::string_view& flags) {
  head = trim(head);
  for (size_t close = head.rfind(']'); close != std::string_view::npos && close > 0;
       close = head.rfind(']', close - 1)) {
    const size_t open = head.rfind('[', close);
    if (open == std::string_view::npos || open == 0 || head[open - 1] != ' ') continue;
    const std::string_view column = head.substr(open + 1, close - open - 1);
    if (const Conv c = convert_cpu(column, cpu); c != Conv::kOk) {
      if (c == Conv::kOutOfRange && bad_cpu.empty()) bad_cpu = trim(column);
      continue;
    }
    ctx = context_of(head.substr(0, open));
    flags = trim(head.substr(close + 1));
    return true;
  }
  const size_t sp = head.find_last_of(" \t");
  if (sp == std::string_view::npos) return false;
  const std::string_view last = head.substr(sp + 1);
  size_t digits = 0;
  while (digits < last.size() && is_digit(last[digits])) ++digits;
  if (digits == 0 || digits == last.size() || last.size() - digits > 6) return false;
  if (const Conv c = convert_cpu(last.substr(0, digits), cpu); c != Conv::kOk) {
    if (c == Conv::kOutOfRange && bad_cpu.empty()) bad_cpu = last.substr(0, digits);
    return false;
  }
  ctx = context_of(head.substr(0, sp));
  flags = last.substr(digits);
  return true;
}

class LineParser {
 public:
  explicit LineParser(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(size_t line, const std::string& why) const {
    throw InputError(file_, fmt::format("line {}", line), why);
  }

  // False when a sched event line cannot be read (error_ says why).
  bool line(std::string_view text, size_t number) {
    ++stats.lines;
    text = trim(text);
    if (text.empty()) return true;
    if (text.front() == '#') {
      comment(text, number);
      return true;
    }
    if (text.rfind("cpus=", 0) == 0) {  // trace-cmd report's first line
      if (to_cpu_count(text.substr(5), header_cpus) == Conv::kOutOfRange)
        fail(number, fmt::format("cpus={} is outside 1..{}", trim(text.substr(5)), kMaxCpus));
      return true;
    }
    if (text.rfind("CPU:", 0) == 0 && (text.find("LOST") != std::string_view::npos ||
                                       text.find("DROPPED") != std::string_view::npos)) {
      lost_line(text, number);
      return true;
    }
    size_t stamp_end = 0;
    const size_t stamp = find_timestamp(text, stamp_end);
    Side ctx;
    CpuId cpu = 0;
    Time time = 0;
    std::string_view bad_cpu, flags;
    const bool head = stamp != std::string_view::npos &&
                      split_head(text.substr(0, stamp), ctx, cpu, bad_cpu, flags);
    if (stamp != std::string_view::npos && !head && !bad_cpu.empty())
      fail(number, fmt::format("CPU {} is outside 0..{}", bad_cpu, kMaxCpus - 1));
    const std::string_view stamp_text =
        head ? text.substr(stamp, stamp_end - stamp) : std::string_view();
    const Conv stamped = head ? to_time(stamp_text, time) : Conv::kNotANumber;
    if (stamped == Conv::kOutOfRange)
      fail(number,
           fmt::format("timestamp {} is outside 0..{} s", stamp_text, INT64_MAX / kNsPerSec));
    if (stamped != Conv::kOk) {
      if (text.rfind("sched_switch:", 0) == 0) bare_events_ = true;
      ++stats.skipped_lines;
      return true;
    }
    // A CPU's ring buffer is in time order; a step back is a damaged or spliced file.
    Time& cpu_last = cpu_last_time_[static_cast<size_t>(cpu)];
    if (time < cpu_last) fail(number, backwards(cpu, stamp_text, cpu_last));
    cpu_last = time;
    last_time_ = time;
    seen_time_ = true;
    for (const size_t i : pending_lost_) records[i].time = time;  // lost before this event
    pending_lost_.clear();
    std::string_view rest = trim(text.substr(stamp_end + 1));
    if (!rest.empty() && rest.front() == '(') {  // trace-cmd --ts-diff: "(+6)"
      const size_t close = rest.find(')');
      if (close != std::string_view::npos) rest = trim(rest.substr(close + 1));
    }
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos) {
      ++stats.skipped_lines;
      return true;
    }
    const std::string_view event = trim(rest.substr(0, colon));
    std::string_view fields = trim(rest.substr(colon + 1));
    // trace-cmd report -w appends the wake-up latency to a switch
    if (const size_t lat = fields.find(" Latency: "); lat != std::string_view::npos)
      fields = fields.substr(0, lat);
    Record r;
    r.time = time;
    r.cpu = cpu;
    r.line = number;
    r.ctx = std::move(ctx);
    error_.clear();
    if (event == "sched_waking") {
      waking(fields, r, context_of_flags(flags));
      if (!error_.empty()) return false;
      records.push_back(std::move(r));
      return true;
    }
    if (!convert(event, fields, r)) return true;  // not a sched event we read
    if (!error_.empty()) return false;
    if (r.kind == Kind::kWakeup) {
      waker_of(r, context_of_flags(flags));
      if (flags.empty() && r.waker.pid > 0) ++wakers_without_context;
    }
    ++stats.events;
    records.push_back(std::move(r));
    return true;
  }

  const std::string& error() const { return error_; }
  bool bare_events() const { return bare_events_; }

  std::vector<Record> records;
  FtraceStats stats;
  FtraceSpan span;
  int header_cpus = 0;
  // Wake-ups credited to a task by a layout without the flags column (trace-cmd report's
  // default), where an interrupt's wake-up shows the task it interrupted.
  size_t wakers_without_context = 0;

 private:
  void comment(std::string_view text, size_t number) {
    if (const size_t p = text.find("#P:"); p != std::string_view::npos) {
      std::string_view count = trim(text.substr(p + 3));
      count = count.substr(0, count.find(' '));
      if (to_cpu_count(count, header_cpus) == Conv::kOutOfRange)
        fail(number, fmt::format("#P:{} is outside 1..{}", count, kMaxCpus));
    }
    // `run --ftrace`: "# schedlab: start 100.000000000" and "# schedlab: end 101.5".
    for (const auto& [word, slot] :
         {std::pair{std::string_view("# schedlab: start "), &span.start_ns},
          std::pair{std::string_view("# schedlab: end "), &span.end_ns}})
      if (text.rfind(word, 0) == 0) {
        Time t = 0;
        if (to_time(trim(text.substr(word.size())), t) == Conv::kOk) *slot = t;
      }
  }

  // trace_pipe / trace: "CPU:N [LOST M EVENTS]"; trace-cmd report: "CPU:N [M EVENTS DROPPED]"
  // or "CPU:N [EVENTS DROPPED]" when the count is not known.
  void lost_line(std::string_view text, size_t number) {
    const size_t open = text.find(" [");
    CpuId cpu = 0;
    if (open == std::string_view::npos || !to_cpu(text.substr(4, open - 4), cpu)) {
      ++stats.skipped_lines;
      return;
    }
    std::string_view inside = text.substr(open + 2);
    if (inside.rfind("LOST ", 0) == 0) inside.remove_prefix(5);
    int64_t count = -1;
    if (!to_int(inside.substr(0, inside.find(' ')), count) || count < 0) count = -1;
    Record r;
    r.time = last_time_;
    if (!seen_time_) pending_lost_.push_back(records.size());
    r.cpu = cpu;
    r.kind = Kind::kLost;
    r.lost = count;
    r.line = number;
    if (count > 0) stats.lost_events += static_cast<size_t>(count);
    records.push_back(std::move(r));
  }

  // The fields of one event into `r`; false for an event that is not read.
  bool convert(std::string_view event, std::string_view fields, Record& r) {
    if (event == "sched_switch") {
      r.kind = Kind::kSwitch;
      switch_fields(fields, r);
    } else if (event == "sched_wakeup" || event == "sched_wakeup_new") {
      r.kind = event == "sched_wakeup" ? Kind::kWakeup : Kind::kWakeupNew;
      wakeup_fields(fields, r, event);
    } else if (event == "sched_migrate_task") {
      r.kind = Kind::kMigrate;
      const Fields f(fields, {"comm", "pid", "prio", "orig_cpu", "dest_cpu"});
      task_side(f, "comm", "pid", "prio", r.a, event);
      r.orig = cpu_field(f, "orig_cpu", event);
      r.target = cpu_field(f, "dest_cpu", event);
    } else if (event == "sched_process_fork") {
      r.kind = Kind::kFork;
      // -R names the parent's fields parent_comm and parent_pid, as the kernel does
      const Fields f(fields,
                     {"comm", "pid", "parent_comm", "parent_pid", "child_comm", "child_pid"});
      if (f.has("parent_pid"))
        task_side(f, "parent_comm", "parent_pid", nullptr, r.a, event);
      else
        task_side(f, "comm", "pid", nullptr, r.a, event);
      task_side(f, "child_comm", "child_pid", nullptr, r.b, event);
    } else if (event == "sched_process_exit") {
      r.kind = Kind::kExit;
      const Fields f(fields, {"comm", "pid", "prio", "group_dead"});
      task_side(f, "comm", "pid", "prio", r.a, event);
    } else {
      return false;  // markers and other events
    }
    return true;
  }

  void task_side(const Fields& f, const char* comm, const char* pid, const char* prio, Side& s,
                 std::string_view event) {
    if (!error_.empty()) return;
    if (!f.has(pid) || !to_int(f.number(pid), s.pid) || s.pid < 0) {
      error_ = fmt::format("{} without a valid {}=", event, pid);
      return;
    }
    s.comm = std::string(f.get(comm));
    int64_t p = 120;
    if (prio && f.has(prio) && to_int(f.number(prio), p)) s.prio = static_cast<int>(p);
  }

  CpuId cpu_field(const Fields& f, const char* key, std::string_view event) {
    CpuId c = kNoCpu;
    if (error_.empty() && (!f.has(key) || !to_cpu(f.number(key), c)))
      error_ = fmt::format("{} without a valid {}=", event, key);
    return c;
  }

  void switch_fields(std::string_view fields, Record& r) {
    if (fields.find("prev_pid=") != std::string_view::npos) {  // tracefs, -N, -R
      const Fields f(fields, {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
                              "next_pid", "next_prio"});
      task_side(f, "prev_comm", "prev_pid", "prev_prio", r.a, "sched_switch");
      task_side(f, "next_comm", "next_pid", "next_prio", r.b, "sched_switch");
      if (error_.empty() && !f.has("prev_state")) error_ = "sched_switch without prev_state=";
      r.prev_state = prev_state_of(f.number("prev_state"));
      return;
    }
    // 2.6.28-2.6.30 "task a:1 [120] (S) ==> b:2 [120]"; the plugin "a:1 [120] S ==> b:2 [120]"
    const bool old = fields.rfind("task ", 0) == 0;
    if (old) fields.remove_prefix(5);
    const size_t arrow = fields.find(" ==> ");
    const size_t close = arrow == std::string_view::npos ? arrow : fields.rfind(']', arrow);
    if (close == std::string_view::npos || !colon_side(fields.substr(0, close + 1), r.a) ||
        !colon_side(fields.substr(arrow + 5), r.b)) {
      error_ = "sched_switch in an unknown layout";
      return;
    }
    std::string_view state = trim(fields.substr(close + 1, arrow - close - 1));
    if (old && state.size() >= 2 && state.front() == '(' && state.back() == ')')
      state = state.substr(1, state.size() - 2);
    r.prev_state = prev_state_of(state);
  }

  void wakeup_fields(std::string_view fields, Record& r, std::string_view event) {
    if (fields.find("pid=") == std::string_view::npos ||
        fields.rfind("task ", 0) == 0) {  // "task a:1 [120] success=1", "a:1 [120] CPU:001"
      if (fields.rfind("task ", 0) == 0) fields.remove_prefix(5);
      const size_t close = fields.find(']');
      if (!colon_side(close == std::string_view::npos ? fields : fields.substr(0, close + 1),
                      r.a)) {
        error_ = fmt::format("{} in an unknown layout", event);
        return;
      }
      if (const size_t at = fields.find("CPU:");
          at != std::string_view::npos && !to_cpu(fields.substr(at + 4), r.target))
        error_ = fmt::format("{} without a valid CPU:", event);
      return;
    }
    const Fields f(fields, {"comm", "pid", "prio", "success", "target_cpu"});
    task_side(f, "comm", "pid", "prio", r.a, event);
    if (f.has("target_cpu")) r.target = cpu_field(f, "target_cpu", event);
  }

  // sched_waking is traced in the waker's context (try_to_wake_up), sched_wakeup since
  // 4.x often on the target CPU (ttwu_queue's IPI, or the idle task): the waker of a
  // wake-up is the task its waking line ran in, or without one the wake-up line's; none
  // when that line ran in interrupt context or in the idle task.
  // In a soft interrupt the line's task is the one the softirq ran over: the waker only
  // when asked (FtraceOptions::softirq_wakers), as loopback networking's is.
  enum class Context : uint8_t { kTask, kSoftirq, kHardirq };
  struct Waker {
    Side side;
    bool softirq = false;
  };

  Waker waker_in(const Record& r, int64_t wakee, Context c) const {
    if (c == Context::kHardirq || r.ctx.pid <= 0 || r.ctx.pid == wakee) return {};
    return {r.ctx, c == Context::kSoftirq};
  }

  // The line becomes a kWaking record (the wake-up's start) and names the waker of the
  // task's next sched_wakeup.
  void waking(std::string_view fields, Record& r, Context c) {
    r.kind = Kind::kWaking;
    wakeup_fields(fields, r, "sched_waking");
    if (!error_.empty()) return;
    // pid -1: a waking line seen, in no task's context
    const Waker w = waker_in(r, r.a.pid, c);
    r.waker = w.side;
    r.waker_softirq = w.softirq;
    pending_waker_[r.a.pid] = w;
  }

  void waker_of(Record& r, Context c) {
    Waker w;
    if (const auto it = pending_waker_.find(r.a.pid); it != pending_waker_.end()) {
      w = it->second;
      pending_waker_.erase(it);
    } else {
      w = waker_in(r, r.a.pid, c);
    }
    r.waker = std::move(w.side);
    r.waker_softirq = w.softirq;
  }

  // The flags column's third character: h/H hard interrupt, z/Z NMI, s soft interrupt
  // (kernel/trace/trace_output.c, trace_print_lat_fmt).
  static Context context_of_flags(std::string_view flags) {
    if (flags.size() < 3) return Context::kTask;
    if (flags[2] == 's') return Context::kSoftirq;
    return std::string_view("hHzZ").find(flags[2]) != std::string_view::npos ? Context::kHardirq
                                                                             : Context::kTask;
  }

  std::string file_;
  std::string error_;
  std::map<int64_t, Waker> pending_waker_;  // pid -> the context of its last sched_waking
  Time last_time_ = 0;
  std::vector<Time> cpu_last_time_ = std::vector<Time>(kMaxCpus, 0);
  bool seen_time_ = false;
  std::vector<size_t> pending_lost_;  // lost-event lines before any timestamp
  bool bare_events_ = false;
};

// The lines of a systrace/atrace HTML file that hold its ftrace text: those inside its
// `<script class="trace-data" type="application/text">` sections (what Perfetto reads),
// or, in systrace's older files, the `var linuxPerfData = "\` string of a script.
class HtmlFilter {
 public:
  // The part of `line` that is trace text ("" for none); false outside any section.
  bool take(std::string& line) {
    static constexpr std::string_view kOpen = "<script class=\"trace-data\"";
    static constexpr std::string_view kLegacy = "var linuxPerfData = \"";
    if (!inside_) {
      if (const size_t at = line.find(kLegacy); at != std::string::npos) {
        inside_ = true;
        line = line.substr(at + kLegacy.size());
        if (!line.empty() && line.back() == '\\') line.pop_back();
      } else if (const size_t open = line.find(kOpen); open != std::string::npos) {
        const size_t end = line.find('>', open);
        inside_ = true;
        line = end == std::string::npos ? "" : line.substr(end + 1);
      } else {
        return false;
      }
    }
    if (const size_t close = line.find("</script>"); close != std::string::npos) {
      inside_ = false;
      line = line.substr(0, close);
    }
    return true;
  }

 private:
  bool inside_ = false;
};

Record own_record(const HostEvent& e) {
  Record r;
  r.time = e.time_ns;
  r.cpu = e.cpu >= 0 && e.cpu < kMaxCpus ? e.cpu : 0;
  r.kind = Kind::kOwn;
  r.a.pid = e.tid;
  r.own = &e;
  return r;
}

// `cpus_merged_by_time`: the lines come from per-CPU buffers merged by time alone
// (trace.dat), so at one timestamp their order across CPUs says nothing.
FtraceStats parse_lines(std::istream& in, const std::string& file, EventSink& sink,
                        const RunRecord& run, const FtraceOptions& options,
                        bool cpus_merged_by_time) {
  LineParser p(file);
  std::string text;
  size_t number = 0;
  bool html = false, first = true;
  HtmlFilter filter;
  while (std::getline(in, text)) {
    ++number;
    if (first) {
      first = false;
      // "<!DOCTYPE html>" or "<html>", not a line of text such as "  <idle>-0 [000] ..."
      const std::string_view head = trim(text);
      html = head.rfind("<!", 0) == 0 || head.rfind("<html", 0) == 0 || head.rfind("<HTML", 0) == 0;
    }
    if (html && !filter.take(text)) continue;
    const bool cut = in.eof();  // the last line had no newline: perhaps cut short
    if (p.line(text, number)) continue;
    if (!cut) p.fail(number, p.error());
    p.stats.notes.push_back(fmt::format(
        "{}: line {} is cut short (no newline: {}) and was left out", file, number, p.error()));
  }
  std::vector<Record>& recs = p.records;
  FtraceStats stats = p.stats;
  if (options.wakers && p.wakers_without_context > 0)
    stats.notes.push_back(fmt::format(
        "{}: {} wake-ups name their waker from lines without the flags column (trace-cmd "
        "report's default layout), which cannot tell an interrupt's wake-up from the "
        "interrupted task's: each was taken as that task's; `trace-cmd report -l`, or the "
        "trace.dat itself, shows the context",
        file, p.wakers_without_context));
  stats.format = html ? "systrace HTML" : "ftrace text";
  stats.switches = static_cast<size_t>(std::count_if(
      recs.begin(), recs.end(), [](const Record& r) { return r.kind == Kind::kSwitch; }));
  if (stats.switches == 0)
    throw InputError(file, "",
                     p.bare_events()
                         ? "events without the task, CPU and timestamp columns (trace option "
                           "context-info off): nothing to place them on"
                         : "no sched_switch events: not a trace of the scheduler's events "
                           "(record sched:sched_switch and sched:sched_waking)");
  for (const HostEvent& e : run.events) recs.push_back(own_record(e));
  std::stable_sort(recs.begin(), recs.end(),
                   [](const Record& x, const Record& y) { return x.time < y.time; });
  if (cpus_merged_by_time) order_cpu_ties(recs);
  stats.first_ns = recs.front().time;
  stats.last_ns = recs.back().time;
  replay_ftrace(recs, run, p.header_cpus, p.span, options, sink, stats);
  return stats;
}

}  // namespace

FtraceStats parse_ftrace(std::istream& in, const std::string& file, EventSink& sink,
                         const RunRecord& run, const FtraceOptions& options) {
  return parse_lines(in, file, sink, run, options, false);
}

FtraceStats parse_trace_file(const std::string& path, EventSink& sink, const RunRecord& run,
                             const FtraceOptions& options) {
  // Within the input limits first (a regular file of at most --max-input bytes): a FIFO
  // or /dev/zero is refused before libtracecmd or the text parser reads it.
  std::string bytes = read_input_file(path);
  if (is_trace_dat(path)) {
    bytes = {};
    std::istringstream text(trace_dat_text(path));
    FtraceStats stats = parse_lines(text, path, sink, run, options, true);
    stats.format = "trace.dat";
    return stats;
  }
  std::istringstream in(std::move(bytes));
  return parse_ftrace(in, path, sink, run, options);
}

}  // namespace schedlab
