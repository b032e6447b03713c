// Schedulers by name, with their parameters. A scheduler family registers itself with one
// line in registry.cpp; its presets come from declare_policy() over its declared
// parameters (params/declared.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "params/declared.h"
#include "policy/class_stack.h"
#include "policy/sched_class.h"

namespace schedlab {

// name=value pairs, in the order given (a later one wins).
using ParamList = std::vector<std::pair<std::string, std::string>>;

struct PolicyInfo {
  std::string name;
  std::string description;
  // What the policy offers: name, type, default (as text), release and effect.
  std::vector<params::Row> params;
  // The policy's class with `values` applied to its defaults; a bad name, value or
  // combination throws InputError (naming `file` and the parameter).
  std::function<std::unique_ptr<SchedClass>(const ParamList& values, const std::string& file)> make;
  // The class replaced every class of the kernel (BFS): it is the whole stack, with no
  // deadline or RT class above it. Otherwise it is the normal class below those two.
  bool replaces_every_class = false;
  // The kernel's deadline class above it pushes a lone queued task (Linux 6.7 on; see
  // DlClass::Rules).
  bool dl_push_lone = false;
};

// A policy whose parameters are the fields of `table` with `defaults` (a preset: a row
// of defaults); `make` builds its class from the values set.
template <class P>
PolicyInfo declare_policy(std::string name, std::string description, params::Table<P> table,
                          P defaults, std::function<std::unique_ptr<SchedClass>(const P&)> make,
                          bool replaces_every_class = false) {
  PolicyInfo info;
  info.name = name;
  info.description = std::move(description);
  info.params = table.rows(defaults);
  info.replaces_every_class = replaces_every_class;
  info.make = [name, table = std::move(table), defaults = std::move(defaults),
               make = std::move(make)](const ParamList& values, const std::string& file) {
    P p = defaults;
    const params::Target at{file, "", "policy '" + name + "'"};
    for (const auto& [k, v] : values) table.set_text(p, k, v, at);
    return make(p);
  };
  return info;
}

const std::vector<PolicyInfo>& policy_registry();

// Builds a policy's class, applying `params` in order; unknown names throw InputError.
std::unique_ptr<SchedClass> make_policy(const std::string& name, const ParamList& params,
                                        const std::string& file);

// The class stack of a run under the policy: {deadline, rt, the policy's class}, or the
// policy's class alone when it replaced every class.
ClassStack make_stack(const std::string& name, const ParamList& params, const std::string& file);

}  // namespace schedlab
