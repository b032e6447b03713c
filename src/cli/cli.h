// The schedlab command line. main() only forwards here, so tests drive the real CLI.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace schedlab {

// Returns the exit code: 0 success, 2 bad input or a workload that cannot run,
// 3 a broken invariant (a bug in a policy or the engine).
int cli_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace schedlab
