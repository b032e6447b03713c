// The --json output: a stable schema documented in the README.
#pragma once

#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

// `policy_note`: why the policy was chosen, when the scenario did not say ("policy_note",
// after "policy"; absent otherwise).
std::string metrics_json(const Metrics& m, const std::string& policy_note = "");

}  // namespace schedlab
