// The command line: a table of subcommands, one parse, and the one place where errors
// become a line on stderr and an exit code.
#include "cli/cli.h"

#include <fmt/format.h>

#include <map>

#include "cli/command.h"
#include "cli/usage.h"
#include "cli/version.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/limits.h"

namespace schedlab {

namespace {

// In `schedlab --help` order; `group` is the parent command ("" for the top level).
struct Entry {
  const char* group;
  Command (*add)(CLI::App&);
};
constexpr Entry kCommands[] = {
    {"", add_run},
    {"", add_check},
    {"", add_policies},
    {"", add_generators},
    {"", add_record},
    {"host", add_host_run},
    {"host", add_host_bench},
    {"", add_compare},
    {"", add_analyze},
    {"", add_sweep},
    {"", add_reproduce},
    {"", add_merge},
    {"", add_calibrate},
    {"", add_validate},
    {"", add_completion},
    {"", add_extract},
    {"", add_replay_check},
    {"host", add_record_workload},
};

struct Group {
  const char* name;
  const char* description;
};
constexpr Group kGroups[] = {{"host", "run on this machine's kernel (root)"}};

// The parent of a group's commands, created on first use.
CLI::App& parent_of(CLI::App& app, std::map<std::string, CLI::App*>& groups,
                    const std::string& group) {
  if (group.empty()) return app;
  CLI::App*& parent = groups[group];
  for (const Group& g : kGroups)
    if (!parent && group == g.name) {
      parent = app.add_subcommand(g.name, g.description);
      parent->require_subcommand(1);
    }
  return *parent;
}

// Bad input and a workload that cannot run: one line naming the file, exit 2; a broken
// invariant or anything unexpected: exit 3.
int run_reporting_errors(const Action& action, std::ostream& out, std::ostream& err) {
  try {
    return action(out, err);
  } catch (const InputError& e) {
    err << "schedlab: " << e.what() << "\n";
    return 2;
  } catch (const WorkloadError& e) {
    err << "schedlab: " << (e.file().empty() ? "<input>" : e.file()) << ": " << e.what() << "\n";
    return 2;
  } catch (const InvariantError& e) {
    err << "schedlab: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    err << "schedlab: internal error: " << e.what() << "\n";
    return 3;
  }
}

// --max-input, an option of every command (it falls through from the subcommand).
void apply_max_input(const std::string& text) {
  uint64_t bytes = kDefaultMaxInputBytes;
  if (!text.empty() && (!parse_byte_count(text, bytes) || bytes == 0))
    throw InputError("", "--max-input " + text,
                     "expected a positive byte count such as 500000, 64M or 1G");
  set_max_input_bytes(bytes);
}

}  // namespace

int cli_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"schedlab: a laboratory for CPU schedulers", "schedlab"};
  app.require_subcommand(1);
  app.fallthrough();
  std::string max_input;
  app.add_option("--max-input", max_input,
                 fmt::format("largest input file read, in bytes; K, M, G suffixes (default {}M)",
                             kDefaultMaxInputBytes >> 20));
  app.set_version_flag("--version", version_text());
  app.set_help_all_flag("--help-all", "Print this help and every command's, then exit");
  std::map<std::string, CLI::App*> groups;
  std::vector<Command> commands;
  for (const Entry& e : kCommands) commands.push_back(e.add(parent_of(app, groups, e.group)));
  if (const auto problem = command_problem(app, args)) {
    err << "schedlab: " << problem->message << "\n\n" << problem->usage;
    return 2;
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "schedlab: " << e.what() << "\n";
    return 2;
  }
  for (const Command& c : commands)
    if (c.app->parsed())
      return run_reporting_errors(
          [&](std::ostream& o, std::ostream& e) {
            apply_max_input(max_input);
            return c.action(o, e);
          },
          out, err);
  return 0;
}

}  // namespace schedlab
