// Replay fidelity, measured (docs/replay.md): a trace's workload is extracted, simulated
// under a model of the kernel that recorded it, and each task's figures are set beside
// the trace's own, as the same analyzer computes them on both sides.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "extract/extract.h"
#include "extract/program_span.h"
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

// The machine a replay runs on, and what the header says of it.
struct ReplayMachine {
  std::optional<Machine> machine;  // else `file`, else a flat machine of the trace's CPUs
  std::string file;                // a machine file, as the scenario's `machine`
  std::string which;               // "FILE", "this host's topology", "flat, 2 CPUs", ...
};

// The costs a recorded trace already holds inside a task's CPU time (the switch, the
// waker's IPI send, cache refills, co-run slowdown) or inside a sleep's observed length
// (timer overshoot) are taken out of this host's calibrated machine for replaying a trace
// recorded here, so that they are not paid twice; what the trace shows between a wake-up
// and the switch-in (the IPI's delay, idle exit, a timer's reschedule), the topology and
// HZ are kept. The calibrated background stands for the machine's other load: it is kept
// only when the workload leaves that load out (`everything_selected` false). Capacity is
// 1024 on every CPU: the recorded ns are work units of this host.
Machine replay_machine_of_this_host(Machine calibrated, bool everything_selected);

// A trace read once for replay-check: its workload and its own figures.
struct Recording {
  ExtractedWorkload workload;
  Metrics real;
  std::map<std::string, Span> spans;  // of measured_programs()
};
Recording read_recording(const std::string& trace, const ExtractOptions& options);

// The program's own throughput figures as it printed them (the output record-workload
// keeps beside the trace, TRACE.out): hackbench's "Time: S", x264's "encoded N frames,
// F fps" and tbench's (dbench's) "Throughput X MB/sec". Absent figures stay 0.
struct ProgramFigures {
  double hackbench_time_s = 0;
  int64_t x264_frames = 0;
  double x264_fps = 0;
  double tbench_mb_per_s = 0;
  bool any() const { return hackbench_time_s > 0 || x264_frames > 0 || tbench_mb_per_s > 0; }
  // The program of measured_programs() the figures are of.
  std::string program() const;
};
ProgramFigures program_figures(const std::string& output);

struct ReplayCheck {
  std::string policy, machine;  // the policy; which machine (ReplayMachine::which)
  int cpus = 0;
  Time real_duration_ns = 0, sim_duration_ns = 0;
  std::vector<ReplayRow> rows;  // the extracted tasks, in the extraction's order
  ExtractedWorkload workload;
  std::string scenario;  // the extracted scenario's text
  ProgramFigures program;
  std::string program_output;  // the file the figures come from
  // The program's span (ProgramSpans) recorded and replayed, when the figures name one.
  Span real_span, sim_span;
  std::map<std::string, Span> real_spans, sim_spans;  // of measured_programs()
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
// The same from a recording read once.
ReplayCheck replay_check(const Recording& r, const std::string& trace, const std::string& policy,
                         const ReplayMachine& machine);

// Reads TRACE.out (when there is one) into c.program.
void read_program_output(const std::string& trace, ReplayCheck& c);

// Figures of a simulated run of an extracted workload, by the extraction's task order.
std::vector<ReplaySide> replay_figures(const ExtractedWorkload& w, const Metrics& sim);

void print_replay_check(const ReplayCheck& c, std::ostream& out);

}  // namespace schedlab
