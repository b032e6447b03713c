// `schedlab host run`: a scenario's programs run for real while the kernel is recorded,
// measured by the same analyzer as a simulation.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace schedlab {

struct HostRunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  double duration_s = 0;
  bool json = false, recalibrate = false;
  std::string trace, keep_trace, tracefs_dir;
  int buffer_kb = 8192;
};

int command_host_run(const HostRunArgs& a, std::ostream& out, std::ostream& err);

struct HostBenchOptions;
struct HostBenchArgs {
  std::string counts = "1..8", out, plot;
};
// `schedlab host bench`: the real program over counts and repeats, tabulated like a sweep.
int command_host_bench(const HostBenchOptions& o, const HostBenchArgs& a, std::ostream& out,
                       std::ostream& err);

// `schedlab compare`: the same scenario on the host (recorded) and simulated with the
// model of the running kernel on this machine's topology, metric by metric.
int command_compare(const HostRunArgs& a, const std::string& policy, std::ostream& out,
                    std::ostream& err);

}  // namespace schedlab
