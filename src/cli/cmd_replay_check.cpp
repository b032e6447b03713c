// `schedlab replay-check TRACE`: extract a trace's workload, replay it under the model of
// the kernel that recorded it, and print per-task sim/real figures (docs/replay.md).
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/command.h"
#include "extract/replay_check.h"
#include "host/host_machine.h"
#include "machine/machine.h"

namespace schedlab {

namespace {

struct ReplayCheckArgs {
  std::string trace_file, policy, machine;
  std::vector<std::string> comms;
  std::vector<int64_t> pids;
  bool exact = false, host = false, softirq = false;
};

int replay_check_cmd(const ReplayCheckArgs& a, std::ostream& out, std::ostream& err) {
  ExtractOptions o;
  o.comm_patterns = a.comms;
  o.pids = a.pids;
  o.exact = a.exact;
  o.softirq_wakers = a.softirq;
  const std::string policy = a.policy.empty() ? model_for_kernel(host_kernel_release()) : a.policy;
  std::optional<Machine> machine;
  if (a.host) machine = host_machine();
  const ReplayCheck c = replay_check(a.trace_file, o, policy, machine, a.machine);
  for (const std::string& n : c.workload.notes) err << "schedlab: note: " << n << "\n";
  out << a.trace_file << ": ";
  print_replay_check(c, out);
  return 0;
}

}  // namespace

Command add_replay_check(CLI::App& parent) {
  auto a = std::make_shared<ReplayCheckArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "replay-check",
      "extract a trace's workload, replay it under the recording kernel's model, compare");
  cmd->add_option("trace_file", a->trace_file, "a trace analyze reads")->required();
  cmd->add_option("--policy", a->policy,
                  "simulated scheduler (default: the model of the running kernel)");
  cmd->add_option("--machine", a->machine,
                  "machine file (default: a flat machine of the trace's CPU count)");
  cmd->add_flag("--host", a->host, "simulate this machine's topology (host_machine)");
  cmd->add_option("--comm", a->comms, "select threads by name pattern (as extract)");
  cmd->add_option("--pid", a->pids, "select a thread or thread group (as extract)");
  cmd->add_flag("--exact", a->exact, "no loops");
  cmd->add_flag("--softirq-wakers", a->softirq, "as extract");
  return {cmd,
          [a](std::ostream& out, std::ostream& err) { return replay_check_cmd(*a, out, err); }};
}

}  // namespace schedlab
