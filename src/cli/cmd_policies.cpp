// `schedlab policies`: every registered scheduler with its parameters and defaults.
#include <fmt/format.h>

#include "cli/command.h"
#include "policy/registry.h"

namespace schedlab {

namespace {

int list_policies(std::ostream& out) {
  for (const PolicyInfo& p : policy_registry()) {
    out << fmt::format("{:<14} {}\n", p.name, p.description);
    for (const ParamSpec& s : p.params)
      out << fmt::format("    {:<34} {:>12}  {}{}\n", s.name, s.default_value,
                         s.is_bool ? "(0/1) " : "", s.description);
  }
  return 0;
}

}  // namespace

Command add_policies(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand("policies", "list schedulers and their parameters");
  return {cmd, [](std::ostream& out, std::ostream&) { return list_policies(out); }};
}

}  // namespace schedlab
