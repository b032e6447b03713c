// Where the shipped data is found: the scenarios (with the machines beside them, which
// scenarios name as ../machines/...) and the experiment files. A copied or installed
// binary finds them without being told, and a user can point elsewhere.
#pragma once

#include <string>

namespace schedlab {

// The folder of the shipped scenarios: $SCHEDLAB_SCENARIOS, else $SCHEDLAB_DATA/scenarios,
// else beside the executable (../share/schedlab/scenarios when installed, ../scenarios
// from build/, ./scenarios), else ./scenarios.
std::string default_scenarios_dir();

// The folder of the experiment files: $SCHEDLAB_EXPERIMENTS, else `experiments` beside
// the scenarios folder, else $SCHEDLAB_DATA/experiments or beside the executable as
// above, else ./experiments.
std::string default_experiments_dir(const std::string& scenarios_dir);

}  // namespace schedlab
