// Replay fidelity, measured (docs/replay.md): a trace's workload is extracted, simulated
// under a model of the kernel that recorded it, and each task's figures are set beside
// the trace's own, as the same analyzer computes them on both sides.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "extract/extract.h"
#include "machine/machine.h"

namespace schedlab {

struct ReplaySide {
  Time cpu_ns = 0;
  uint64_t voluntary = 0, involuntary = 0;
  Time wake_p50_ns = 0, wake_p99_ns = 0;
};

struct ReplayRow {
  std::string name;
  ReplaySide real, sim;
};

struct ReplayCheck {
  std::string policy;
  int cpus = 0;
  Time real_duration_ns = 0, sim_duration_ns = 0;
  std::vector<ReplayRow> rows;  // the extracted tasks, in the extraction's order
  ExtractedWorkload workload;
  std::string scenario;  // the extracted scenario's text
};

// The name the simulator gives an extracted task: a forked template's first instance is
// "name-0" (the engine numbers forked instances).
std::string replayed_name(const XTask& t);

// Extracts `trace`, replays it under `policy` on `machine` (else the machine file
// `machine_file` names, else the extracted file's flat machine of the trace's CPU count)
// and compares.
ReplayCheck replay_check(const std::string& trace, const ExtractOptions& options,
                         const std::string& policy, const std::optional<Machine>& machine,
                         const std::string& machine_file = "");

// Figures of a simulated run of an extracted workload, by the extraction's task order.
std::vector<ReplaySide> replay_figures(const ExtractedWorkload& w, const Metrics& sim);

void print_replay_check(const ReplayCheck& c, std::ostream& out);

}  // namespace schedlab
