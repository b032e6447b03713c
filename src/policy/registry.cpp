#include "policy/registry.h"

#include <fmt/format.h>

#include "policy/deadline/deadline.h"
#include "policy/rt/rt.h"
#include "util/error.h"

namespace schedlab {

// Every scheduler family, one line each, in the order `schedlab policies` lists them.
// Each family's file defines `std::vector<PolicyInfo> FAMILY_policies()`.
#define SCHEDLAB_POLICY_FAMILIES(X) \
  X(rr)                             \
  X(cfs23)                          \
  X(cfs)                            \
  X(eevdf)                          \
  X(bfs)                            \
  X(o1)                             \
  X(sd)

#define SCHEDLAB_DECLARE_FAMILY_(family) std::vector<PolicyInfo> family##_policies();
SCHEDLAB_POLICY_FAMILIES(SCHEDLAB_DECLARE_FAMILY_)

const std::vector<PolicyInfo>& policy_registry() {
  static const std::vector<PolicyInfo> registry = [] {
    std::vector<PolicyInfo> all;
    auto add = [&all](std::vector<PolicyInfo> family) {
      for (PolicyInfo& info : family) all.push_back(std::move(info));
    };
#define SCHEDLAB_ADD_FAMILY_(family) add(family##_policies());
    SCHEDLAB_POLICY_FAMILIES(SCHEDLAB_ADD_FAMILY_)
    return all;
  }();
  return registry;
}

namespace {

const PolicyInfo* find_policy(const std::string& name) {
  for (const PolicyInfo& info : policy_registry())
    if (info.name == name) return &info;
  return nullptr;
}

// The classes above the normal one, highest first (the kernel's stop class has no tasks
// here, and its idle class is a CPU with no current task).
struct UpperClass {
  const char* name;
  std::unique_ptr<SchedClass> (*make)(const PolicyInfo& below);
};
const UpperClass kUpperClasses[] = {
    {"deadline",
     [](const PolicyInfo& below) {
       return std::unique_ptr<SchedClass>(
           std::make_unique<DlClass>(DlClass::Rules{.push_lone = below.dl_push_lone}));
     }},
    {"rt",
     [](const PolicyInfo&) { return std::unique_ptr<SchedClass>(std::make_unique<RtClass>()); }},
};

// Policies that no mainline class takes, and where they come from.
const char* origin_of(SchedPolicy p) {
  return p == SchedPolicy::kIso ? "the -ck kernels' schedulers" : nullptr;
}

// Why no class of `info`'s stack takes `p`.
std::string refusal(const PolicyInfo& info, SchedPolicy p) {
  if (info.replaces_every_class)
    for (const UpperClass& upper : kUpperClasses)
      if (upper.make(info)->takes(p))
        return fmt::format(
            "{} needs the kernel's {} class, which '{}' replaces (it schedules every policy "
            "itself)",
            policy_name(p), upper.name, info.name);
  std::string taker;  // the first registered policy whose class takes it
  for (const PolicyInfo& other : policy_registry())
    if (other.make({}, "")->takes(p)) {
      taker = other.name;
      break;
    }
  if (const char* origin = origin_of(p); origin && !taker.empty())
    return fmt::format("{} exists only in {} ({} here), not in '{}'", policy_name(p), origin, taker,
                       info.name);
  return fmt::format("no class of '{}' takes {}{}", info.name, policy_name(p),
                     taker.empty() ? "" : " ('" + taker + "' does)");
}

}  // namespace

std::unique_ptr<SchedClass> make_policy(const std::string& name, const ParamList& params,
                                        const std::string& file) {
  if (const PolicyInfo* found = find_policy(name)) {
    try {
      return found->make(params, file);
    } catch (const InputError& e) {  // a policy checks combinations; name the file here
      if (!e.file().empty()) throw;
      throw InputError(file, e.key(), e.reason());
    }
  }
  std::string known;
  for (const PolicyInfo& info : policy_registry()) known += (known.empty() ? "" : ", ") + info.name;
  throw InputError(file, "policy", "unknown policy '" + name + "' (known: " + known + ")");
}

ClassStack make_stack(const std::string& name, const ParamList& params, const std::string& file) {
  std::unique_ptr<SchedClass> policy = make_policy(name, params, file);
  const PolicyInfo& info = *find_policy(name);
  ClassStack stack;
  if (!info.replaces_every_class)
    for (const UpperClass& upper : kUpperClasses) stack.classes.push_back(upper.make(info));
  stack.classes.push_back(std::move(policy));
  stack.refusal = [&info](SchedPolicy p) { return refusal(info, p); };
  return stack;
}

}  // namespace schedlab
