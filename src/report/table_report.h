// The human-readable summary of one run.
#pragma once

#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

std::string metrics_table(const Metrics& m);

}  // namespace schedlab
