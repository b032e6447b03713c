// `schedlab generators`: every workload generator with its parameters and defaults, as
// `schedlab policies` lists the schedulers.
#include "cli/command.h"
#include "workload/generators/generators.h"

namespace schedlab {

Command add_generators(CLI::App& parent) {
  CLI::App* cmd =
      parent.add_subcommand("generators", "list workload generators and their parameters");
  return {cmd, [](std::ostream& out, std::ostream&) {
            out << format_generator_list();
            return 0;
          }};
}

}  // namespace schedlab
