// Schedulers by name, with their parameters.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "policy/class_stack.h"
#include "policy/params.h"
#include "policy/sched_class.h"

namespace schedlab {

struct PolicyInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<SchedClass>(const ParamValues&)> make;
  // The class replaced every class of the kernel (BFS): it is the whole stack, with no
  // deadline or RT class above it. Otherwise it is the normal class below those two.
  bool replaces_every_class = false;
};

const std::vector<PolicyInfo>& policy_registry();

// Builds a policy's class, applying `params` in order; unknown names throw InputError.
std::unique_ptr<SchedClass> make_policy(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& params,
    const std::string& file);

// The class stack of a run under the policy: {deadline, rt, the policy's class}, or the
// policy's class alone when it replaced every class.
ClassStack make_stack(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& params,
                      const std::string& file);

}  // namespace schedlab
