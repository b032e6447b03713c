// The --json output: a stable schema documented in the README.
#pragma once

#include <string>

#include "analysis/analyzer.h"

namespace schedlab {

std::string metrics_json(const Metrics& m);

}  // namespace schedlab
