// `--set /pointer=value` on a fixed scenario: each line of the input is one --set, as the
// command line splits it (at the first '=').
#include <sstream>

#include "fuzz_common.h"
#include "scenario/scenario.h"

namespace {

const char* kBase = R"({"machine": {"cpus": 2}, "global": {"duration": 1},
  "scheduler": {"policy": "rr"},
  "tasks": {"a": {"loop": 3, "run": 1000, "sleep": 500, "cpus": [0, 1]},
            "b": {"instance": 2, "phases": {"p": {"loop": 2, "run": 200, "lock": "m",
                  "unlock": "m"}}}}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedlab::ScenarioOverrides o;
  std::istringstream lines(schedlab::fuzz::text_of(data, size));
  for (std::string line; std::getline(lines, line) && o.sets.size() < 16;) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;  // the CLI refuses these before
    o.sets.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  schedlab::fuzz::expecting_input_errors(
      [&] { schedlab::scenario_from_text(kBase, "base.json", o); });
  return 0;
}
