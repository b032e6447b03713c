// Machines past the old 256-CPU limit: a 1,024-CPU machine (SMT pairs, caches of 16,
// packages of 256) under every registered policy with the invariant checker on, on a
// random workload with pinned tasks, affinity changes, real-time and niced tasks; and a
// 4,096-CPU machine accepted and run briefly.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness.h"
#include "policy/registry.h"
#include "util/rng.h"

namespace schedlab::test {
namespace {

std::string groups_of(int cpus, int size) {
  std::string g;
  for (int first = 0; first < cpus; first += size) {
    g += g.empty() ? "[" : ", [";
    for (int c = first; c < first + size; ++c) g += (c == first ? "" : ", ") + std::to_string(c);
    g += "]";
  }
  return g;
}

std::string random_cpus(Rng& rng, int cpus, int count) {
  std::string list;
  for (int i = 0; i < count; ++i)
    list += (i ? ", " : "") + std::to_string(rng.below(static_cast<uint64_t>(cpus)));
  return "[" + list + "]";
}

std::string large_scenario(int cpus, uint64_t seed) {
  Rng rng(seed);
  std::string json = fmt::format(
      R"({{"machine": {{"cpus": {0}, "topology": {{"smt": [{1}], "llc": [{2}], "packages": [{3}]}}}},
      "global": {{"duration": 1}}, "tasks": {{
      "hog": {{"instance": {4}, "loop": -1, "run": 20000}},
      "sleeper": {{"instance": {4}, "loop": -1, "run": 150, "sleep": 900}},
      "fifo": {{"policy": "SCHED_FIFO", "priority": 10, "loop": -1, "run": 300, "sleep": 2000}},
      "niced": {{"priority": 5, "instance": 8, "loop": -1, "run": 3000, "sleep": 500}},)",
      cpus, groups_of(cpus, 2), groups_of(cpus, 16), groups_of(cpus, 256), cpus / 4 + 13);
  for (int i = 0; i < 24; ++i)
    json += fmt::format(R"("pinned{}": {{"cpus": {}, "loop": -1, "run": {}, "sleep": {}}},)", i,
                        random_cpus(rng, cpus, 1 + static_cast<int>(rng.below(3))),
                        100 + rng.below(2000), 100 + rng.below(2000));
  for (int i = 0; i < 8; ++i)
    json += fmt::format(
        R"("mover{}": {{"phases": {{"a": {{"cpus": {}, "loop": 3, "run": 400, "sleep": 300}},
        "b": {{"cpus": {}, "loop": 3, "run": 400, "sleep": 300}}}}}},)",
        i, random_cpus(rng, cpus, 2), random_cpus(rng, cpus, 4));
  json += R"("last": {"loop": -1, "run": 500, "sleep": 500}}})";
  return json;
}

void expect_sound(const RunOutput& r) {
  expect_one_cpu_per_task(r);
  for (const CpuMetrics& c : r.metrics.per_cpu)
    ASSERT_EQ(c.busy_ns + c.idle_ns, r.metrics.duration_ns);
  // The pinned and moving tasks ran (where they are allowed: the checker asserts it).
  Time restricted = 0;
  for (int i = 0; i < 8; ++i) restricted += r.task(fmt::format("mover{}", i)).cpu_time_ns;
  for (int i = 0; i < 24; ++i) restricted += r.task(fmt::format("pinned{}", i)).cpu_time_ns;
  EXPECT_GT(restricted, 0);
}

class LargeMachine : public ::testing::TestWithParam<std::string> {};

// The run's own checker (every 1,024 events and at the end: CPU time conserved to the
// nanosecond, no task on two CPUs, affinity respected, nothing lost) stops it at a
// violation with an InvariantError, which fails the test.
TEST_P(LargeMachine, AThousandCpusKeepEveryInvariant) {
  ScenarioOverrides o;
  o.policy = GetParam();
  o.duration_s = 0.01;
  RunOutput r;
  ASSERT_NO_THROW(r = run_text(large_scenario(1024, 19), o));
  EXPECT_EQ(r.metrics.cpus, 1024);
  expect_sound(r);
  EXPECT_GT(r.metrics.context_switches, 1024u);
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const PolicyInfo& info : policy_registry()) names.push_back(info.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Policies, LargeMachine, ::testing::ValuesIn(policy_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(LargeMachine, FourThousandNinetySixCpusRun) {
  ScenarioOverrides o;
  o.policy = "cfs-2.6.32";
  o.duration_s = 0.002;
  RunOutput r;
  ASSERT_NO_THROW(r = run_text(large_scenario(4096, 7), o));
  EXPECT_EQ(r.metrics.cpus, 4096);
  expect_sound(r);
}

}  // namespace
}  // namespace schedlab::test
