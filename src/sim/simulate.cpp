#include "sim/simulate.h"

#include <fmt/format.h>

#include <optional>

#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {

EngineResult simulate(const Scenario& scenario, EventSink& sink, const SimulationOptions& options,
                      std::vector<std::string>* notes) {
  ClassStack classes = make_stack(scenario.policy, scenario.params, scenario.file);
  EngineOptions eo;
  eo.seed = scenario.seed;
  eo.check_invariants = options.check_invariants;
  eo.max_live_tasks = options.max_live_tasks;
  eo.policy_name = scenario.policy;
  eo.generator = scenario.generator;
  eo.end_ns = scenario.duration_ns.value_or(kDefaultRunLimitNs);
  std::optional<Engine> engine;
  try {  // a task whose policy no class takes; name the file here
    engine.emplace(scenario.machine, scenario.workload, std::move(classes), eo, sink);
  } catch (const InputError& e) {
    if (!e.file().empty()) throw;
    throw InputError(scenario.file, e.key(), e.reason());
  }
  EngineResult result = engine->run();
  if (notes && !scenario.duration_ns && !result.all_exited)
    notes->push_back(
        fmt::format("no duration given and tasks still running: stopped at {} s of simulated time "
                    "(set global.duration or --duration)",
                    kDefaultRunLimitNs / kNsPerSec));
  return result;
}

}  // namespace schedlab
