// `schedlab check`: validate a scenario (and its policy and parameters) without running it,
// or a machine file.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "json/jtree.h"
#include "machine/machine.h"
#include "policy/registry.h"

namespace schedlab {

namespace {

// A file with neither tasks nor a workload generator is a machine file (machines/*.json,
// what calibrate writes): read it as a scenario's "machine" would be.
bool check_machine_file(const std::string& path, std::ostream& out) {
  const JValue v = parse_json_file(path);
  if (!v.is_object() || v.find("tasks") || v.find("workload")) return false;
  const Machine m =
      read_machine(v, JsonReader(path), std::filesystem::path(path).parent_path().string(), 1);
  size_t noise = 0;
  for (const BackgroundSource& b : m.background) noise += b.rate_hz > 0;
  out << fmt::format(
      "{}: ok: machine {}, {} CPUs, HZ {}, context switch {} ns, wake-up IPI {} ns, {} idle "
      "states, {} background sources\n",
      path, m.name, m.cpus, m.hz, m.context_switch_ns, m.costs.wakeup_ipi_ns, m.idle_states.size(),
      noise);
  return true;
}

int check(const ScenarioArgs& a, const CLI::App& cmd, std::ostream& out, std::ostream& err) {
  if (check_machine_file(a.scenario, out)) return 0;
  const Scenario s = load_scenario(a.scenario, overrides_of(a, cmd));
  make_policy(s.policy, s.params, s.file);  // unknown policy or parameter is an error too
  for (const std::string& n : s.notes) err << "schedlab: note: " << n << "\n";
  if (!s.policy_note.empty()) err << "schedlab: note: " << s.policy_note << "\n";
  size_t threads = 0;
  for (const TaskSpec& t : s.workload.tasks) threads += static_cast<size_t>(t.instances);
  out << fmt::format("{}: ok: {} task specs ({} threads at start), {} CPUs, HZ {}, policy {}",
                     s.file, s.workload.tasks.size(), threads, s.machine.cpus, s.machine.hz,
                     s.policy);
  if (s.leniency.comments || s.leniency.trailing_commas)
    out << fmt::format("; tolerated {} comments and {} trailing commas", s.leniency.comments,
                       s.leniency.trailing_commas);
  out << "\n";
  return 0;
}

}  // namespace

Command add_check(CLI::App& parent) {
  auto a = std::make_shared<ScenarioArgs>();
  CLI::App* cmd = parent.add_subcommand("check", "validate a scenario without running it");
  add_scenario_options(*cmd, *a);
  return {cmd,
          [a, cmd](std::ostream& out, std::ostream& err) { return check(*a, *cmd, out, err); }};
}

}  // namespace schedlab
