// One simulated run of a scenario: builds the policy and the engine, streams the
// events to the given sink.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"
#include "scenario/scenario.h"
#include "sim/engine.h"

namespace schedlab {

// When a scenario names no duration, a run stops here if tasks are still alive.
inline constexpr Time kDefaultRunLimitNs = 10 * kNsPerSec;

struct SimulationOptions {
  bool check_invariants = false;
  int max_live_tasks = kDefaultMaxLiveTasks;  // --max-tasks
};

// Throws InputError for what the scenario asks and the simulator cannot do,
// WorkloadError when the workload deadlocks, InvariantError on a broken rule.
// `notes` receives remarks for the user (for example the default run limit).
EngineResult simulate(const Scenario& scenario, EventSink& sink, const SimulationOptions& options,
                      std::vector<std::string>* notes = nullptr);

}  // namespace schedlab
