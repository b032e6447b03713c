#include "cli/usage.h"

#include <algorithm>

#include "util/closest_word.h"

namespace schedlab {

namespace {

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// "host run": a command as typed after the program name.
std::string command_path(const CLI::App& app, const std::string& name) {
  return app.get_parent() ? command_path(*app.get_parent(), app.get_name() + " " + name) : name;
}

// The help of `app` with its usage line naming the whole command ("schedlab host").
std::string usage_of(const CLI::App& app) {
  std::string prev;
  for (const CLI::App* p = app.get_parent(); p; p = p->get_parent())
    prev = prev.empty() ? p->get_name() : p->get_name() + " " + prev;
  return app.help(prev);
}

}  // namespace

std::optional<UsageProblem> command_problem(const CLI::App& app,
                                            const std::vector<std::string>& args) {
  const CLI::App* at = &app;
  bool value_next = false;
  for (const std::string& word : args) {
    if (word == "--") break;
    if (value_next) {  // the value of a top-level option (--max-input 1G), not a command
      value_next = false;
      continue;
    }
    if (!word.empty() && word[0] == '-') {
      if (at != &app) break;  // a group's options: CLI11 says what is wrong with them
      // the top level's own options (--help, --version, --max-input BYTES)
      const CLI::Option* option = app.get_option_no_throw(word);
      value_next = option && option->get_items_expected_min() > 0;
      continue;
    }
    const std::vector<std::string> names = command_names(*at);
    if (names.empty()) return std::nullopt;  // a command: the rest are its arguments
    const auto it = std::find(names.begin(), names.end(), word);
    if (it == names.end()) {
      std::string message = "unknown command '" + command_path(*at, word) + "'";
      if (const auto guess = closest_word(word, names))
        message += " (did you mean " + command_path(*at, *guess) + "?)";
      return UsageProblem{message, usage_of(*at)};
    }
    at = at->get_subcommand(word);
  }
  if (!command_names(*at).empty()) {
    bool asked_for_help = false;
    for (const std::string& w : args)
      asked_for_help |= w == "--help" || w == "-h" || w == "--help-all" || w == "--version";
    if (asked_for_help) return std::nullopt;
    return UsageProblem{
        at == &app ? "no command given"
                   : "'" + command_path(*at->get_parent(), at->get_name()) + "' needs a command",
        usage_of(*at)};
  }
  return std::nullopt;
}

}  // namespace schedlab
