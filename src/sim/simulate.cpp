#include "sim/simulate.h"

#include <fmt/format.h>

#include "policy/registry.h"
#include "util/error.h"

namespace schedlab {

EngineResult simulate(const Scenario& scenario, EventSink& sink, const SimulationOptions& options,
                      std::vector<std::string>* notes) {
  std::unique_ptr<SchedClass> policy = make_policy(scenario.policy, scenario.params, scenario.file);
  // BFS replaced every class below stop, so it has no deadline class; SCHED_ISO exists
  // only in the -ck schedulers.
  auto check = [&](const TaskSpec& t, SchedPolicy p) {
    const std::string key = "tasks." + t.name + ".policy";
    if (p == SchedPolicy::kDeadline && policy->handles_rt())
      throw InputError(scenario.file, key,
                       "SCHED_DEADLINE needs the kernel's deadline class, which '" +
                           scenario.policy + "' replaces (it schedules every policy itself)");
    if (p == SchedPolicy::kIso && !policy->supports_iso())
      throw InputError(scenario.file, key,
                       "SCHED_ISO exists only in the -ck kernels' schedulers (bfs here), not in '" +
                           scenario.policy + "'");
  };
  for (const TaskSpec& t : scenario.workload.tasks) {
    check(t, t.sched.policy);
    for (const Phase& p : t.phases)
      if (p.sched) check(t, p.sched->policy);
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
