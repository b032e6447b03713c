// What `make install` ships besides the binary: the bash completion (made from the
// command table), the man page (help2man at build time), and the data folders a copied
// or installed binary finds ($SCHEDLAB_DATA, ../share/schedlab).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "cli/cli.h"
#include "experiment/data_dirs.h"
#include "util/subprocess.h"

namespace schedlab {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string completion_script() {
  std::ostringstream out, err;
  EXPECT_EQ(cli_main({"completion", "bash"}, out, err), 0) << err.str();
  return out.str();
}

// What bash offers for the words typed so far (the last one being completed).
std::string complete(const std::string& script, const std::string& words) {
  const fs::path file = fs::temp_directory_path() / "schedlab-test-completion.bash";
  std::ofstream(file) << script;
  const std::string program = "source " + file.string() + "\nCOMP_WORDS=(" + words +
                              ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                              "_schedlab\necho \"${COMPREPLY[*]}\"\n";
  const ProgramResult r = run_program({"bash", "--norc", "--noprofile", "-s"}, program);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  return r.out.substr(0, r.out.find_last_not_of('\n') + 1);
}

TEST(Completion, OffersCommandsOptionsAndSchedulers) {
  const std::string s = completion_script();
  EXPECT_EQ(complete(s, "schedlab r"), "run record reproduce replay-check");
  EXPECT_EQ(complete(s, "schedlab ho"), "host");
  EXPECT_EQ(complete(s, "schedlab host b"), "bench");
  EXPECT_EQ(complete(s, "schedlab run x.json --polic"), "--policy");
  EXPECT_EQ(complete(s, "schedlab sweep x.json --pl"), "--plot");
  EXPECT_EQ(complete(s, "schedlab run x.json --policy eevdf-6."), "eevdf-6.6 eevdf-6.12");
  EXPECT_EQ(complete(s, "schedlab --vers"), "--version");
  std::ostringstream out, err;
  EXPECT_EQ(cli_main({"completion", "fish"}, out, err), 2);
}

// Built with the binary (CMakeLists.txt): the completion as the command prints it, and
// the man page with every command and the environment.
TEST(Completion, TheBuildWritesTheCompletionAndTheManPage) {
  EXPECT_EQ(read_file(SCHEDLAB_COMPLETION_FILE), completion_script());
  if (std::string(SCHEDLAB_MAN_PAGE).empty())
    GTEST_SKIP() << "help2man was not found at configure time (apt-get install help2man)";
  const std::string man = read_file(SCHEDLAB_MAN_PAGE);
  EXPECT_EQ(man.find(".TH SCHEDLAB \"1\""), man.find(".TH")) << man.substr(0, 300);
  for (const char* word : {"reproduce", "sweep", "\\-\\-set\\-new", "SCHEDLAB_DATA", "completion"})
    EXPECT_NE(man.find(word), std::string::npos) << word;
}

// The commands of --help-all, in its order, with the nested ones (`host run`) after
// their parent, as "schedlab run", "schedlab host run"...
std::vector<std::string> help_all_commands() {
  std::ostringstream out, err;
  EXPECT_EQ(cli_main({"--help-all"}, out, err), 0);
  std::istringstream lines(out.str());
  std::vector<std::string> commands;
  std::string line, parent;
  bool listing = false;
  while (std::getline(lines, line)) {
    const bool name =
        !line.empty() && line.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos;
    if (name) parent = line, commands.push_back("schedlab " + line);
    if (line == "  Subcommands:")
      listing = true;
    else if (listing && line.rfind("    ", 0) == 0 && line[4] != ' ')
      commands.push_back("schedlab " + parent + " " + line.substr(4, line.find(' ', 4) - 4));
    else
      listing = false;
  }
  return commands;
}

// Each command is a sub-section (.SS) of the section COMMANDS, in --help-all's order,
// and holds its own options: run's --trace-dat, host run's --keep-trace.
TEST(Completion, TheManPageHasAHeadingPerCommand) {
  if (std::string(SCHEDLAB_MAN_PAGE).empty())
    GTEST_SKIP() << "help2man was not found at configure time (apt-get install help2man)";
  const std::string man = read_file(SCHEDLAB_MAN_PAGE);
  const size_t section = man.find("\n.SH COMMANDS\n");
  const size_t next_section = man.find("\n.SH ", section + 1);
  ASSERT_NE(section, std::string::npos);
  const std::vector<std::string> commands = help_all_commands();
  EXPECT_GE(commands.size(), 19u);  // 16 commands and host's 3
  for (const char* c : {"schedlab run", "schedlab analyze", "schedlab host", "schedlab host run",
                        "schedlab host bench", "schedlab replay-check"})
    EXPECT_NE(std::find(commands.begin(), commands.end(), c), commands.end()) << c;
  size_t at = section;
  std::map<std::string, std::string> body;
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::string heading = "\n.SS \"" + commands[i] + "\"\n";
    const size_t found = man.find(heading);
    ASSERT_NE(found, std::string::npos) << heading;
    EXPECT_GT(found, at) << commands[i] << " out of order or outside COMMANDS";
    EXPECT_LT(found, next_section) << commands[i];
    at = found;
    const size_t end = man.find("\n.S", found + heading.size() - 1);
    body[commands[i]] = man.substr(found, end - found);
  }
  EXPECT_EQ(man.find("\n.SS \"", at + 1), std::string::npos) << "a heading for no command";
  EXPECT_NE(body["schedlab run"].find("\\-\\-trace\\-dat"), std::string::npos);
  EXPECT_NE(body["schedlab host run"].find("\\-\\-keep\\-trace"), std::string::npos);
  EXPECT_EQ(body["schedlab host"].find("\\-\\-keep\\-trace"), std::string::npos);
}

TEST(DataDirs, SchedlabDataNamesTheFolders) {
  const fs::path data = fs::temp_directory_path() / "schedlab-test-data";
  fs::remove_all(data);
  fs::create_directories(data / "scenarios");
  fs::create_directories(data / "experiments");
  std::ofstream(data / "scenarios" / "e1-x264-ultrafast.json") << "{}";
  unsetenv("SCHEDLAB_SCENARIOS");
  unsetenv("SCHEDLAB_EXPERIMENTS");
  setenv("SCHEDLAB_DATA", data.c_str(), 1);
  const std::string scenarios = default_scenarios_dir();
  const std::string experiments = default_experiments_dir(scenarios);
  setenv("SCHEDLAB_SCENARIOS", "/elsewhere/s", 1);
  const std::string overridden = default_scenarios_dir();
  unsetenv("SCHEDLAB_SCENARIOS");
  unsetenv("SCHEDLAB_DATA");
  EXPECT_EQ(scenarios, (data / "scenarios").string());
  EXPECT_EQ(experiments, (data / "experiments").string());
  EXPECT_EQ(overridden, "/elsewhere/s");
}

}  // namespace
}  // namespace schedlab
