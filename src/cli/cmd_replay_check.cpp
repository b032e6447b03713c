// `schedlab replay-check TRACE`: extract a trace's workload, replay it under the model of
// the kernel that recorded it, and print per-task sim/real figures (docs/replay.md).
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "extract/replay_check.h"
#include "host/calibration.h"
#include "host/host_machine.h"
#include "host/user_dirs.h"
#include "json/jtree.h"
#include "machine/machine.h"
#include "util/input_file.h"

namespace schedlab {

namespace {

struct ReplayCheckArgs {
  std::string trace_file, policy, machine;
  std::vector<std::string> comms, dl;
  std::vector<int64_t> pids;
  bool exact = false, host = false, softirq = false;
};

// This host's calibrated machine (the file `schedlab calibrate` caches, as compare reads
// it) when the trace was recorded here, with the costs the trace already holds taken out
// (replay_machine_of_this_host). An ftrace text names no host: a trace is taken to be
// this host's when its CPU count is this host's and the calibration's.
ReplayMachine default_machine(int trace_cpus, bool everything_selected) {
  ReplayMachine m;
  const int here = host_machine().cpus;
  std::string why;
  const std::string path = cached_machine_path(&why);
  const std::optional<std::string> text =
      path.empty() ? std::nullopt : read_cache_file(path, max_input_bytes());
  if (text && trace_cpus == here) {
    const Machine calibrated = read_machine(parse_json(*text, path), JsonReader(path),
                                            std::filesystem::path(path).parent_path().string(), 1);
    if (calibrated.cpus == here) {
      m.machine = replay_machine_of_this_host(calibrated, everything_selected);
      m.which = fmt::format(
          "{} (this host's calibration; the switch, send, refill, co-run and timer overshoot "
          "costs left out, as the trace holds them{})",
          path, everything_selected ? "; no background: the trace's other tasks are replayed" : "");
      return m;
    }
  }
  m.which = fmt::format(
      "a flat machine of the trace's {} CPUs, no costs ({})", trace_cpus,
      trace_cpus != here ? fmt::format("this host has {} CPUs: recorded elsewhere", here)
      : !text            ? std::string("no calibration of this host: run `schedlab calibrate`")
                         : std::string("the calibration is for another CPU count"));
  return m;
}

int replay_check_cmd(const ReplayCheckArgs& a, std::ostream& out, std::ostream& err) {
  ExtractOptions o;
  o.comm_patterns = a.comms;
  o.pids = a.pids;
  o.exact = a.exact;
  o.softirq_wakers = a.softirq;
  for (const std::string& d : a.dl) o.dl.push_back(parse_dl_option(d));
  const std::string release = host_kernel_release();
  const std::string policy = a.policy.empty() ? model_for_kernel(release) : a.policy;
  const Recording r = read_recording(a.trace_file, o);
  ReplayMachine machine;
  if (!a.machine.empty()) {
    machine.file = a.machine;
    machine.which = a.machine + " (as given)";
  } else if (a.host) {
    machine.machine = host_machine();
    machine.which = "this host's topology and HZ, no costs (--host)";
  } else {
    machine = default_machine(r.workload.cpus, a.comms.empty() && a.pids.empty());
  }
  ReplayCheck c = replay_check(r, a.trace_file, policy, machine);
  read_program_output(a.trace_file, c);
  for (const std::string& n : c.workload.notes) err << "schedlab: note: " << n << "\n";
  out << a.trace_file << ": ";
  if (a.policy.empty())
    c.policy += fmt::format(" (the model of the running kernel, Linux {})", release);
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
  cmd->add_option(
      "--machine", a->machine,
      "machine file (default: this host's calibrated machine for a trace recorded here, "
      "else a flat machine of the trace's CPU count)");
  cmd->add_flag("--host", a->host, "simulate this machine's topology (host_machine)");
  cmd->add_option("--comm", a->comms, "select threads by name pattern (as extract)");
  cmd->add_option("--pid", a->pids, "select a thread or thread group (as extract)");
  cmd->add_flag("--exact", a->exact, "no loops");
  cmd->add_flag("--softirq-wakers", a->softirq, "as extract");
  cmd->add_option("--dl", a->dl, "NAME_OR_PID=RUNTIME:DEADLINE:PERIOD (us), as extract");
  return {cmd,
          [a](std::ostream& out, std::ostream& err) { return replay_check_cmd(*a, out, err); }};
}

}  // namespace schedlab
