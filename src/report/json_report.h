// The --json output: a stable schema documented in the README.
#pragma once

#include <ostream>
#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

// `policy_note`: why the policy was chosen, when the scenario did not say ("policy_note",
// after "policy"; absent otherwise).
std::string metrics_json(const Metrics& m, const std::string& policy_note = "");
// The same text written to `os` as it is made (no copy of the whole in memory).
void write_metrics_json(std::ostream& os, const Metrics& m, const std::string& policy_note = "");

}  // namespace schedlab
