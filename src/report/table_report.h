// The human-readable summary of one run.
#pragma once

#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

std::string metrics_table(const Metrics& m);

// schbench's latency percentile block for one set of samples.
std::string percentile_block(const std::string& title, const LatencyStats& s);

}  // namespace schedlab
