// A short simulation of a fuzzed scenario with the invariant checker on: at most 8 CPUs,
// 64 threads at the start, 1000 alive at once and 20 ms of simulated time, so that one
// input stays well inside libFuzzer's time limit. A broken invariant (InvariantError) is
// a finding, not an answer.
#include "analysis/analyzer.h"
#include "fuzz_common.h"
#include "scenario/scenario.h"
#include "sim/simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  schedlab::fuzz::expecting_input_errors([&] {
    schedlab::ScenarioOverrides o;
    o.duration_s = 0.02;
    const schedlab::Scenario s =
        schedlab::scenario_from_text(schedlab::fuzz::text_of(data, size), "fuzz.json", o);
    if (s.machine.cpus > 8) return;
    int threads = 0;
    for (const schedlab::TaskSpec& t : s.workload.tasks) threads += t.instances;
    if (threads > 64) return;
    schedlab::Analyzer analyzer;
    schedlab::SimulationOptions options;
    options.check_invariants = true;
    options.max_live_tasks = 1000;
    schedlab::simulate(s, analyzer, options);
  });
  return 0;
}
