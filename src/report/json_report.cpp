#include "report/json_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

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
  for (size_t i = 0; i < std::size(kPercentileBlock); ++i)
    j[fmt::format("p{}", kPercentileNames[i])] = s.percentile(kPercentileBlock[i]);
  j["max"] = s.max();
  return j;
}

// Stands for the tasks array in the tree; no task name can produce it (it is not a name).
constexpr const char* kTasksPlaceholder = "\x01tasks\x01";

// nlohmann's dump(2) layout, for the members of one object at `indent` spaces: each
// member on its own line, `"key": value`, separated by commas.
class ObjectWriter {
 public:
  ObjectWriter(std::string& out, int indent) : out_(out), indent_(indent) { out_ += "{\n"; }
  template <typename T>
  void number(const char* key, T value) {
    open(key);
    fmt::format_to(std::back_inserter(out_), "{}", value);
  }
  void raw(const char* key, const std::string& text) {
    open(key);
    out_ += text;
  }
  ObjectWriter object(const char* key) {
    open(key);
    return ObjectWriter(out_, indent_ + 2);
  }
  template <typename T>
  void numbers(const char* key, const std::vector<T>& values) {
    open(key);
    if (values.empty()) {
      out_ += "[]";
      return;
    }
    out_ += "[\n";
    for (size_t i = 0; i < values.size(); ++i) {
      out_.append(static_cast<size_t>(indent_ + 4), ' ');
      fmt::format_to(std::back_inserter(out_), "{}", values[i]);
      out_ += i + 1 < values.size() ? ",\n" : "\n";
    }
    out_.append(static_cast<size_t>(indent_ + 2), ' ');
    out_ += ']';
  }
  void close() {
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_), ' ');
    out_ += '}';
  }

 private:
  void open(const char* key) {
    out_ += first_ ? "" : ",\n";
    first_ = false;
    out_.append(static_cast<size_t>(indent_ + 2), ' ');
    out_ += '"';
    out_ += key;
    out_ += "\": ";
  }
  std::string& out_;
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
    out.append(4, ' ');
    ObjectWriter tj(out, 4);
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
    lat.number("p50", t.wakeup_latency.percentile(0.50));
    lat.number("p90", t.wakeup_latency.percentile(0.90));
    lat.number("p99", t.wakeup_latency.percentile(0.99));
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
    out += i + 1 < tasks.size() ? ",\n" : "\n";
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
