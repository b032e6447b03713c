// The scenario reader on any text: parse, the rt-app and schedlab sections, generators,
// machine, scheduler and its parameters (what `schedlab check` does).
#include "fuzz_common.h"
#include "policy/registry.h"
#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedlab::fuzz::expecting_input_errors([&] {
    const schedlab::Scenario s =
        schedlab::scenario_from_text(schedlab::fuzz::text_of(data, size), "fuzz.json");
    schedlab::make_policy(s.policy, s.params, s.file);
  });
  return 0;
}
