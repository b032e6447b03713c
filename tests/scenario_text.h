// A scenario's text from a CPU count (1000 Hz) and the tasks' JSON, for tests that write
// small scenarios inline.
#pragma once

#include <string>

namespace schedlab::test {

// Built by appending: GCC 12 warns falsely on a string literal + std::string here.
inline std::string scenario(int cpus, const std::string& tasks) {
  std::string s = R"({"machine": {"cpus": )";
  s += std::to_string(cpus);
  s += R"(, "hz": 1000}, )";
  s += tasks;
  return s;
}

}  // namespace schedlab::test
