// The figure a seed program prints, where the workload came from a generator that models
// it: tbench's "Throughput N MB/sec" (dbench 4.0's dbench.c: the ReadX and WriteX data of
// every client, child->bytes, / 1e6 per second; docs/workloads/tbench.md) and
// hackbench's "Time: N.NNN" (seconds until the last message was received).
#pragma once

#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

struct ProgramFigure {
  std::string name;  // "" when the workload models no such program
  std::string key;   // the --json key: "throughput_mb_per_s", "time_s"
  double value = 0;
  std::string line;  // as the program prints it
};

ProgramFigure program_figure(const Metrics& m);

}  // namespace schedlab
