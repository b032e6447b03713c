// The host runner's sem_wait with sleep_first (host_runner.cpp, the engine's step_sem_wait
// on real threads): a wait that cannot be served at once sleeps its sleep_first before it
// tries again, so it goes on no sooner than that, though the semaphore was posted long
// before.
#include <gtest/gtest.h>

#include <algorithm>

#include "host/host_runner.h"
#include "temp_dir.h"

namespace schedlab {
namespace {

// H holds G from its start for 20 ms; W comes 5 ms later, finds G taken and sleeps
// 100 ms once: it takes G at least 100 ms after H took it (80 ms after H let it go).
TEST(HostSemaphore, AWaitWithSleepFirstSleepsOnceBeforeTakingIt) {
  const test::TempDir dir;
  HostRunOptions o;
  o.cache_dir = dir.path().string();
  o.duration_ns = 20 * kNsPerSec;  // a bound only: the run ends when its loops do
  const char* json = R"({"tasks": {
      "H": {"loop": 1, "sem_post0": "G", "sem_wait": "G", "mark": "held", "sleep": 20000,
            "sem_post1": "G"},
      "W": {"loop": 1, "delay": 5000, "sem_wait": {"ref": "G", "sleep_first": 100000},
            "mark": "in", "sem_post": "G"}}})";
  const HostRunResult r = run_on_host(scenario_from_text(json, "s.json"), o);
  ASSERT_FALSE(r.timed_out);
  const auto& names = r.record.mark_names;
  auto index = [&](const char* n) {
    return static_cast<int32_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  Time held = -1, in = -1;
  for (const HostEvent& e : r.record.events) {
    if (e.type != EventType::kMark) continue;
    if (e.arg == index("held")) held = e.time_ns;
    if (e.arg == index("in")) in = e.time_ns;
  }
  ASSERT_GE(held, 0);
  ASSERT_GE(in, 0);
  EXPECT_GE(in - held, 100 * kNsPerMs);
}

}  // namespace
}  // namespace schedlab
