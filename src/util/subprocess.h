// Running a helper program (gnuplot) with text on its stdin, collecting what it writes.
#pragma once

#include <string>
#include <vector>

namespace schedlab {

struct ProgramResult {
  bool started = false;  // false: not found or not executable (`error` says why)
  int exit_status = -1;  // the exit code, or 128 + signal
  std::string out, err;
  std::string error;
};

// Runs argv[0] (searched in PATH) with `input` as its stdin; waits for it to end.
ProgramResult run_program(const std::vector<std::string>& argv, const std::string& input);

}  // namespace schedlab
