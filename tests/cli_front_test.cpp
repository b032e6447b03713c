// The front of the command line: --version, usage for no command or a misspelt one,
// `schedlab generators`, and --set edits that would add a task by mistake.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "cli_harness.h"
#include "util/closest_word.h"
#include "workload/generators/generators.h"

namespace schedlab {
namespace {

using test::cli;
using test::CliResult;
using test::write_temp;

TEST(CliFront, VersionNamesTheReleaseAndTheCommit) {
  const CliResult r = cli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind(std::string("schedlab ") + SCHEDLAB_VERSION_STRING + " (git ", 0), 0u)
      << r.out;
  // Built from this checkout: 12 hex digits of the commit, perhaps "-dirty", or
  // "unknown" outside git.
  const auto git = r.out.find("(git ") + 5;
  const std::string commit = r.out.substr(git, r.out.find(')') - git);
  EXPECT_TRUE(commit == "unknown" || commit.find_first_not_of("0123456789abcdef") >= 12) << commit;
}

TEST(CliFront, AMisspeltCommandSuggestsTheClosest) {
  const CliResult r = cli({"rnu", "x.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "schedlab: unknown command 'rnu' (did you mean run?)");
  EXPECT_NE(r.err.find("Usage: schedlab [OPTIONS] SUBCOMMAND"), std::string::npos) << r.err;
  EXPECT_EQ(cli({"polices"})
                .err.rfind("schedlab: unknown command 'polices' (did you mean policies?)\n", 0),
            0u);
  EXPECT_EQ(cli({"host", "rnu"}).err.substr(0, 61),
            "schedlab: unknown command 'host rnu' (did you mean host run?)");
  // Nothing close: no guess.
  EXPECT_EQ(cli({"frobnicate"}).err.rfind("schedlab: unknown command 'frobnicate'\n\n", 0), 0u);
}

TEST(CliFront, NoCommandPrintsTheUsageNamingTheProgram) {
  const CliResult r = cli({});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("schedlab: no command given\n\n", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("Usage: schedlab [OPTIONS] SUBCOMMAND"), std::string::npos) << r.err;
  for (const char* command : {"run", "sweep", "reproduce", "generators", "host"})
    EXPECT_NE(r.err.find("\n  " + std::string(command) + " "), std::string::npos) << command;
  const CliResult host = cli({"host"});
  EXPECT_EQ(host.code, 2);
  EXPECT_EQ(host.err.rfind("schedlab: 'host' needs a command\n\n", 0), 0u) << host.err;
  EXPECT_NE(host.err.find("Usage: schedlab host [OPTIONS] SUBCOMMAND"), std::string::npos)
      << host.err;
  EXPECT_EQ(cli({"--help"}).code, 0);
  EXPECT_EQ(cli({"run", "--help"}).out.rfind("a laboratory", 0), std::string::npos);
}

TEST(CliFront, ClosestWordByEditDistance) {
  const std::vector<std::string> names = {"run", "check", "policies", "sweep"};
  EXPECT_EQ(closest_word("rnu", names), "run");     // a swap
  EXPECT_EQ(closest_word("chek", names), "check");  // a deletion
  EXPECT_EQ(closest_word("sweeep", names), "sweep");
  EXPECT_EQ(closest_word("xyz", names), std::nullopt);
  EXPECT_EQ(closest_word("reproduce", names), std::nullopt);
}

TEST(CliFront, GeneratorsListsEveryGeneratorAndParameterWithItsDefault) {
  const CliResult r = cli({"generators"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, format_generator_list());
  std::istringstream lines(r.out);
  std::vector<std::string> text;
  for (std::string l; std::getline(lines, l);) text.push_back(l);
  size_t at = 0;
  ASSERT_FALSE(generator_registry().empty());
  for (const GeneratorInfo& g : generator_registry()) {
    ASSERT_LT(at, text.size());
    EXPECT_EQ(text[at].rfind(g.name + " ", 0), 0u) << text[at];
    EXPECT_NE(text[at].find(g.description), std::string::npos) << text[at];
    ++at;
    ASSERT_FALSE(g.params.empty()) << g.name;
    for (const params::Row& p : g.params) {
      ASSERT_LT(at, text.size());
      std::istringstream words(text[at++]);
      std::string name, value;
      words >> name >> value;
      EXPECT_EQ(name, p.name) << g.name;
      EXPECT_EQ(value, p.value.empty() ? value : p.value.substr(0, p.value.find(' ')))
          << g.name << "." << p.name;
    }
  }
  EXPECT_EQ(at, text.size());
}

// A typo in a --set pointer under /tasks/ would add a task that runs beside the others.
TEST(CliFront, SetRefusesAPointerNamingNoTaskUnlessSetNew) {
  const std::string f = write_temp("cli_front_set.json", R"({"machine": {"cpus": 1},
      "global": {"duration": 1}, "tasks": {"hog": {"loop": 1, "run": 1000}}})");
  const CliResult typo = cli({"check", f, "--set", "/tasks/hgo/run=5000"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_EQ(typo.err, "schedlab: " + f +
                          ": --set /tasks/hgo/run: no task 'hgo' in the file (did you mean hog?); "
                          "--set-new adds a task\n");
  EXPECT_EQ(cli({"run", f, "--set", "/tasks/hog/run=5000"}).code, 0);
  const CliResult added = cli({"run", f, "--policy", "rr", "--json", "--set-new",
                               R"(/tasks/hgo={"loop": 1, "run": 2000})"});
  ASSERT_EQ(added.code, 0) << added.err;
  EXPECT_NE(added.out.find("\"name\": \"hgo\""), std::string::npos) << added.out;
  // --set-new comes first, so --set may then edit the task it added; escapes are undone.
  EXPECT_EQ(cli({"check", f, "--set-new", "/tasks/a~1b/run=1", "--set", "/tasks/a~1b/loop=1"}).code,
            0);
  const CliResult sweep = cli({"sweep", f, "--policy", "rr", "--vary", "/tasks/hgo/run=1,2"});
  EXPECT_EQ(sweep.code, 2);
  EXPECT_NE(sweep.err.find("no task 'hgo'"), std::string::npos) << sweep.err;
}

}  // namespace
}  // namespace schedlab
