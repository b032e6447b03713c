// `schedlab compare`: the same scenario on the host (recorded) and simulated with the
// model of the running kernel on the model of this machine (the calibrated machine file,
// else its topology alone; it says which), metric by metric. Both sides are measured by
// the same analyzer.
#include <fmt/format.h>

#include <memory>

#include "analysis/analyzer.h"
#include "cli/command.h"
#include "cli/options.h"
#include "host/calibration.h"
#include "host/host_machine.h"
#include "host/host_session.h"
#include "host/tracefs.h"
#include "sim/simulate.h"
#include "util/error.h"

namespace schedlab {

namespace {

struct CompareArgs {
  HostScenarioArgs scenario;
  HostSessionOptions session;
  std::string policy;
  std::string machine;  // --machine; empty: the cached calibration, else the topology
};

std::string ratio(double sim, double real) {
  if (real == 0) return sim == 0 ? "1.00" : "-";
  return fmt::format("{:.2f}", sim / real);
}

class CompareTable {
 public:
  explicit CompareTable(std::ostream& out) : out_(out) {
    out_ << fmt::format("{:<16} {:<18} {:>12} {:>12} {:>7}\n", "task", "metric", "real", "sim",
                        "sim/real");
  }
  void row(const std::string& who, const std::string& what, double real, double sim) {
    out_ << fmt::format("{:<16} {:<18} {:>12.3f} {:>12.3f} {:>7}\n", who, what, real, sim,
                        ratio(sim, real));
  }
  // CPU and wait time, switches and wake-up latency of a task on both sides.
  void task(const TaskMetrics& r, const TaskMetrics& s) {
    auto ms = [](Time ns) { return static_cast<double>(ns) / 1e6; };
    auto us = [](Time ns) { return static_cast<double>(ns) / 1e3; };
    row(r.name, "cpu ms", ms(r.cpu_time_ns), ms(s.cpu_time_ns));
    row(r.name, "wait ms", ms(r.wait_time_ns), ms(s.wait_time_ns));
    row(r.name, "switches", static_cast<double>(r.switches_voluntary + r.switches_involuntary),
        static_cast<double>(s.switches_voluntary + s.switches_involuntary));
    row(r.name, "latency p50 us", us(r.wakeup_latency.percentile(0.5)),
        us(s.wakeup_latency.percentile(0.5)));
    row(r.name, "latency p99 us", us(r.wakeup_latency.percentile(0.99)),
        us(s.wakeup_latency.percentile(0.99)));
  }

 private:
  std::ostream& out_;
};

void print_comparison(const Metrics& real, const Metrics& sim, std::ostream& out) {
  CompareTable table(out);
  for (const TaskMetrics& rt : real.tasks)
    for (const TaskMetrics& st : sim.tasks)
      if (st.name == rt.name) {
        table.task(rt, st);
        break;
      }
  const double real_s = static_cast<double>(real.duration_ns) / 1e9;
  const double sim_s = static_cast<double>(sim.duration_ns) / 1e9;
  for (const auto& [name, mk] : real.marks) {
    const auto it = sim.marks.find(name);
    const double s =
        it == sim.marks.end() || sim_s == 0 ? 0 : static_cast<double>(it->second.count) / sim_s;
    table.row("mark " + name, "per second", real_s > 0 ? static_cast<double>(mk.count) / real_s : 0,
              s);
  }
  table.row("run", "duration s", real_s, sim_s);
  table.row("run", "migrations", static_cast<double>(real.migrations),
            static_cast<double>(sim.migrations));
}

int compare(const CompareArgs& a, std::ostream& out, std::ostream& err) {
  Scenario scenario = load_host_scenario(a.scenario);
  std::string which;  // read before the real run: a bad --machine file fails at once
  const Machine machine = model_of_this_machine(a.machine, &which);
  Analyzer real;
  const HostSessionResult r = run_recorded(scenario, a.session, real);
  for (const std::string& n : r.notes) err << "schedlab: note: " << n << "\n";
  if (r.interrupted) return StopSignals::exit_status();
  scenario.machine = machine;
  scenario.policy = a.policy.empty() ? model_for_kernel(host_kernel_release()) : a.policy;
  scenario.params.clear();
  if (!scenario.duration_ns) scenario.duration_ns = real.metrics().duration_ns;
  Analyzer sim;
  in_scenario(scenario.file, [&] { return simulate(scenario, sim, SimulationOptions{}); });
  out << fmt::format("{} on {} ({} CPUs) against {} simulated on the model of this machine\n",
                     a.scenario.scenario, real.metrics().policy, real.metrics().cpus,
                     scenario.policy);
  out << "machine: " << which << "\n\n";
  print_comparison(real.metrics(), sim.metrics(), out);
  return 0;
}

}  // namespace

Command add_compare(CLI::App& parent) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "compare", "run a scenario on the host (recorded) and in the simulator, side by side (root)");
  add_host_scenario_options(*cmd, a->scenario);
  cmd->add_option("--duration", a->scenario.duration_s,
                  "seconds (default global.duration, else 10)")
      ->check(seconds_in(kMaxDurationSeconds));
  cmd->add_option("--policy", a->policy,
                  "simulated scheduler (default: the model of the running kernel)");
  cmd->add_flag("--recalibrate", a->session.recalibrate, "measure the busy loop again");
  add_max_threads_option(*cmd, a->session);
  cmd->add_option("--machine", a->machine,
                  "machine file to simulate on (default: the one `schedlab calibrate` cached)");
  return {cmd, [a](std::ostream& out, std::ostream& err) { return compare(*a, out, err); }};
}

}  // namespace schedlab
