// Runs the command line in-process and keeps its exit code and output, for the tests of
// the subcommands.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace schedlab::test {

struct CliResult {
  int code;
  std::string out, err;
};

inline CliResult cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli_main(args, out, err);
  return {code, out.str(), err.str()};
}

// `text` written to `name` in the temporary folder; its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace schedlab::test
