#include "report/run_report.h"

#include <fmt/format.h>

#include "report/xml_escape.h"

namespace schedlab {

namespace {

std::string ms(Time ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6);
}
std::string us(Time ns) {
  return fmt::format("{:.1f}", static_cast<double>(ns) / 1e3);
}

std::string row(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string r = "<tr>";
  for (const std::string& c : cells) r += fmt::format("<{0}>{1}</{0}>", tag, xml_escape(c));
  return r + "</tr>\n";
}

std::string task_table(const Metrics& m) {
  std::string t =
      "<table><thead>" +
      row({"task", "tid", "CPU ms", "wait ms", "sleep ms", "voluntary switches",
           "involuntary switches", "migrations", "wake-up latency p50 µs", "p99 µs", "max µs"},
          "th") +
      "</thead><tbody>\n";
  for (const TaskMetrics& k : m.tasks)
    t += row({k.name, std::to_string(k.tid), ms(k.cpu_time_ns), ms(k.wait_time_ns),
              ms(k.sleep_time_ns), std::to_string(k.switches_voluntary),
              std::to_string(k.switches_involuntary), std::to_string(k.migrations),
              us(k.wakeup_latency.percentile(0.5)), us(k.wakeup_latency.percentile(0.99)),
              us(k.wakeup_latency.max())});
  return t + "</tbody></table>\n";
}

std::string cpu_table(const Metrics& m) {
  std::string t = "<table><thead>" +
                  row({"CPU", "busy ms", "idle ms", "idle while runnable ms"}, "th") +
                  "</thead><tbody>\n";
  for (const CpuMetrics& c : m.per_cpu)
    t += row({std::to_string(c.id), ms(c.busy_ns), ms(c.idle_ns), ms(c.idle_while_runnable_ns)});
  return t + "</tbody></table>\n";
}

std::string mark_table(const Metrics& m) {
  const double seconds = static_cast<double>(m.duration_ns) / 1e9;
  std::string t = "<table><thead>" + row({"mark", "count", "per second", "first ms"}, "th") +
                  "</thead><tbody>\n";
  for (const auto& [name, mk] : m.marks)
    t += row({name, std::to_string(mk.count),
              fmt::format("{:.2f}", seconds > 0 ? static_cast<double>(mk.count) / seconds : 0.0),
              mk.first_ns >= 0 ? ms(mk.first_ns) : "-"});
  return t + "</tbody></table>\n";
}

}  // namespace

std::string run_report_html(const Metrics& m, const RunReport& r) {
  std::string h = html_head("schedlab run " + r.scenario_file);
  h += fmt::format(
      "<p>schedlab {}: {} simulated for {} s under <b>{}</b> on {} CPUs, seed {}; {} context "
      "switches, {} migrations, Jain's fairness index {:.4f}.</p>\n",
      xml_escape(r.version), xml_escape(r.scenario_file),
      fmt::format("{:.3f}", static_cast<double>(m.duration_ns) / 1e9), xml_escape(m.policy), m.cpus,
      m.seed, m.context_switches, m.migrations, m.jain_fairness);
  if (!r.policy_note.empty()) h += "<p>Policy: " + xml_escape(r.policy_note) + ".</p>\n";
  for (const std::string& n : r.notes) h += "<p>Note: " + xml_escape(n) + "</p>\n";
  h += "<h2>Timeline</h2>\n" + figure_html(r.timeline);
  h += "<h2>Tasks</h2>\n" + task_table(m);
  h += "<h2>CPUs</h2>\n" + cpu_table(m);
  if (!m.marks.empty()) h += "<h2>Marks</h2>\n" + mark_table(m);
  h += "<details><summary>The scenario as run</summary>\n<pre>" + xml_escape(r.scenario_text) +
       "</pre></details>\n</body></html>\n";
  return h;
}

}  // namespace schedlab
