#include "report/json_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

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

ordered_json timer_json(const TaskMetrics& t) {
  Time slack_min = 0, slack_sum = 0;
  for (size_t i = 0; i < t.activations.size(); ++i) {
    const Time s = t.activations[i].slack_ns;
    slack_min = i == 0 ? s : std::min(slack_min, s);
    slack_sum += s;
  }
  const auto n = static_cast<Time>(t.activations.size());
  return ordered_json{{"activations", t.activations.size()},
                      {"missed_periods", t.missed_periods},
                      {"slack_min_ns", slack_min},
                      {"slack_mean_ns", n ? slack_sum / n : 0}};
}

}  // namespace

std::string metrics_json(const Metrics& m) {
  ordered_json j;
  j["policy"] = utf8_or_escaped(m.policy);
  j["seed"] = m.seed;
  j["cpus"] = m.cpus;
  j["duration_ns"] = m.duration_ns;
  j["time_origin_ns"] = m.origin_ns;
  ordered_json tasks = ordered_json::array();
  for (const TaskMetrics& t : m.tasks) {
    ordered_json tj;
    tj["name"] = utf8_or_escaped(t.name);
    tj["tid"] = t.tid;
    tj["cpu_time_ns"] = t.cpu_time_ns;
    tj["wait_time_ns"] = t.wait_time_ns;
    tj["sleep_time_ns"] = t.sleep_time_ns;
    tj["switches_voluntary"] = t.switches_voluntary;
    tj["switches_involuntary"] = t.switches_involuntary;
    tj["migrations"] = t.migrations;
    ordered_json lat;
    lat["count"] = t.wakeup_latency.count();
    lat["p50"] = t.wakeup_latency.percentile(0.50);
    lat["p90"] = t.wakeup_latency.percentile(0.90);
    lat["p99"] = t.wakeup_latency.percentile(0.99);
    lat["max"] = t.wakeup_latency.max();
    tj["wakeup_latency_ns"] = lat;
    tj["preempted_gaps"] = ordered_json{
        {"count", t.preempted_gaps},
        {"mean_ns",
         t.preempted_gaps ? t.preempted_gap_total_ns / static_cast<Time>(t.preempted_gaps) : 0},
        {"max_ns", t.preempted_gap_max_ns}};
    tj["dl_jobs"] = t.dl_jobs;
    tj["deadline_misses"] = t.deadline_misses;
    tj["pid"] = t.pid;
    tj["tgid"] = t.tgid;
    tj["cpu_residency_ns"] = t.cpu_residency_ns;
    tj["sched_delay_ns"] =
        ordered_json{{"count", t.delays},
                     {"mean", t.delays ? t.delay_total_ns / static_cast<Time>(t.delays) : 0},
                     {"max", t.delay_max_ns},
                     {"max_start", t.delay_max_start_ns},
                     {"max_end", t.delay_max_end_ns}};
    tj["timer"] = timer_json(t);
    tasks.push_back(tj);
  }
  j["tasks"] = tasks;
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
  return j.dump(2) + "\n";
}

}  // namespace schedlab
