#include "sim/simulate.h"

#include <fmt/format.h>

#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {

EngineResult simulate(const Scenario& scenario, EventSink& sink, const SimulationOptions& options,
                      std::vector<std::string>* notes) {
  std::unique_ptr<SchedClass> policy = make_policy(scenario.policy, scenario.params, scenario.file);
  if (policy->handles_rt())  // BFS replaced every class below stop: no deadline class
    for (const TaskSpec& t : scenario.workload.tasks) {
      bool deadline = t.sched.policy == SchedPolicy::kDeadline;
      for (const Phase& p : t.phases)
        deadline |= p.sched && p.sched->policy == SchedPolicy::kDeadline;
      if (deadline)
        throw InputError(scenario.file, "tasks." + t.name + ".policy",
                         "SCHED_DEADLINE needs the kernel's deadline class, which '" +
                             scenario.policy + "' replaces (it schedules every policy itself)");
    }
  EngineOptions eo;
  eo.seed = scenario.seed;
  eo.check_invariants = options.check_invariants;
  eo.policy_name = scenario.policy;
  eo.end_ns = scenario.duration_ns.value_or(kDefaultRunLimitNs);
  Engine engine(scenario.machine, scenario.workload, std::move(policy), eo, sink);
  EngineResult result = engine.run();
  if (notes && !scenario.duration_ns && !result.all_exited)
    notes->push_back(
        fmt::format("no duration given and tasks still running: stopped at {} s of simulated time "
                    "(set global.duration or --duration)",
                    kDefaultRunLimitNs / kNsPerSec));
  return result;
}

}  // namespace schedlab
