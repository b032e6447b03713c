// The host runner's LWLock and InnoDB rw-lock (host_runner.cpp, the rules of sim/lwlock.h
// and sim/innodb_rw_lock.h on real threads): exclusive holds never overlap any other hold,
// shared holds may, and every waiter is woken in the end (the run completes every loop).
#include <gtest/gtest.h>

#include <algorithm>

#include "host/host_runner.h"
#include "lock_holds.h"
#include "temp_dir.h"

namespace schedlab {
namespace {

// Runs `json` on the host, whose tasks mark "in_x" or "in_s" as they take the lock and
// "out" before they release it; expects `holds` holds and returns how many pairs of them
// overlapped with one of the two exclusive.
int exclusive_overlaps(const char* json, size_t expected_holds) {
  const test::TempDir dir;
  HostRunOptions o;
  o.cache_dir = dir.path().string();
  o.duration_ns = 20 * kNsPerSec;  // a bound only: the run ends when its loops do
  const HostRunResult r = run_on_host(scenario_from_text(json, "s.json"), o);
  EXPECT_FALSE(r.timed_out);
  const auto& names = r.record.mark_names;
  auto index = [&](const char* n) {
    return static_cast<int32_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  test::LockHolds holds(index("in_x"), index("in_s"), index("out"));
  for (const HostEvent& e : r.record.events)
    if (e.type == EventType::kMark) holds.mark(e.tid, e.arg, e.time_ns);
  EXPECT_EQ(holds.size(), expected_holds);
  return holds.exclusive_overlaps();
}

TEST(HostLwLock, ExclusiveHoldsNeverOverlapAndEveryLoopCompletes) {
  EXPECT_EQ(exclusive_overlaps(R"({"tasks": {
      "x": {"instance": 2, "loop": 200, "lwlock_acquire": "L", "mark": "in_x", "run": 20,
            "mark1": "out", "lwlock_release": "L"},
      "s": {"instance": 3, "loop": 200, "lwlock_acquire": {"ref": "L", "mode": "shared"},
            "mark": "in_s", "run": 20, "mark1": "out", "lwlock_release": "L"}}})",
                               5u * 200u),
            0);
}

// The same with InnoDB's rw-lock: spins, yields, event waits and the WAIT_EX reservation
// all on real threads.
TEST(HostInnodbRwLock, ExclusiveHoldsNeverOverlapAndEveryLoopCompletes) {
  EXPECT_EQ(exclusive_overlaps(R"({"tasks": {
      "x": {"instance": 2, "loop": 200, "innodb_rw_lock": "L", "mark": "in_x", "run": 20,
            "mark1": "out", "innodb_rw_unlock": "L"},
      "s": {"instance": 3, "loop": 200, "innodb_rw_lock": {"ref": "L", "mode": "shared"},
            "mark": "in_s", "run": 20, "mark1": "out", "innodb_rw_unlock": "L"}}})",
                               5u * 200u),
            0);
}

}  // namespace
}  // namespace schedlab
