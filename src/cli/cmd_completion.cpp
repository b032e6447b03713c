// `schedlab completion bash`: a bash completion script made from the command table itself
// (every command, its options, the scheduler names after --policy), so it cannot fall
// behind the commands. Installed as share/bash-completion/completions/schedlab.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "cli/command.h"
#include "policy/registry.h"

namespace schedlab {

namespace {

struct Node {
  std::string path;  // "", "/run", "/host/bench"
  std::vector<std::string> subcommands, options;
};

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); });
}

void walk(const CLI::App& app, const std::string& path, std::vector<Node>& out) {
  Node n;
  n.path = path;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) n.options.push_back("--" + l);
    for (const std::string& s : o->get_snames()) n.options.push_back("-" + s);
  }
  const std::vector<const CLI::App*> subs = subcommands_of(app);
  for (const CLI::App* s : subs) n.subcommands.push_back(s->get_name());
  out.push_back(n);
  for (const CLI::App* s : subs) walk(*s, path + "/" + s->get_name(), out);
}

std::string words(const std::vector<std::string>& w) {
  std::string s;
  for (const std::string& x : w) s += (s.empty() ? "" : " ") + x;
  return s;
}

std::string bash_script(const CLI::App& root) {
  std::vector<Node> nodes;
  walk(root, "", nodes);
  std::string paths, cases;
  for (const Node& n : nodes) {
    if (!n.path.empty()) paths += (paths.empty() ? "" : "|") + n.path;
    cases += fmt::format("    \"{}\") subs=\"{}\"; opts=\"{}\" ;;\n", n.path, words(n.subcommands),
                         words(n.options));
  }
  std::vector<std::string> policies;
  for (const PolicyInfo& p : policy_registry()) policies.push_back(p.name);
  return fmt::format(
      "# bash completion for schedlab, written by `schedlab completion bash`.\n"
      "_schedlab() {{\n"
      "  local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n"
      "  local path=\"\" subs=\"\" opts=\"\" i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"$path/${{COMP_WORDS[i]}}\" in\n"
      "      {}) path=\"$path/${{COMP_WORDS[i]}}\" ;;\n"
      "    esac\n"
      "  done\n"
      "  case \"$path\" in\n{}  esac\n"
      "  case \"$prev\" in\n"
      "    --policy|--policies)\n"
      "      COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n"
      "  esac\n"
      "  if [[ \"$cur\" == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "  elif [[ -n \"$subs\" ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
      "  else\n"
      "    compopt -o filenames 2>/dev/null\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}}\n"
      "complete -F _schedlab schedlab\n",
      paths, cases, words(policies));
}

}  // namespace

Command add_completion(CLI::App& parent) {
  CLI::App* cmd = parent.add_subcommand("completion", "print a shell completion script (bash)");
  auto shell = std::make_shared<std::string>();
  cmd->add_option("shell", *shell, "the shell: bash")->required()->check(CLI::IsMember({"bash"}));
  const CLI::App* root = &parent;
  // The lambda keeps `shell` alive: CLI11 writes the parsed value through the reference.
  return {cmd, [root, shell](std::ostream& out, std::ostream&) {
            out << bash_script(*root);
            return 0;
          }};
}

}  // namespace schedlab
