// Help for a command line that went wrong before any command ran: no command at all,
// or a word that names none ("schedlab rnu": did you mean run?).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

// When `args` name no command of `app` (or of a group such as `host`): the message to
// print before the usage of the command the words reached, and that command's app.
struct UsageProblem {
  std::string message;
  std::string usage;  // the help of the command reached, naming the program
};
std::optional<UsageProblem> command_problem(const CLI::App& app,
                                            const std::vector<std::string>& args);

}  // namespace schedlab
