// The scheduling classes of a run, highest first: the list the kernel's for_each_class
// walks (DEFINE_SCHED_CLASS places deadline, rt, fair and idle in that order). The usual
// list is {deadline, rt, <normal policy>}; a scheduler that replaced every class (BFS)
// is the whole list by itself. A task belongs to the first class that takes its policy.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "policy/sched_class.h"

namespace schedlab {

struct ClassStack {
  std::vector<std::unique_ptr<SchedClass>> classes;  // highest first
  // Why no class takes a policy, for the one-line error naming the task; whoever builds
  // the list may say it better than the generic reason.
  std::function<std::string(SchedPolicy)> refusal;

  // The first class that takes `p`, or nullptr when none does.
  SchedClass* class_for(SchedPolicy p) const {
    for (const auto& c : classes)
      if (c->takes(p)) return c.get();
    return nullptr;
  }
  std::string why_refused(SchedPolicy p) const {
    if (refusal) return refusal(p);
    return std::string("no scheduling class of this scheduler takes ") + policy_name(p);
  }
};

}  // namespace schedlab
