// The --json output: a stable schema documented in the README.
#pragma once

#include <ostream>
#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

std::string metrics_json(const Metrics& m);
// The same text written to `os` as it is made (no copy of the whole in memory).
void write_metrics_json(std::ostream& os, const Metrics& m);

}  // namespace schedlab
