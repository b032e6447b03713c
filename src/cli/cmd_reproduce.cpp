// `schedlab reproduce E1|...|all`: the experiment files, as sweeps over the shipped
// scenarios.
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "experiment/reproduce.h"

namespace schedlab {

namespace {

int reproduce_command(ReproduceOptions o, std::ostream& out, std::ostream& err) {
  if (o.scenarios_dir.empty()) o.scenarios_dir = default_scenarios_dir();
  const std::string report = reproduce(o, out, progress_bar(err));
  out << "report: " << report << "\n";
  return 0;
}

}  // namespace

Command add_reproduce(CLI::App& parent) {
  auto o = std::make_shared<ReproduceOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "reproduce", "run the experiments of the experiments folder (E1.json ...) as sweeps");
  cmd->add_option("experiment", o->which, "an experiment file's name (E1 ... E5) or all")
      ->required();
  cmd->add_flag("--quick", o->quick, "one run per point, shorter runs (all: seconds)");
  cmd->add_option("--out", o->out_dir, "output folder (default schedlab-results)");
  cmd->add_option("--jobs", o->jobs, "parallel runs (default: every core)")
      ->transform(integer_in(1, 1024));
  cmd->add_option("--scenarios", o->scenarios_dir, "folder of the shipped scenarios");
  cmd->add_option("--formats", o->extra_formats,
                  "each plot also as png and/or pdf (comma-separated; SVG always)")
      ->delimiter(',')
      ->check(CLI::IsMember({"png", "pdf"}));
  cmd->add_option("--experiments", o->experiments_dir,
                  "folder of the experiment files (default: beside the scenarios)");
  return {cmd,
          [o](std::ostream& out, std::ostream& err) { return reproduce_command(*o, out, err); }};
}

}  // namespace schedlab
