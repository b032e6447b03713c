#include "report/json_report.h"

#include <nlohmann/json.hpp>

#include "report/json_text.h"

namespace schedlab {

std::string metrics_json(const Metrics& m) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["policy"] = utf8_or_escaped(m.policy);
  j["seed"] = m.seed;
  j["cpus"] = m.cpus;
  j["duration_ns"] = m.duration_ns;
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
    tasks.push_back(tj);
  }
  j["tasks"] = tasks;
  ordered_json cpus = ordered_json::array();
  for (const CpuMetrics& c : m.per_cpu)
    cpus.push_back(ordered_json{{"id", c.id},
                                {"busy_ns", c.busy_ns},
                                {"idle_ns", c.idle_ns},
                                {"idle_while_runnable_ns", c.idle_while_runnable_ns}});
  j["per_cpu"] = cpus;
  ordered_json marks = ordered_json::object();
  for (const auto& [name, mk] : m.marks) {
    const double seconds = static_cast<double>(m.duration_ns) / 1e9;
    marks[utf8_or_escaped(name)] =
        ordered_json{{"count", mk.count},
                     {"per_second", seconds > 0 ? static_cast<double>(mk.count) / seconds : 0.0},
                     {"first_ns", mk.first_ns},
                     {"last_ns", mk.last_ns},
                     {"interval_ns", ordered_json{{"count", mk.interval.count()},
                                                  {"p50", mk.interval.percentile(0.50)},
                                                  {"p95", mk.interval.percentile(0.95)},
                                                  {"p99", mk.interval.percentile(0.99)},
                                                  {"max", mk.interval.max()}}}};
  }
  j["marks"] = marks;
  j["summary"] = ordered_json{{"context_switches", m.context_switches},
                              {"migrations", m.migrations},
                              {"jain_fairness", m.jain_fairness},
                              {"lock_holder_preemptions", m.lock_holder_preemptions},
                              {"events", m.events}};
  return j.dump(2) + "\n";
}

}  // namespace schedlab
