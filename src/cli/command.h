// A subcommand of `schedlab`: a registration function declares it on its parent (the
// application, or a group such as `host`) with its options, and returns the action to
// run once the command line parsed. cli.cpp holds the table of them and the one error
// handler; each subcommand is one file cmd_<name>.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>

namespace schedlab {

using Action = std::function<int(std::ostream& out, std::ostream& err)>;

struct Command {
  CLI::App* app = nullptr;
  Action action;
};

Command add_run(CLI::App& parent);
Command add_check(CLI::App& parent);
Command add_policies(CLI::App& parent);
Command add_generators(CLI::App& parent);
Command add_record(CLI::App& parent);
Command add_host_run(CLI::App& host);
Command add_host_bench(CLI::App& host);
Command add_compare(CLI::App& parent);
Command add_analyze(CLI::App& parent);
Command add_sweep(CLI::App& parent);
Command add_reproduce(CLI::App& parent);
Command add_merge(CLI::App& parent);
Command add_calibrate(CLI::App& parent);
Command add_validate(CLI::App& parent);
Command add_completion(CLI::App& parent);
Command add_extract(CLI::App& parent);
Command add_replay_check(CLI::App& parent);
Command add_record_workload(CLI::App& host);

}  // namespace schedlab
