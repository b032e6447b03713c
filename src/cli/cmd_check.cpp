// `schedlab check`: validate a scenario (and its policy and parameters) without running it.
#include <fmt/format.h>

#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "policy/registry.h"

namespace schedlab {

namespace {

int check(const ScenarioArgs& a, const CLI::App& cmd, std::ostream& out, std::ostream& err) {
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
