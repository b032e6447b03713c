// Schedulers by name, with their parameters.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "policy/params.h"
#include "policy/sched_class.h"

namespace schedlab {

struct PolicyInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<SchedClass>(const ParamValues&)> make;
};

const std::vector<PolicyInfo>& policy_registry();

// Builds a policy, applying `params` in order; unknown names throw InputError.
std::unique_ptr<SchedClass> make_policy(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& params,
    const std::string& file);

}  // namespace schedlab
