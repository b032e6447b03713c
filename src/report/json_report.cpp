#include "report/json_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "report/json_text.h"
#include "report/program_units.h"

namespace schedlab {

namespace {

using nlohmann::ordered_json;

// Nearest-rank percentiles in schbench's block (50 ... 99.9), with min, max and count.
ordered_json percentile_block(const LatencyStats& s) {
  ordered_json j;
  j["count"] = s.count();
  j["min"] = s.min();
  int64_t values[std::size(kPercentileBlock)];
  s.percentiles(kPercentileBlock, values);
  for (size_t i = 0; i < std::size(kPercentileBlock); ++i)
    j[fmt::format("p{}", kPercentileNames[i])] = values[i];
  j["max"] = s.max();
  return j;
}

// Stands for the tasks array in the tree; no task name can produce it (it is not a name).
constexpr const char* kTasksPlaceholder = "\x01tasks\x01";

// Appends text to a string through a buffer on the stack, a few hundred bytes at a time:
// 100,000 tasks' rows are millions of short pieces, and a std::string append per piece
// (with fmt::format_to parsing "{}" for every number) was most of a large run's time.
class Appender {
 public:
  explicit Appender(std::string& out) : out_(out) {}
  Appender(const Appender&) = delete;
  Appender& operator=(const Appender&) = delete;
  ~Appender() { flush(); }
  void text(std::string_view s) {
    if (s.size() > kSize - n_) {
      flush();
      if (s.size() > kSize) {
        out_.append(s);
        return;
      }
    }
    std::memcpy(buf_ + n_, s.data(), s.size());
    n_ += s.size();
  }
  void spaces(int count) {
    for (auto left = static_cast<size_t>(count); left > 0;) {
      if (n_ == kSize) flush();
      const size_t k = std::min(left, kSize - n_);
      std::memset(buf_ + n_, ' ', k);
      n_ += k;
      left -= k;
    }
  }
  // As fmt's "{}" writes it: std::to_chars gives an integer the same digits.
  template <typename T>
  void number(T value) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (kSize - n_ < 24) flush();
      n_ = static_cast<size_t>(std::to_chars(buf_ + n_, buf_ + kSize, value).ptr - buf_);
    } else {
      flush();
      fmt::format_to(std::back_inserter(out_), "{}", value);
    }
  }
  // ",\n" (unless first), `indent` spaces, then "key": , in one copy into the buffer.
  void member(bool first, int indent, std::string_view key) {
    const size_t need = 2 + static_cast<size_t>(indent) + key.size() + 4;
    if (need > kSize - n_) flush();
    if (need > kSize) {  // never for this file's keys and indents
      if (!first) text(",\n");
      spaces(indent);
      text("\"");
      text(key);
      text("\": ");
      return;
    }
    char* p = buf_ + n_;
    if (!first) {
      *p++ = ',';
      *p++ = '\n';
    }
    std::memset(p, ' ', static_cast<size_t>(indent));
    p += indent;
    *p++ = '"';
    std::memcpy(p, key.data(), key.size());
    p += key.size();
    *p++ = '"';
    *p++ = ':';
    *p++ = ' ';
    n_ = static_cast<size_t>(p - buf_);
  }
  void flush() {
    out_.append(buf_, n_);
    n_ = 0;
  }

 private:
  static constexpr size_t kSize = 512;
  std::string& out_;
  char buf_[kSize];
  size_t n_ = 0;
};

// nlohmann's dump(2) layout, for the members of one object at `indent` spaces: each
// member on its own line, `"key": value`, separated by commas.
class ObjectWriter {
 public:
  ObjectWriter(Appender& out, int indent) : out_(out), indent_(indent) { out_.text("{\n"); }
  template <typename T>
  void number(std::string_view key, T value) {
    open(key);
    out_.number(value);
  }
  void raw(std::string_view key, const std::string& text) {
    open(key);
    out_.text(text);
  }
  ObjectWriter object(std::string_view key) {
    open(key);
    return ObjectWriter(out_, indent_ + 2);
  }
  template <typename T>
  void numbers(std::string_view key, const std::vector<T>& values) {
    open(key);
    if (values.empty()) {
      out_.text("[]");
      return;
    }
    out_.text("[\n");
    for (size_t i = 0; i < values.size(); ++i) {
      out_.spaces(indent_ + 4);
      out_.number(values[i]);
      out_.text(i + 1 < values.size() ? ",\n" : "\n");
    }
    out_.spaces(indent_ + 2);
    out_.text("]");
  }
  void close() {
    out_.text("\n");
    out_.spaces(indent_);
    out_.text("}");
  }

 private:
  void open(std::string_view key) {
    out_.member(first_, indent_ + 2, key);
    first_ = false;
  }
  Appender& out_;
  int indent_;
  bool first_ = true;
};

// The tasks array at indent 2 (a member of the top-level object), as dump(2) writes it,
// one task at a time (100,000 tasks are hundreds of MB of text).
void write_tasks(std::ostream& os, const std::vector<TaskMetrics>& tasks, int cpus) {
  if (tasks.empty()) {
    os << "[]";
    return;
  }
  os << "[\n";
  std::string out;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskMetrics& t = tasks[i];
    out.clear();
    Appender text(out);
    text.spaces(4);
    ObjectWriter tj(text, 4);
    tj.raw("name", json_string(t.name));
    tj.number("tid", t.tid);
    tj.number("cpu_time_ns", t.cpu_time_ns);
    tj.number("wait_time_ns", t.wait_time_ns);
    tj.number("sleep_time_ns", t.sleep_time_ns);
    tj.number("switches_voluntary", t.switches_voluntary);
    tj.number("switches_involuntary", t.switches_involuntary);
    tj.number("migrations", t.migrations);
    ObjectWriter lat = tj.object("wakeup_latency_ns");
    lat.number("count", t.wakeup_latency.count());
    constexpr double kTaskPercentiles[] = {0.50, 0.90, 0.99};
    int64_t p[3];
    t.wakeup_latency.percentiles(kTaskPercentiles, p);
    lat.number("p50", p[0]);
    lat.number("p90", p[1]);
    lat.number("p99", p[2]);
    lat.number("max", t.wakeup_latency.max());
    lat.close();
    ObjectWriter gaps = tj.object("preempted_gaps");
    gaps.number("count", t.preempted_gaps);
    gaps.number("mean_ns", t.preempted_gaps
                               ? t.preempted_gap_total_ns / static_cast<Time>(t.preempted_gaps)
                               : 0);
    gaps.number("max_ns", t.preempted_gap_max_ns);
    gaps.close();
    tj.number("dl_jobs", t.dl_jobs);
    tj.number("deadline_misses", t.deadline_misses);
    tj.number("pid", t.pid);
    tj.number("tgid", t.tgid);
    tj.numbers("cpu_residency_ns", t.cpu_residency.dense(cpus));
    ObjectWriter delay = tj.object("sched_delay_ns");
    delay.number("count", t.delays);
    delay.number("mean", t.delays ? t.delay_total_ns / static_cast<Time>(t.delays) : 0);
    delay.number("max", t.delay_max_ns);
    delay.number("max_start", t.delay_max_start_ns);
    delay.number("max_end", t.delay_max_end_ns);
    delay.close();
    ObjectWriter timer = tj.object("timer");
    Time slack_min = 0, slack_sum = 0;
    for (size_t k = 0; k < t.activations.size(); ++k) {
      const Time s = t.activations[k].slack_ns;
      slack_min = k == 0 ? s : std::min(slack_min, s);
      slack_sum += s;
    }
    const auto n = static_cast<Time>(t.activations.size());
    timer.number("activations", t.activations.size());
    timer.number("missed_periods", t.missed_periods);
    timer.number("slack_min_ns", slack_min);
    timer.number("slack_mean_ns", n ? slack_sum / n : 0);
    timer.close();
    tj.close();
    text.text(i + 1 < tasks.size() ? ",\n" : "\n");
    text.flush();
    os << out;
  }
  os << "  ]";
}

}  // namespace

void write_metrics_json(std::ostream& os, const Metrics& m, const std::string& policy_note) {
  ordered_json j;
  j["policy"] = utf8_or_escaped(m.policy);
  if (!policy_note.empty()) j["policy_note"] = utf8_or_escaped(policy_note);
  j["seed"] = m.seed;
  j["cpus"] = m.cpus;
  j["duration_ns"] = m.duration_ns;
  j["time_origin_ns"] = m.origin_ns;
  j["tasks"] = kTasksPlaceholder;
  ordered_json cpus = ordered_json::array();
  for (const CpuMetrics& c : m.per_cpu)
    cpus.push_back(ordered_json{{"id", c.id},
                                {"busy_ns", c.busy_ns},
                                {"idle_ns", c.idle_ns},
                                {"idle_while_runnable_ns", c.idle_while_runnable_ns},
                                {"lost_events", c.lost_events},
                                {"lost_uncounted", c.lost_uncounted}});
  j["per_cpu"] = cpus;
  ordered_json marks = ordered_json::object();
  for (const auto& [name, mk] : m.marks) {
    const double seconds = static_cast<double>(m.duration_ns) / 1e9;
    ordered_json interval = ordered_json{{"count", mk.interval.count()},
                                         {"p50", mk.interval.percentile(0.50)},
                                         {"p95", mk.interval.percentile(0.95)},
                                         {"p99", mk.interval.percentile(0.99)},
                                         {"max", mk.interval.max()}};
    interval["percentiles"] = percentile_block(mk.interval);
    marks[utf8_or_escaped(name)] =
        ordered_json{{"count", mk.count},
                     {"per_second", seconds > 0 ? static_cast<double>(mk.count) / seconds : 0.0},
                     {"first_ns", mk.first_ns},
                     {"last_ns", mk.last_ns},
                     {"interval_ns", interval}};
  }
  j["marks"] = marks;
  uint64_t lost = 0;
  for (const CpuMetrics& c : m.per_cpu) lost += c.lost_events;
  j["summary"] = ordered_json{{"context_switches", m.context_switches},
                              {"recorded_switches", m.context_switches - m.inferred_switches},
                              {"inferred_switches", m.inferred_switches},
                              {"lost_events", lost},
                              {"wakeup_latency_ns", percentile_block(m.wakeup_latency)},
                              {"migrations", m.migrations},
                              {"jain_fairness", m.jain_fairness},
                              {"lock_holder_preemptions", m.lock_holder_preemptions},
                              {"events", m.events}};
  if (const ProgramFigure f = program_figure(m); !f.name.empty())
    j["program"] = ordered_json{{"name", utf8_or_escaped(f.name)}, {f.key, f.value}};
  // The tasks array, written directly (its tree would be most of the work and memory for
  // many tasks), where dump() put the placeholder.
  const std::string text = j.dump(2);
  const std::string placeholder = ordered_json(kTasksPlaceholder).dump();
  const size_t at = text.find(placeholder);
  os.write(text.data(), static_cast<std::streamsize>(at));
  write_tasks(os, m.tasks, m.cpus);
  os << std::string_view(text).substr(at + placeholder.size()) << '\n';
}

std::string metrics_json(const Metrics& m, const std::string& policy_note) {
  std::ostringstream os;
  write_metrics_json(os, m, policy_note);
  return std::move(os).str();
}

}  // namespace schedlab
