// The human-readable summary of one run.
#pragma once

#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

// `policy_note`: why the policy was chosen, when the scenario did not say (a line under
// the header).
std::string metrics_table(const Metrics& m, const std::string& policy_note = "");

// schbench's latency percentile block for one set of samples.
std::string percentile_block(const std::string& title, const LatencyStats& s);

}  // namespace schedlab
