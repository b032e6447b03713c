// `schedlab policies`: every registered scheduler with its parameters: name, default, the
// release it comes from, and its effect.
#include <fmt/format.h>

#include <algorithm>

#include "cli/command.h"
#include "policy/registry.h"

namespace schedlab {

namespace {

int list_policies(std::ostream& out) {
  size_t width = 0;  // the longest name, so that the descriptions line up
  for (const PolicyInfo& p : policy_registry()) width = std::max(width, p.name.size());
  for (const PolicyInfo& p : policy_registry()) {
    out << fmt::format("{:<{}} {}\n", p.name, width, p.description);
    for (const params::Row& s : p.params)
      out << fmt::format("    {:<34} {:>12}  {:<16} {}{}\n", s.name, s.value, s.since,
                         s.type == "bool" ? "(0/1) " : "", s.effect);
  }
  return 0;
}

}  // namespace

Command add_policies(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand("policies", "list schedulers and their parameters");
  return {cmd, [](std::ostream& out, std::ostream&) { return list_policies(out); }};
}

}  // namespace schedlab
